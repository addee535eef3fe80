/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * dist.h - the distributions clusterMonHistSourceTable serves: log2
 * histograms that collectors feed from their threads, read as a snapshot
 * like any source's (one copy per change, shared by every reader).
 */
#ifndef CLUSTERMON_DIST_H
#define CLUSTERMON_DIST_H

#include <stddef.h>
#include <stdint.h>

#include "../core/log2hist.h"
#include "snapshot.h"

#define DIST_MAX 128

struct dist_copy {
	unsigned index;        /* clusterMonHistSourceIndex, from 1, stable */
	char name[64];
	char unit[16];
	struct log2hist h;
};

/* Registers a distribution; its index (never reused), or 0 when full. */
unsigned dist_register(const char *name, const char *unit, unsigned nbuckets);
/* Removes one (a probe row went away). */
void dist_unregister(unsigned index);
/* Replaces the counts with h (same bucket count): for distributions kept
 * cumulatively elsewhere, such as the helper's BPF maps. */
void dist_set(unsigned index, const struct log2hist *h);
/* Records one value; callable from any thread. index 0 is ignored. */
void dist_add(unsigned index, uint64_t value);
/* Adds a batch recorded elsewhere (same bucket count as registered): one
 * lock for many values, for per-packet and per-socket sources. */
void dist_merge(unsigned index, const struct log2hist *batch);
/* Every distribution as it stood at one moment, in ascending index order,
 * with where each one's buckets start in the rows that run through them
 * all (clusterMonHistBucketTable). */
struct dist_snapshot {
	struct snapshot hdr;
	size_t n;
	size_t nbuckets;
	size_t first[DIST_MAX];
	struct dist_copy d[];
};

/* The current snapshot, made again only when a distribution changed since
 * the last one (NULL when out of memory); drop it after the request. */
const struct dist_snapshot *dist_view_take(void);
void dist_view_drop(const struct dist_snapshot *s);
/* Drops the registry's snapshot (at exit). */
void dist_view_clear(void);

#endif
