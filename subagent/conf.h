/*
 * conf.h - clustermond.conf directives, read through net-snmp's config
 * machinery. A read is staged: it takes effect only if every line parsed, so
 * a SIGHUP with a broken file keeps the running configuration.
 */
#ifndef CLUSTERMON_CONF_H
#define CLUSTERMON_CONF_H

#include <limits.h>
#include <stdint.h>

#include "sampler.h"
#include "sources/sources.h"

struct clustermon_conf {
	uint32_t interval_ms[SOURCE_LAST + 1]; /* 0: the source's default */
	char helper_socket[PATH_MAX];
	char snapshot_file[PATH_MAX];  /* "": the default; "none": off */
	struct proc_filter proc_filter;
	struct pcap_conf pcap;
	struct tcp_filter tcp_filter;
};

/* Registers the directives with net-snmp (before init_snmp). */
void conf_init(void);
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
