/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * procrank.h - the busiest processes, kept as rows change rather than
 * found by a pass over every row at each sample.
 *
 * The set holds every row whose key ranks at or above its floor, sorted
 * busiest first. A row that changes leaves the set if it was in it and
 * enters it if its new key reaches the floor, so a sample that changed k
 * rows costs k comparisons with the floor (and a binary search for the
 * few that pass). When the set grows past twice what it keeps, its tail
 * is cut and the floor rises to the last key kept; when it shrinks below
 * what a reader wants (busy processes went idle or exited), the owner
 * fills it again from every row (proctab.c). Pure C, one thread.
 */
#ifndef CLUSTERMON_PROCRANK_H
#define CLUSTERMON_PROCRANK_H

#include <stdbool.h>
#include <stddef.h>

#include <stdint.h>

/* What the top table ranks a row by. */
struct proc_rank_key {
	uint32_t util;
	int32_t pid;
	uint64_t rss_kb;
};

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


struct proc_rankset {
	struct proc_rank_key *v;   /* busiest first */
	size_t n, cap;
	size_t keep;               /* what a fill or a cut leaves */
	struct proc_rank_key floor;
	bool valid;                /* else the owner must fill it */
	bool all;                  /* the floor is below every row: v holds them all */
	size_t fills;              /* figures: passes over every row */
};

void procrank_free(struct proc_rankset *r);
/* A row's key was (NULL: it is new) and is now (NULL: it went). */
void procrank_change(struct proc_rankset *r, const struct proc_rank_key *was,
		     const struct proc_rank_key *now);
/* True when the set holds the top want rows (or every row). */
bool procrank_ready(const struct proc_rankset *r, size_t want);
/* Starts a fill keeping keep keys: offer every row's key, then end it. */
void procrank_fill_begin(struct proc_rankset *r, size_t keep);
void procrank_fill_offer(struct proc_rankset *r, const struct proc_rank_key *k);
void procrank_fill_end(struct proc_rankset *r);

#endif
