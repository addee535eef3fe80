/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * budget.h - what all trace sessions together may take (issue 40), enforced
 * by the helper, the privileged side, whatever its peers ask for:
 *
 *  - a node-wide ring-buffer budget: the sum over running sessions of
 *    their CPUs x BufferBytes (kernel memory, pinned while they run);
 *  - a disk quota for the traces under the base, and a free-space reserve
 *    on the base's filesystem (fstatvfs: the space unprivileged users may
 *    still use): a session that cannot start within them is refused, and a
 *    running one ends (finished, with the reason) before a record would
 *    cross them, as at its own MaxBytes;
 *  - retention of finished trace-ID-STAMP-RANDOM directories by count and
 *    age (retain.c), when a session starts or ends and when the helper
 *    starts.
 *
 * A limit of 0 is no limit. Single-threaded, like the helper.
 */
#ifndef CLUSTERMON_BUDGET_H
#define CLUSTERMON_BUDGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

struct budget_limits {
	uint64_t ring_bytes;      /* -B: CPUs x BufferBytes over running sessions */
	uint64_t disk_bytes;      /* -Q: bytes of the traces under the base */
	unsigned reserve_pct;     /* -R: % of the base's filesystem kept available */
	unsigned keep;            /* -K: finished traces kept */
	uint64_t max_age_s;       /* -A: finished traces older than this go */
};

/* At least the helper's MAX_TRACES: one per running session. */
#define BUDGET_SLOTS 64
/* trace-65535-YYYYMMDDTHHMMSSZ-<16 hex> and more. */
#define BUDGET_NAME_MAX 64
/* What a session needs to start: its metadata and a first packet (or its
 * MaxBytes, when smaller). */
#define BUDGET_START_BYTES (64u << 10)

struct budget_slot {
	bool used;
	char name[BUDGET_NAME_MAX];   /* its directory under the base */
	uint64_t ring, disk;          /* what it holds */
};

struct trace_budget {
	struct budget_limits lim;
	uint64_t ring_used;            /* over running sessions */
	uint64_t disk_live, disk_done; /* running sessions'; finished traces' */
	uint64_t fs_room;              /* writable above the reserve, last look */
	uint64_t fs_spent;             /* charged since that look */
	struct budget_slot slot[BUDGET_SLOTS];
};

/* The defaults (see budget.c for why): ring min(64 MiB, RAM/16), disk 1
 * GiB, reserve 5%, keep 20 traces, 7 days. */
void budget_defaults(struct budget_limits *l);
/* BYTES with an optional K, M, G or T (powers of 1024): 0, or -1. */
int budget_parse_bytes(const char *s, uint64_t *out);
/* One of the helper's options -B BYTES, -Q BYTES, -R PERCENT[%], -K COUNT,
 * -A SECONDS into l: 0, or -1 when arg is not one. */
int budget_option(int opt, const char *arg, struct budget_limits *l);
/* Whether a session of ncpu x buffer ring bytes, needing start bytes on
 * disk, fits now: the base (basefd) is measured, and retention applied,
 * first. 0, or -1 with why. */
int budget_admit(struct trace_budget *b, int basefd, unsigned ncpu, uint64_t buffer,
		 uint64_t start, char *why, size_t whylen);
/* Books a session that started into directory name: its slot. */
int budget_take(struct trace_budget *b, const char *name, uint64_t ring);
/* The session of slot would hold total bytes: NULL when that fits (and is
 * booked), else the reason it must stop. */
const char *budget_charge(struct trace_budget *b, int slot, uint64_t total);
/* Looks at the free space again; fd is on the base's filesystem. */
void budget_look(struct trace_budget *b, int fd);
/* The session of slot ended with bytes on disk. */
void budget_release(struct trace_budget *b, int slot, uint64_t bytes);
/* retain.c: measures the finished traces under basefd (disk_done) and
 * removes the oldest beyond keep and those older than max_age_s; never a
 * running session's, a symbolic link, or a directory the helper did not
 * make (another owner, another name). The number removed. */
int budget_retain(struct trace_budget *b, int basefd, time_t now);

#endif
