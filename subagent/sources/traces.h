/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * traces.h - trace sessions of clustermon-kprobe behind clusterMonTraceTable.
 *
 * The SNMP thread only says what it wants, a SOURCE_CMD_TRACE_ROWS command to
 * the probes source (sources.h): it never talks to the helper. The probes
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

#include "collect/tracelist.h"
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

struct traces_view {
	size_t n;
	struct trace_reading *rows;   /* ascending id */
};

/* Every row of the table (on the probes source's thread, from its command). */
void traces_want(const struct trace_want *rows, size_t n);
/* One round with the helper (on the probes source's thread); helper_up
 * false when the helper did not answer its poll. */
void traces_sync(const char *socket, bool helper_up);
struct traces_view *traces_view_take(void);
void traces_view_free(struct traces_view *v);
/* Forgets everything (at exit). */
void traces_clear(void);

#endif
