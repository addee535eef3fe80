/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * proctab.h - the process table as the proc source builds it: rows in
 * pid order, in chunks of PROC_CHUNK_ROWS shared copy-on-write between the
 * builder and every snapshot published from it.
 *
 * Publishing a sample costs what changed: a snapshot copies the array of
 * chunk pointers (and takes a reference on each chunk), never the rows; the
 * builder copies a chunk only the first time one of its rows changes after
 * a publish. A reader holding an old snapshot keeps the chunks it saw.
 *
 * Every row carries the generation (publish number) in which it last
 * changed, so a writer of the image can re-encode only newer rows.
 *
 * One thread builds; snapshots may be released on any thread (chunk
 * reference counts are atomic).
 */
#ifndef CLUSTERMON_PROCTAB_H
#define CLUSTERMON_PROCTAB_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sources.h"

/* What the top table ranks a row by. */
struct proc_rank_key {
	uint32_t util;
	int32_t pid;
	uint64_t rss_kb;
};

struct proc_chunk {
	atomic_uint refs;      /* the builder's table, and each snapshot */
	uint64_t made;         /* the builder's generation when it was made */
	uint32_t n;
	struct proc_rank_key best; /* its busiest row's, set at publish */
	struct proc_row rows[PROC_CHUNK_ROWS]; /* ascending pid */
};

struct proctab {
	uint64_t gen;          /* of the next publish; chunks made in it are private */
	size_t n, cap, nrows;
	struct proc_chunk **chunk;
};

void proctab_init(struct proctab *t);
void proctab_free(struct proctab *t);

/* The row of pid, or NULL. Valid until the next change to t. */
const struct proc_row *proctab_find(const struct proctab *t, int32_t pid);
/* Sets the row of r->pid (added if new). A row equal to the one there
 * (generation aside) changes nothing. 1 changed, 0 same, -1 no memory. */
int proctab_put(struct proctab *t, const struct proc_row *r);
/* Removes pid's row; 1 if there was one, 0 if not, -1 no memory. */
int proctab_del(struct proctab *t, int32_t pid);

/* The order of the top table (sources/top.c): higher utilisation, then
 * more resident memory, then the lower pid first; <0 when a comes first. */
static inline int proc_key_busier(const struct proc_rank_key *a, const struct proc_rank_key *b)
{
	if (a->util != b->util)
		return a->util > b->util ? -1 : 1;
	if (a->rss_kb != b->rss_kb)
		return a->rss_kb > b->rss_kb ? -1 : 1;
	return (a->pid > b->pid) - (a->pid < b->pid);
}
int proc_row_busier(const struct proc_row *a, const struct proc_row *b);

/* The table as a snapshot (refs 1; the caller fills the other fields):
 * NULL when out of memory. Every chunk becomes shared. */
struct proc_snapshot *proctab_publish(struct proctab *t);

#endif
