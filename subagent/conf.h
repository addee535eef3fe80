/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * conf.h - clustermond.conf directives, read through net-snmp's config
 * machinery. A read is staged: it takes effect only if every line parsed, so
 * a SIGHUP with a broken file keeps the running configuration. reload.c
 * calls the read hooks and hands the result on.
 */
#ifndef CLUSTERMON_CONF_H
#define CLUSTERMON_CONF_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "runtime/sampler.h"
#include "sources/sources.h"

struct clustermon_conf {
	/* handed whole to the sampler; image_path is the publisher's too */
	struct sources_conf sources;
};

/* Registers the directives with net-snmp (before init_snmp). */
void conf_init(void);
/* A read of the config files begins: a fresh staging copy. */
void conf_read_begin(void);
/* The read ended: true when every line parsed and the staged copy is now
 * the configuration in force; false keeps the previous one (logged). */
bool conf_read_end(void);
/* Errors found by the last read of the config files. */
int conf_errors(void);
/* The configuration was accepted at start-up: later reads (SIGHUP) keep the
 * running configuration on errors instead of refusing to start. */
void conf_started(void);
/* Reports a bad line (net-snmp adds file:line) and counts it: fmt has one %s. */
void conf_error(const char *fmt, const char *arg);
/* The configuration in force. */
const struct clustermon_conf *conf_active(void);

#endif
