/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * sampler.h - the sampling core: every source runs on its own interval on one
 * sampler thread, apart from the SNMP thread (dproc: capture kept apart from
 * inspection). Sources publish snapshots; the MIB reads only those.
 */
#ifndef CLUSTERMON_SAMPLER_H
#define CLUSTERMON_SAMPLER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* clusterMonSourceIndex values: fixed, so an index never changes meaning
 * when a later version adds a source. */
enum source_index {
	SOURCE_CPU = 1,
	SOURCE_MEM,
	SOURCE_PROC,
	SOURCE_TCP,
	SOURCE_PCAP,
	SOURCE_PROBES,
	SOURCE_CGROUP,
	SOURCE_LAST = SOURCE_CGROUP
};

#define SOURCE_INTERVAL_MIN_MS 10u
#define SOURCE_INTERVAL_MAX_MS 3600000u

struct sources_conf;
struct source_cmd;

/* What a source plugs in: init with the root of the kernel files ("" = live),
 * one sample (returns -1 when a reader failed; the previous snapshot stays).
 * configure and command (either may be NULL) run on the source's own
 * thread, never on the caller's: a source keeps its settings to itself and
 * needs no lock for them. */
struct source_ops {
	const char *name;
	uint32_t default_interval_ms;
	/* Sources that may take milliseconds (the process table) get a thread
	 * of their own so they never delay the 100 Hz ones. */
	bool own_thread;
	void *(*init)(const char *root);
	int (*sample)(void *ctx);
	void (*fini)(void *ctx);
	/* The whole configuration of a (re)load; the source takes its part. */
	void (*configure)(void *ctx, const struct sources_conf *c);
	/* Work asked of the source by the SNMP thread (sources/sources.h). */
	void (*command)(void *ctx, const struct source_cmd *cmd);
};

struct source_stats {
	const char *name;
	uint32_t interval_ms;
	uint32_t last_cost_us;
	uint64_t samples;
	uint64_t late;
	uint64_t errors;
};

/* Known names, available or not in this build: "cpu", "mem", "proc", ... */
unsigned source_index_by_name(const char *name);
const char *source_name(unsigned index);

/* Adds a source (before sampler_start). Fatal errors are the caller's. */
int sampler_add(unsigned index, const struct source_ops *ops, const char *root);
bool sampler_has(unsigned index);
/* Next available index after `after` (0 = first), 0 at the end. */
unsigned sampler_next(unsigned after);
/* -1 with errno EINVAL (out of 10..3600000) or ENOENT (no such source). */
int sampler_set_interval(unsigned index, uint32_t ms);
uint32_t sampler_interval(unsigned index);
uint32_t sampler_default_interval(unsigned index);
int sampler_stats(unsigned index, struct source_stats *out);

/*
 * The one way into the sources (see sources/sources.h for the two types).
 * Both only queue: the source's thread runs the configuration or command
 * before its next sample, which it takes at once, and the caller (the SNMP
 * thread) never waits for a helper, netlink or /proc. Outcomes come back
 * the way everything from a source does: in what it publishes.
 */
/* Hands a (re)load's configuration to every source and sets the
 * intervals it names (0: the default). c is copied. */
void sampler_configure(const struct sources_conf *c);
/* Queues a command of len bytes (copied) for source index: 0, or -1 with
 * errno ENOENT (no such source, or it takes no commands) or ENOMEM. */
int sampler_post(unsigned index, const struct source_cmd *cmd, size_t len);

/* Takes one sample of every source synchronously, so the first GET after
 * start-up already has data; then starts the thread. */
int sampler_start(void);
void sampler_stop(void);

/*
 * The scheduling steps sampler_start and its threads are made of, public so
 * tests can run them on a fake clock (common/clock.h) without threads.
 * sampler_prime: one synchronous sample of every source, deadlines from now.
 * sampler_run_due: runs the sources of one thread (0 = the shared one, else
 * the index of an own_thread source) that are due by the clock; returns the
 * next deadline in clock ns, UINT64_MAX if that thread has no source.
 */
void sampler_prime(void);
uint64_t sampler_run_due(unsigned thread);

#endif
