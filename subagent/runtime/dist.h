/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * dist.h - the distributions clusterMonHistSourceTable serves: log2
 * histograms that collectors feed from their threads and the SNMP thread
 * copies out per request.
 */
#ifndef CLUSTERMON_DIST_H
#define CLUSTERMON_DIST_H

#include <stddef.h>
#include <stdint.h>

#include "../core/log2hist.h"

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
/* Copies every distribution into out[] (up to max); returns the count. */
size_t dist_copy_all(struct dist_copy *out, size_t max);

#endif
