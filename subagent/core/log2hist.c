/* SPDX-License-Identifier: BSD-2-Clause */
/* log2hist.c - log2 buckets, counts and interpolated percentiles. */
#include "log2hist.h"
#include "lowerbound.h"

void log2hist_init(struct log2hist *h, unsigned nbuckets)
{
	if (nbuckets < 2)
		nbuckets = 2;
	if (nbuckets > LOG2HIST_MAX_BUCKETS)
		nbuckets = LOG2HIST_MAX_BUCKETS;
	*h = (struct log2hist){ .nbuckets = nbuckets };
}

unsigned log2hist_bucket_of(const struct log2hist *h, uint64_t value)
{
	/* Position of the highest set bit: 0 for 0 and 1. */
	unsigned i = value > 1 ? 63u - (unsigned)__builtin_clzll(value) : 0;

	return i < h->nbuckets - 1 ? i : h->nbuckets - 1;
}

void log2hist_add(struct log2hist *h, uint64_t value)
{
	h->bucket[log2hist_bucket_of(h, value)]++;
	h->count++;
	h->sum += value;
}

uint64_t log2hist_low(const struct log2hist *h, unsigned i)
{
	(void)h;
	return i == 0 ? 0 : (uint64_t)1 << i;
}

uint64_t log2hist_high(const struct log2hist *h, unsigned i)
{
	if (i >= h->nbuckets - 1 || i >= 63)
		return UINT64_MAX;
	return ((uint64_t)1 << (i + 1)) - 1;
}

uint64_t log2hist_percentile(const struct log2hist *h, unsigned per_mille)
{
	uint64_t rank, before = 0;

	if (h->count == 0)
		return 0;
	if (per_mille > 1000)
		per_mille = 1000;
	/* ceil(count * p / 1000) without overflow for any count */
	rank = h->count / 1000 * per_mille + (h->count % 1000 * per_mille + 999) / 1000;
	if (rank == 0)
		rank = 1;
	for (unsigned i = 0; i < h->nbuckets; i++) {
		uint64_t n = h->bucket[i], low, span;

		if (before + n < rank) {
			before += n;
			continue;
		}
		low = log2hist_low(h, i);
		if (i == h->nbuckets - 1)
			return low;
		span = log2hist_high(h, i) - low;
		/* k = rank - before - 1 values of this bucket lie below the rank */
		return low + (uint64_t)((unsigned __int128)span * (rank - before - 1) / n);
	}
	return log2hist_low(h, h->nbuckets - 1);
}

int log2hist_merge(struct log2hist *into, const struct log2hist *from)
{
	if (into->nbuckets != from->nbuckets)
		return -1;
	for (unsigned i = 0; i < into->nbuckets; i++)
		into->bucket[i] += from->bucket[i];
	into->count += from->count;
	into->sum += from->sum;
	return 0;
}

/* Histogram i holds row: an empty one never does. */
static bool holds(const size_t *first, size_t n, size_t total, size_t i, size_t row)
{
	return i < n && first[i] <= row && row < (i + 1 < n ? first[i + 1] : total);
}

struct row_key {
	const size_t *first;
	size_t row;
};

static bool starts_by(const void *ctx, size_t i)
{
	const struct row_key *k = ctx;

	return k->first[i] <= k->row;
}

size_t log2hist_row_at(const size_t *first, size_t n, size_t total, size_t row, size_t *hint,
		       unsigned *bucket)
{
	size_t i = hint != NULL ? *hint : 0;

	if (!holds(first, n, total, i, row) && !holds(first, n, total, i + 1, row))
		/* the last whose first row is at or before row (the first's is 0) */
		i = cm_lower_bound(1, n, starts_by, &(struct row_key){ first, row }) - 1;
	else if (!holds(first, n, total, i, row))
		i++;
	if (hint != NULL)
		*hint = i;
	*bucket = (unsigned)(row - first[i]);
	return i;
}
