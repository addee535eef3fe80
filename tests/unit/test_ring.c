/* SPDX-License-Identifier: BSD-2-Clause */
/* test_ring.c - time buckets, wrap-around, gaps and bounds. */
#include "core/ring.h"
#include "tap.h"

int main(void)
{
	struct ring r;
	const struct ring_bucket *b;

	ok(ring_init(&r, 9, 4, 0) == -1, "9 ms is refused");
	ok(ring_init(&r, 3600001, 4, 0) == -1, "over an hour is refused");
	ok(ring_init(&r, 100, 0, 0) == -1, "zero buckets is refused");
	ok(ring_init(&r, 3600000, 1, 0) == 0, "an hour is accepted");
	ring_free(&r);

	ring_init(&r, 100, 3, 1000);
	ring_add(&r, 1000, 5);
	ring_add(&r, 1050, 9);
	ring_add(&r, 1099, 1);
	b = ring_at(&r, 0);
	ok(b && b->index == 1 && b->start_ms == 1000 && b->samples == 3, "three samples in bucket 1");
	ok(b && b->min == 1 && b->max == 9 && b->last == 1 && ring_mean(b) == 5, "min, max, last, mean");
	ring_add(&r, 1100, 7);
	ok(ring_at(&r, 1) && ring_at(&r, 1)->index == 2 && ring_at(&r, 1)->start_ms == 1100,
	   "the next interval opens bucket 2");
	ring_add(&r, 1450, 8);
	b = ring_at(&r, 2);
	ok(b && b->index == 5 && b->start_ms == 1400, "an interval without samples leaves a gap (3, 4)");
	ring_add(&r, 1500, 6);
	ok(ring_at(&r, 0)->index == 2 && ring_at(&r, 2)->index == 6 && ring_at(&r, 3) == NULL,
	   "wrap-around drops the oldest; never more than cap buckets");
	ring_add(&r, 1200, 99);
	ok(ring_at(&r, 2)->samples == 1 && ring_at(&r, 2)->max == 6, "a late sample for a closed interval is dropped");
	ring_add(&r, 1599, UINT64_MAX);
	ring_add(&r, 1599, UINT64_MAX);
	ok(ring_mean(ring_at(&r, 2)) == (UINT64_MAX / 3) * 2 + (UINT64_MAX % 3 * 2 + 6) / 3,
	   "the mean of huge values does not overflow");
	ring_free(&r);
	ring_add(&r, 0, 1);
	ok(ring_at(&r, 0) == NULL, "a freed ring ignores samples");
	return done_testing();
}
