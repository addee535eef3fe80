/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * exitlog.h - the exit log (issue 43): what each process that ended used,
 * kept after it is gone, in the shape of RFC 3014's nlmLogTable. Every
 * entry gets the next index (1, 2, ...; never reused while clustermond
 * runs); the oldest go when there are more than `entries` or they are
 * older than `age` seconds, so a poller that remembers the last index it
 * read reads each entry once.
 *
 * The log is append-only: an entry never changes once added. So it lives
 * in chunks of EXIT_CHUNK entries, and a view (what a snapshot serves)
 * shares the chunks by reference instead of copying entries: publishing
 * costs one pointer and one reference per chunk, and a chunk the log
 * dropped lives on while a view holds it. The writer only fills slots past
 * every view's end, so readers and the writer never touch the same entry.
 *
 * Pure C: the proc source fills entries (from the helper's exit records,
 * or from the scanner's last reading) and mib/exits.c serves views.
 */
#ifndef CLUSTERMON_CORE_EXITLOG_H
#define CLUSTERMON_CORE_EXITLOG_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "workload.h"

#define EXIT_NAME_MAX 64
#define EXIT_CMDLINE_MAX 256
#define EXIT_CGROUP_MAX 256
#define EXIT_CHUNK 64

/* exitLog's bounds and filters (clustermond.conf(5)). */
#define EXITLOG_DEFAULT_ENTRIES 2000u
#define EXITLOG_DEFAULT_AGE_S 3600u
#define EXITLOG_MAX_ENTRIES 100000u
#define EXITLOG_MAX_AGE_S 604800u      /* a week */
#define EXIT_GLOB_MAX 128

struct exit_conf {
	uint32_t entries;       /* 0: EXITLOG_DEFAULT_ENTRIES */
	uint32_t age_s;         /* 0: EXITLOG_DEFAULT_AGE_S */
	uint32_t min_life_ms;   /* log only processes that lived this long ... */
	uint32_t min_cpu_ms;    /* ... and used this much CPU (0: any) */
	char name[EXIT_NAME_MAX];      /* fnmatch on the command name; "" any */
	char cgroup[EXIT_GLOB_MAX];    /* path_glob on the cgroup's path; "" any */
};

struct exit_entry {
	uint32_t index;         /* clusterMonProcExitIndex, set by exitlog_add */
	uint32_t pid, ppid, uid;
	int32_t exit_code;      /* 0..255, or -1: killed by a signal, or unknown */
	int32_t exit_signal;    /* the signal that killed it, or 0 */
	bool oom_killed;
	bool approximate;       /* from the scanner's last reading, not the exit */
	bool have_exit;         /* exit_code and exit_signal are known */
	bool have_io;           /* read_bytes and write_bytes are known */
	uint64_t start_ms, end_ms;     /* ms since the epoch */
	uint64_t logged_ns;     /* monotonic: when it was added (age-out) */
	uint64_t cpu_ns, user_ns, system_ns, run_delay_ns;
	uint64_t peak_rss_kb, majflt, read_bytes, write_bytes;
	char comm[EXIT_NAME_MAX];
	char cmdline[EXIT_CMDLINE_MAX];
	char cgroup[EXIT_CGROUP_MAX];  /* as clusterMonProcCgroup names it; "" unknown */
	char workload[WORKLOAD_MAX];
};

/* Whether e passes c's filters (every one set must pass); _unnamed, those
 * that need no cgroup path (so an entry they refuse need not be named). */
bool exitlog_passes(const struct exit_conf *c, const struct exit_entry *e);
bool exitlog_passes_unnamed(const struct exit_conf *c, const struct exit_entry *e);

struct exit_chunk {
	atomic_uint refs;
	struct exit_entry e[EXIT_CHUNK];
};

struct exitlog {
	struct exit_chunk **chunk;   /* in order; chunk[0]'s first live entry is at off */
	size_t nchunks, cap, off, n; /* n live entries */
	uint32_t first_index;        /* the index of the first live entry */
	uint64_t logged, bumped, filtered;
	bool changed;                /* since the last view */
};

void exitlog_init(struct exitlog *l);
void exitlog_free(struct exitlog *l);
/* Adds e (its index set) unless c's filters refuse it (counted), then
 * keeps at most c's entries: 1 added, 0 filtered, -1 out of memory. */
int exitlog_add(struct exitlog *l, const struct exit_conf *c, struct exit_entry *e,
		uint64_t now_ns);
/* Drops the entries added more than c's age before now_ns, and any over
 * its entries (a reload may lower it). */
void exitlog_expire(struct exitlog *l, const struct exit_conf *c, uint64_t now_ns);

/* An immutable view of the log, shared by snapshots (atomically counted:
 * the SNMP thread and the publisher release it). */
struct exit_view {
	atomic_uint refs;
	size_t n, off, nchunks;
	uint32_t first_index;
	uint64_t logged, bumped, filtered;
	uint64_t lost;               /* set by the source: records the helper lost */
	struct exit_chunk *chunk[];
};

/* A view of the log as it is now, or NULL out of memory. */
struct exit_view *exitlog_view(struct exitlog *l);
struct exit_view *exit_view_ref(struct exit_view *v);
void exit_view_drop(struct exit_view *v);
/* Entry i (0 .. n-1, ascending index). */
const struct exit_entry *exit_view_at(const struct exit_view *v, size_t i);
/* The position of the entry with this index, or v->n. */
size_t exit_view_find(const struct exit_view *v, uint32_t index);

#endif
