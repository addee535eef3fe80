/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * source_cmd.h - what the SNMP thread may ask of a source (sampler_post):
 * the command queue's one message. Its rows are the probes, traces and
 * distributions sources' own types, so only who posts a command (mib/'s
 * read-create tables, the procFilter scalars) or carries one out (the proc
 * and probes sources) includes it; sources.h does not.
 */
#ifndef CLUSTERMON_SOURCES_SOURCE_CMD_H
#define CLUSTERMON_SOURCES_SOURCE_CMD_H

#include <stddef.h>

#include "sources.h"   /* struct proc_filter */
#include "probes.h"
#include "dists.h"
#include "traces.h"

/* What the SNMP thread may ask of a source (sampler_post). */
enum source_cmd_kind {
	SOURCE_CMD_PROC_FILTER = 1, /* to "proc": filter the next snapshots so */
	SOURCE_CMD_PROBE_ROWS,      /* to "probes": every row of the probe table */
	SOURCE_CMD_TRACE_ROWS,      /* to "probes", whose thread owns the helper's
				     * socket: every row of the trace table */
	SOURCE_CMD_DIST_ROWS,       /* to "probes" as well: every row of the
				     * distribution table */
};

union source_cmd_row {
	struct probe_want probe;    /* SOURCE_CMD_PROBE_ROWS */
	struct trace_want trace;    /* SOURCE_CMD_TRACE_ROWS */
	struct dist_want dist;      /* SOURCE_CMD_DIST_ROWS */
};

struct source_cmd {
	enum source_cmd_kind kind;
	struct proc_filter proc_filter;
	size_t nrows;
	union source_cmd_row rows[];
};

#endif
