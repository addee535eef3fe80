/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ring.h - time-bucket history of one sampled variable (RMON history style).
 * Pure C: no OS, no SNMP; the caller passes the time.
 *
 * Samples fall into buckets of interval_ms, aligned to the ring's start time;
 * each bucket keeps its start, sample count, min, max, mean and last value.
 * At most `cap` buckets are kept: the oldest go first, so memory is bounded.
 * An interval without samples leaves no bucket (its index is skipped), so a
 * stalled source shows as a gap, not as zeros.
 */
#ifndef CLUSTERMON_RING_H
#define CLUSTERMON_RING_H

#include <stdint.h>

#define RING_INTERVAL_MIN_MS 10u
#define RING_INTERVAL_MAX_MS 3600000u

struct ring_bucket {
	uint64_t index;     /* interval number since the ring started, from 1 */
	uint64_t start_ms;  /* start of the interval, in the caller's clock */
	uint32_t samples;
	uint64_t min, max, last;
	unsigned __int128 sum;
};

struct ring {
	uint32_t interval_ms;
	uint32_t cap;
	uint64_t origin_ms;
	uint32_t head;      /* slot of the oldest bucket */
	uint32_t used;
	struct ring_bucket *b;
};

/* -1 for an interval outside 10 ms..3600 s, cap 0, or no memory. */
int ring_init(struct ring *r, uint32_t interval_ms, uint32_t cap, uint64_t now_ms);
void ring_free(struct ring *r);
void ring_add(struct ring *r, uint64_t now_ms, uint64_t value);
/* Buckets in age order: i = 0 is the oldest; NULL past the end. */
const struct ring_bucket *ring_at(const struct ring *r, uint32_t i);
uint64_t ring_mean(const struct ring_bucket *b);

#endif
