/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * log2hist.h - cumulative log2 distributions (as bcc's runqlat prints them).
 * Pure C: no OS, no SNMP.
 *
 * Bucket 0 holds 0 and 1, bucket i (i >= 1) holds [2^i, 2^(i+1) - 1], and the
 * last bucket holds everything from its low edge up: the overflow. Counts are
 * cumulative and never reset by reading.
 */
#ifndef CLUSTERMON_LOG2HIST_H
#define CLUSTERMON_LOG2HIST_H

#include <stddef.h>
#include <stdint.h>

#define LOG2HIST_MAX_BUCKETS 65

struct log2hist {
	unsigned nbuckets;  /* 2..65; the last is the overflow bucket */
	uint64_t count;
	uint64_t sum;       /* wraps modulo 2^64, as a Counter64 does */
	uint64_t bucket[LOG2HIST_MAX_BUCKETS];
};

/* nbuckets outside 2..65 is clamped into it. */
void log2hist_init(struct log2hist *h, unsigned nbuckets);
void log2hist_add(struct log2hist *h, uint64_t value);
unsigned log2hist_bucket_of(const struct log2hist *h, uint64_t value);
/* Adds from's counts into into; both must have the same nbuckets (-1 if not). */
int log2hist_merge(struct log2hist *into, const struct log2hist *from);
/* Edges of bucket i; the overflow bucket's high edge is UINT64_MAX. */
uint64_t log2hist_low(const struct log2hist *h, unsigned i);
uint64_t log2hist_high(const struct log2hist *h, unsigned i);
/*
 * The value below which `per_mille` thousandths of the recorded values lie.
 * The rank r = ceil(count * per_mille / 1000) falls in some bucket holding
 * n values, k of them before r; the estimate is low + (high - low) * k / n,
 * i.e. values are taken as spread evenly over the bucket. In the overflow
 * bucket the estimate is its low edge (nothing is known above it). 0 when
 * nothing was recorded.
 */
uint64_t log2hist_percentile(const struct log2hist *h, unsigned per_mille);

/*
 * A table whose rows run through several histograms' buckets in order
 * (clusterMonHistBucketTable, clusterMonCgroupRunqlatTable): first[i] is
 * histogram i's first row (ascending from 0; a histogram without buckets
 * starts where the next does), total is every row. The histogram holding
 * row (< total), its bucket in *bucket. *hint (NULL: none), the histogram
 * found last, is tried first, then the one after it: walks and the image
 * ask for row after row, so most rows cost no search.
 */
size_t log2hist_row_at(const size_t *first, size_t n, size_t total, size_t row, size_t *hint,
		       unsigned *bucket);

#endif
