/* SPDX-License-Identifier: BSD-2-Clause */
/* test_log2hist.c - bucket edges, overflow, counts and percentiles; the
 * bucket rows of several histograms (log2hist_row_at), table-driven. */
#include "core/log2hist.h"
#include "tap.h"

/* Four histograms of 3, 0, 2 and 4 buckets: rows 0-2, none, 3-4, 5-8. */
static const size_t first[] = { 0, 3, 3, 5 };
#define NHIST 4
#define TOTAL 9

static const struct {
	size_t row, hint;          /* hint SIZE_MAX: none (NULL) */
	size_t hist;
	unsigned bucket;
	const char *what;
} rows[] = {
	{ 0, SIZE_MAX, 0, 0, "row 0, no hint: the first histogram's first bucket" },
	{ 2, SIZE_MAX, 0, 2, "the first histogram's last bucket" },
	{ 3, SIZE_MAX, 2, 0, "past an empty histogram: the one after it, not the empty one" },
	{ 4, SIZE_MAX, 2, 1, "the third histogram's last bucket" },
	{ 8, SIZE_MAX, 3, 3, "the last row" },
	{ 3, 0, 2, 0, "a hint one before (through the empty one): a search finds it" },
	{ 5, 2, 3, 0, "a hint one before: the next histogram" },
	{ 6, 3, 3, 1, "a hint right: kept" },
	{ 1, 3, 0, 1, "a hint past the row: a search" },
	{ 7, 1, 3, 2, "a hint on the empty histogram: a search" },
	{ 2, 99, 0, 2, "a hint out of range (another table's): a search" },
};

static void test_rows(void)
{
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		size_t hint = rows[i].hint, h;
		unsigned b = 99;

		h = log2hist_row_at(first, NHIST, TOTAL, rows[i].row,
				    rows[i].hint == SIZE_MAX ? NULL : &hint, &b);
		ok(h == rows[i].hist && b == rows[i].bucket &&
			   (rows[i].hint == SIZE_MAX || hint == h),
		   "%s: row %zu is histogram %zu bucket %u (want %zu, %u)", rows[i].what,
		   rows[i].row, h, b, rows[i].hist, rows[i].bucket);
	}
	{
		size_t hint = 0, h = 0, n = 0;
		unsigned b;

		for (size_t row = 0; row < TOTAL; row++, n++)
			if ((h = log2hist_row_at(first, NHIST, TOTAL, row, &hint, &b)) >= NHIST ||
			    first[h] + b != row)
				break;
		ok(n == TOTAL, "a walk with the hint: every row where it lies (%zu of %d)", n,
		   TOTAL);
	}
}

int main(void)
{
	struct log2hist h;

	log2hist_init(&h, 65);
	is_u64(log2hist_bucket_of(&h, 0), 0, "0 is in bucket 0");
	is_u64(log2hist_bucket_of(&h, 1), 0, "1 is in bucket 0");
	is_u64(log2hist_bucket_of(&h, 2), 1, "2 starts bucket 1");
	is_u64(log2hist_bucket_of(&h, 3), 1, "3 ends bucket 1");
	is_u64(log2hist_bucket_of(&h, 1023), 9, "1023 ends bucket 9");
	is_u64(log2hist_bucket_of(&h, 1024), 10, "1024 starts bucket 10");
	is_u64(log2hist_bucket_of(&h, UINT64_MAX), 63, "2^64-1 in bucket 63 of 65");
	is_u64(log2hist_low(&h, 10), 1024, "low edge of bucket 10");
	is_u64(log2hist_high(&h, 10), 2047, "high edge of bucket 10");

	log2hist_init(&h, 11);
	is_u64(log2hist_bucket_of(&h, 1024), 10, "with 11 buckets, 1024 is the overflow bucket");
	is_u64(log2hist_bucket_of(&h, 1u << 30), 10, "and so is 2^30");
	is_u64(log2hist_high(&h, 10), UINT64_MAX, "the overflow bucket has no upper edge");

	log2hist_init(&h, 11);
	is_u64(log2hist_percentile(&h, 500), 0, "an empty distribution's p50 is 0");
	for (uint64_t v = 1; v <= 1000; v++)
		log2hist_add(&h, v);
	is_u64(h.count, 1000, "count");
	is_u64(h.sum, 500500, "sum");
	is_u64(h.bucket[9], 489, "512..1000 fall in bucket 9");
	/* rank 500 is value 500: bucket 8 [256, 511] holds 256..500 (k = 244 of 256) */
	is_u64(log2hist_percentile(&h, 500), 256 + 255 * 244 / 256, "p50 interpolated in [256, 511]");
	ok(log2hist_percentile(&h, 900) >= 512 && log2hist_percentile(&h, 900) <= 1023,
	   "p90 lies in [512, 1023]");
	ok(log2hist_percentile(&h, 990) >= log2hist_percentile(&h, 900), "p99 >= p90");

	log2hist_init(&h, 5);
	for (int i = 0; i < 99; i++)
		log2hist_add(&h, 5);
	log2hist_add(&h, 1000000);
	/* rank 99 is the last of 99 values in [4, 7]: 4 + 3 * 98 / 99 */
	is_u64(log2hist_percentile(&h, 990), 6, "p99 of 99 fives and one outlier stays in [4, 7]");
	is_u64(log2hist_percentile(&h, 1000), 16, "p100 is the overflow bucket's low edge");
	log2hist_add(&h, UINT64_MAX);
	is_u64(h.sum, 99 * 5 + 1000000 - 1, "the sum wraps like a Counter64");
	test_rows();
	return done_testing();
}
