/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * traces.h - trace sessions of clustermon-kprobe behind clusterMonTraceTable.
 *
 * The SNMP thread only says what it wants, a SOURCE_CMD_TRACE_ROWS command to
 * the probes source (source_cmd.h): it never talks to the helper. The probes
 * source's thread, which owns the helper's socket, takes the rows
 * (traces_want) and carries the wishes out at each of its samples
 * (traces_sync): starts the
 * sessions of rows activated since, stops those of rows deactivated or
 * destroyed, and reads every session's state and counters for the view.
 */
#ifndef CLUSTERMON_SOURCES_TRACES_H
#define CLUSTERMON_SOURCES_TRACES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../core/readings.h"
#include "common/wire.h"

#define TRACE_LINE_MAX 320

/* clusterMonTraceOperStatus */
enum trace_oper { TOPER_IDLE = 1, TOPER_PENDING, TOPER_RUNNING, TOPER_FINISHED, TOPER_FAILED };

/* A row of the trace table as the source needs it. */
struct trace_want {
	uint32_t id;
	struct wire_request req;   /* the trace request that starts it */
	bool active;
	uint32_t generation;   /* changes at each activation: a new session */
};

struct trace_reading {
	uint32_t id;
	int oper;              /* enum trace_oper */
	uint32_t generation;   /* of the session these values belong to */
	uint64_t records, lost, bytes;
	char dir[TRACELIST_DIR_MAX + 1];
	char error[TRACELIST_REASON_MAX + 1];
};

struct snapshot;

struct traces_view {
	size_t n;
	struct trace_reading *rows;   /* ascending id */
	struct snapshot *owner;       /* the probes snapshot it is part of */
};

/* The sessions, owned by the probes source (its ctx) and touched only on
 * its thread. */
struct traces;
struct traces *traces_new(void);
void traces_free(struct traces *t);
/* Every row of the table (from the probes source's command). */
void traces_want(struct traces *t, const struct trace_want *rows, size_t n);
/* One round with the helper (at the probes source's sample); helper_up
 * false when the helper did not answer its poll. */
void traces_sync(struct traces *t, const char *socket, bool helper_up);
/* A copy for the probes source's snapshot, and its end. */
struct traces_view *traces_view_make(const struct traces *t);
void traces_view_destroy(struct traces_view *v);

/* For the SNMP thread: the sessions in the probes source's current
 * snapshot (NULL before its first sample), released by traces_view_free.
 * Defined in probes.c, which publishes them. */
struct traces_view *traces_view_take(void);
void traces_view_free(struct traces_view *v);

#endif
