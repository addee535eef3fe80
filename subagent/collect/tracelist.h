/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tracelist.h - the helper's reply to "traces" (common/wire.h):
 * "ok N" and N lines "trace ID STATE RECORDS LOST BYTES ELAPSED-MS DIR
 * REASON...". Untrusted text: common/wire.h checks every field, and a
 * malformed reply is refused whole. No net-snmp headers.
 */
#ifndef CLUSTERMON_COLLECT_TRACELIST_H
#define CLUSTERMON_COLLECT_TRACELIST_H

#include <stddef.h>
#include <stdint.h>

#include "../core/readings.h"
#include "common/wire.h"

#define TRACELIST_MAX 4096

enum tracelist_state {
	TRACELIST_RUNNING = WIRE_TRACE_RUNNING,
	TRACELIST_FINISHED = WIRE_TRACE_FINISHED,
	TRACELIST_FAILED = WIRE_TRACE_FAILED,
};

struct tracelist_entry {
	uint32_t id;
	enum tracelist_state state;
	uint64_t records, lost, bytes, elapsed_ms;
	char dir[TRACELIST_DIR_MAX + 1];
	char reason[TRACELIST_REASON_MAX + 1];   /* "" for the helper's "-" */
};

/* 0 with *out (malloc'd, *n entries), or -1 with why. */
int tracelist_parse(const char *reply, struct tracelist_entry **out, size_t *n, char *why,
		    size_t whylen);

#endif
