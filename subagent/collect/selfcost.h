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

/* clustermond runs a thread per source that has one and a few more. */
#define SELF_THREADS_MAX 64

struct self_thread {
	uint32_t tid;
	char name[16];              /* comm: at most 15 characters */
	uint64_t cpu_ns;            /* utime + stime, from ticks */
};

struct self_cost {
	bool have;                  /* read at least once */
	uint64_t rss_kb;
	uint64_t cpu_ns;            /* the whole process, exited threads too */
	bool have_image;
	uint64_t image_bytes;
	size_t nthreads;
	struct self_thread thread[SELF_THREADS_MAX];  /* ascending tid */
};

/* This process's figures from the live /proc (whatever root the sources
 * read: this describes clustermond, not the system observed), and the size
 * of image_path ("" or "none": no image). 0, or -1 when /proc/self could
 * not be read. */
int self_cost_read(struct self_cost *c, const char *image_path);

#endif
