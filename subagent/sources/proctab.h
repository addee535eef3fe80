/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * proctab.h - the process table as the proc source builds it: rows in
 * pid order, in chunks of PROC_CHUNK_ROWS shared copy-on-write between the
 * builder and every snapshot published from it.
 *
 * Publishing a sample costs what changed, and touches no chunk that did
 * not: the builder keeps an array of slots (a chunk's pointer, count, last
 * pid, busiest key and the generation it was made in), and a snapshot is a
 * copy of that array. The builder copies a chunk only the first time one of
 * its rows changes after a publish.
 *
 * Chunks carry no reference count. One the builder replaces or drops after
 * publish g may still be read through snapshots up to g, so it waits on
 * the retire list of g; that list is freed once snapshot g is released and
 * the list before it is gone (each list holds the next one), that is, once
 * no snapshot that could hold the chunk remains. A reader that holds an
 * old snapshot keeps the chunks retired since.
 *
 * Every row carries the generation (publish number) in which it last
 * changed, so a writer of the image can re-encode only newer rows.
 *
 * One thread builds; snapshots may be released on any thread.
 */
#ifndef CLUSTERMON_PROCTAB_H
#define CLUSTERMON_PROCTAB_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "procrank.h"
#include "proc.h"

struct proc_chunk {
	uint64_t made;         /* the builder's generation when it was made */
	uint32_t n;
	/* each row's key, set at publish: the ranking reads these four
	 * lines of a chunk instead of its rows */
	struct proc_rank_key keys[PROC_CHUNK_ROWS];
	struct proc_row rows[PROC_CHUNK_ROWS]; /* ascending pid */
};

struct proc_slot {
	struct proc_chunk *c;
	uint64_t made;             /* c->made */
	struct proc_rank_key best; /* its busiest row's key, set at publish */
	int32_t last;              /* its last row's pid */
	uint32_t n;                /* its rows */
	uint32_t first;            /* in a snapshot: the row number of its first row */
};

/* Chunks waiting for the snapshots that may read them (see above). */
struct proc_retired {
	atomic_uint refs;
	struct proc_retired *next;
	size_t n, cap;
	struct proc_chunk **c;
};

struct proctab {
	uint64_t gen;          /* of the next publish; chunks made in it are private */
	size_t n, cap, nrows;
	struct proc_slot *slot;
	struct proc_retired *retire; /* the last publish's list; NULL before one */
	struct proc_rankset rank;    /* the busiest rows, kept as rows change */
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

int proc_row_busier(const struct proc_row *a, const struct proc_row *b);

/* The busiest min(want, rows) rows' keys, busiest first, into *n: from
 * the kept set, filled again from the chunks' keys when it holds too few.
 * Call after proctab_publish (the fill reads the keys it sets). */
const struct proc_rank_key *proctab_top(struct proctab *t, size_t want, size_t *n);
/* The row of pid in s, or NULL. */
const struct proc_row *proc_snapshot_find(const struct proc_snapshot *s, int32_t pid);

/* The table as a snapshot (refs 1; the caller fills the other fields):
 * NULL when out of memory. Every chunk becomes shared. */
struct proc_snapshot *proctab_publish(struct proctab *t);

#endif
