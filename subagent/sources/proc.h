/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * proc.h - the "proc" source's public face: the process table's snapshot
 * (clusterMonProcTable, the agent's own cost), the exit log it publishes
 * beside it, and the calls another thread makes on them. What the source
 * keeps between samples is procsrc.h's, private to its proc*.c files; its
 * filter (procFilter) is configuration, sources.h's.
 */
#ifndef CLUSTERMON_SOURCES_PROC_H
#define CLUSTERMON_SOURCES_PROC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "source_ops.h"
#include "../runtime/snapshot.h"
#include "../core/readings.h"
#include "../core/exitlog.h"

struct proc_row {
	int32_t pid;
	char state;
	uint32_t uid;
	uint32_t threads;
	uint32_t util;         /* hundredths of a percent of one CPU, last interval */
	uint32_t system_share; /* hundredths of a percent of its CPU time in the kernel */
	uint64_t user_ms, system_ms;
	bool have_schedstat;
	uint64_t cpu_ns, run_delay_ns;
	uint64_t rss_kb, minflt, majflt, vol_ctxsw, invol_ctxsw;
	uint64_t start_time;   /* seconds since the epoch */
	uint64_t gen;          /* the snapshot (proc_snapshot.gen) it last changed in */
	char comm[64];
	char cmdline[256];
	char cgroup[CG_PID_PATH_MAX]; /* its cgroup's path, as clusterMonCgroupPath */
};

/* Rows in chunks shared between snapshots (sources/proctab.h). */
#define PROC_CHUNK_ROWS 16
struct proc_chunk;
struct proc_slot;
struct proc_retired;
/* The busiest processes of a sample, ranked after it (sources/top.h). */
struct proc_top;

struct proc_snapshot {
	struct snapshot hdr;
	uint64_t gen;          /* rows with this gen changed in this sample */
	size_t nrows;          /* served, after the filter */
	size_t nall;           /* rows in the chunks: every process followed */
	size_t followed;       /* processes read, before filtering */
	uint64_t sweep_fixes;  /* clusterMonProcSweepFixes */
	bool helper_fed;       /* clusterMonSourceMethod: "helper", else "scanner" */
	uint64_t agent_rss_kb; /* clustermond's own resident memory */
	struct self_cost agent; /* and what else it costs (clusterMonAgent) */
	size_t nchunks;
	struct proc_slot *slot;       /* each chunk of rows, ascending pid */
	struct proc_retired *retired; /* what it keeps alive (proctab.h) */
	const struct proc_row **view; /* with a filter: the rows it passes, else NULL */
	const struct proc_top *top;   /* every row followed, ranked; NULL: none */
};

/* Row i (0 .. nrows-1) in pid order: O(log chunks). */
const struct proc_row *proc_snapshot_row(const struct proc_snapshot *s, size_t i);
/* How many rows from row i on are as they were in the snapshot of
 * generation since (whole chunks shared with it); 0 with a filter. */
size_t proc_snapshot_same_since(const struct proc_snapshot *s, size_t i, uint64_t since);
/* The pids of the rows that changed after generation since (processes that
 * ran, appeared or had slow fields refreshed) into *pids (grown, *cap
 * updated); the count. Chunks not copied since are skipped whole. */
size_t proc_snapshot_changed(const struct proc_snapshot *s, uint64_t since, int32_t **pids,
			     size_t *cap);

/* One helper-fed sample from the text of a reply to the helper's procs
 * request (as if the helper had sent it): for tests. 0, or -1 when the
 * reply does not parse or the sample failed. */
int proc_source_feed(void *ctx, const char *reply);

/* The proc source's current snapshot (NULL before its first sample), for
 * another source that follows processes: the tcp source finds a new
 * socket's owner among the rows that changed. Drop it with
 * proc_snapshot_drop. */
struct proc_snapshot *proc_snapshot_take(void);
void proc_snapshot_drop(struct proc_snapshot *s);

extern const struct source_ops proc_source_ops;

/* The exit log (issue 43), published by the proc source's thread apart
 * from the process table: with the helper's exit ring, what it drains
 * while the table sleeps (nobody reads it) is served all the same. */
struct exit_snapshot {
	struct snapshot hdr;
	uint64_t gen;                 /* one more at each publication */
	bool exact;                   /* from the helper's exit records */
	struct exit_view *log;
};

/* The log's current snapshot (NULL before the first), and its end. */
struct exit_snapshot *proc_exits_take(void);
void proc_exits_drop(struct exit_snapshot *s);
/* Whether the log is fed by the helper's exit ring now (any thread): a
 * reader of it then needs no sample of the process table. */
bool proc_exits_exact(void);

#endif
