/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * selfcost.h - what clustermond itself costs (clusterMonAgent, issue 30):
 * CPU time per thread and in all, resident memory, and the size of the
 * image it publishes. Read on a sampling thread (the proc source's, once a
 * second), never on the SNMP thread.
 */
#ifndef CLUSTERMON_COLLECT_SELFCOST_H
#define CLUSTERMON_COLLECT_SELFCOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../core/readings.h"

/* This process's figures from the live /proc (whatever root the sources
 * read: this describes clustermond, not the system observed), and the size
 * of image_path ("" or "none": no image). 0, or -1 when /proc/self could
 * not be read. */
int self_cost_read(struct self_cost *c, const char *image_path);

#endif
