/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * probes.h - the "probes" source: keeps clustermon-kprobe's probes in step
 * with the clusterMonProbeTable rows and turns its readings into counters
 * that never go backwards, across helper restarts and re-attachments.
 *
 * The SNMP thread says what it wants with a SOURCE_CMD_PROBE_ROWS command
 * (source_cmd.h); the source's own thread does all the rest: every interval
 * one exchange with the helper reads everything, installs what is missing
 * and removes what is no longer wanted. An attachment's outcome comes back
 * in the view, as the row's OperStatus and LastError. A spec that failed to
 * attach is not retried until its row changes, is activated again, or the
 * helper restarts.
 */
#ifndef CLUSTERMON_SOURCES_PROBES_H
#define CLUSTERMON_SOURCES_PROBES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "source_ops.h"
#include "common/spec.h"
#include "../runtime/snapshot.h"

#define PROBE_LINE_MAX 256
#define PROBE_ERROR_MAX 256

/* clusterMonHelperStatus */
enum helper_state { HELPER_RUNNING = 1, HELPER_ABSENT = 2, HELPER_FAILED = 3 };
/* clusterMonProbeOperStatus */
enum probe_oper { OPER_UP = 1, OPER_DOWN, OPER_FAILED, OPER_UNSUPPORTED };

/* A row of the probe table as the source needs it. */
struct probe_want {
	uint32_t id;
	struct probe_spec spec;     /* parsed once, when the row was set */
	struct probe_filter filter;
	bool active;
	bool latency;
};

/* What the MIB serves for one row. */
struct probe_reading {
	uint32_t id;
	int oper;
	char error[PROBE_ERROR_MAX];
	uint64_t hits, sampled, lost;
	unsigned ncpu;
	uint64_t *cpu_hits;         /* points into the view */
};

struct drop_reading {
	uint32_t reason;            /* the kernel's skb_drop_reason value */
	char name[48];
	uint64_t packets;
};

struct probes_view {
	int helper;                 /* enum helper_state */
	size_t n;
	struct probe_reading *rows; /* ascending id */
	unsigned ncpu;              /* busy_ns entries; 0 without the sensors */
	uint64_t *busy_ns;
	bool have_sensors;          /* the counters below are served */
	uint64_t tcp_retransmits, skb_drops;
	size_t ndrops;
	struct drop_reading *drops; /* ascending reason */
	struct snapshot *owner;     /* the snapshot it is part of */
};

/* What the current snapshot serves (NULL before the first sample);
 * release it with probes_view_free. */
struct probes_view *probes_view_take(void);
void probes_view_free(struct probes_view *v);

/* What the probes source publishes in its slot after each sample and
 * command: clusterMonHelperStatus, the probe and sensor readings and the
 * trace sessions, read as every other source's values are. */
struct traces_view;
struct probes_snapshot {
	struct snapshot hdr;
	int helper;                 /* enum helper_state */
	struct probes_view *probes;
	struct traces_view *traces;
};

extern const struct source_ops probes_source_ops;

#endif
