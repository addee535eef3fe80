/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * distlist.h - the helper's reply to "dists" (common/wire.h):
 * "ok N" and N lines "dist ID HITS SAMPLED MISSES SUM SLOT0 ... SLOT63".
 * Another process writes it: every number is bounds-checked and a reply
 * that is cut short or malformed is refused whole.
 */
#ifndef CLUSTERMON_COLLECT_DISTLIST_H
#define CLUSTERMON_COLLECT_DISTLIST_H

#include <stddef.h>
#include <stdint.h>

#include "common/wire.h"
#include "core/log2hist.h"

#define DISTLIST_MAX 4096
#define DISTLIST_SLOTS WIRE_HIST_SLOTS

struct distlist_entry {
	uint32_t id;
	uint64_t hits, sampled, misses;
	struct log2hist hist;      /* DISTLIST_SLOTS buckets; count is their sum */
};

/* 0 with *out (malloc'd, *n entries), or -1 with why. */
int distlist_parse(const char *reply, struct distlist_entry **out, size_t *n, char *why,
		   size_t whylen);

#endif
