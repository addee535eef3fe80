/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * source_ops.h - what a source is to the sampler: its fixed index and the
 * operations it plugs in. The sources and the sampler both include it, so
 * neither includes the other's header (sampler.c includes sources.h).
 */
#ifndef CLUSTERMON_SOURCE_OPS_H
#define CLUSTERMON_SOURCE_OPS_H

#include <stdbool.h>
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
	SOURCE_END /* a new source goes before this line; nothing else counts them */
};
#define SOURCE_LAST (SOURCE_END - 1)

#define SOURCE_INTERVAL_MIN_MS 10u
#define SOURCE_INTERVAL_MAX_MS 3600000u

struct sources_conf;
struct source_cmd;
struct snapshot;
struct snapshot_slot;

/* What a source plugs in: init with the root of the kernel files ("" = live),
 * one sample (returns -1 when a reader failed; the previous snapshot stays).
 * configure and command (either may be NULL) run on the source's own
 * thread, never on the caller's: a source keeps its settings to itself and
 * needs no lock for them. */
struct source_ops {
	unsigned index;              /* enum source_index */
	const char *name;            /* clusterMonSourceName, sampleInterval's SOURCE */
	/* Where it publishes (NULL: it publishes no snapshot); the sampler
	 * clears it after fini, so no snapshot outlives its source. */
	struct snapshot_slot *slot;
	/* clusterMonSourceMethod read from its current snapshot; NULL (or no
	 * snapshot yet): "periodic". */
	const char *(*method)(const struct snapshot *s);
	uint32_t default_interval_ms;
	/* Samples on its timer whether or not anyone reads it (sampler.h's
	 * demand does not apply): the probes source keeps the helper's
	 * attachments in step with the probe table. */
	bool pinned;
	/* Sources that may take milliseconds (the process table) get a thread
	 * of their own so they never delay the 100 Hz ones. */
	bool own_thread;
	void *(*init)(const char *root);
	int (*sample)(void *ctx);
	/* May be NULL. What it samples on its timer while nobody reads the
	 * rest (sampler.h's demand): the tcp source's node counters. */
	int (*sample_idle)(void *ctx);
	void (*fini)(void *ctx);
	/* The whole configuration of a (re)load; the source takes its part. */
	void (*configure)(void *ctx, const struct sources_conf *c);
	/* Work asked of the source by the SNMP thread (sources/source_cmd.h). */
	void (*command)(void *ctx, const struct source_cmd *cmd);
};

#endif
