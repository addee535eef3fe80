/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_lowerbound.c - core/lowerbound.h: a table of ranges, keys and the
 * place each must come out at, as lower and as upper bound (duplicates,
 * empty and inverted ranges, a sub-range, keys before, between and after
 * every element); then every key against a linear scan over every sub-range
 * of a small array; then cm_lower_bound_u32 on a field of a struct.
 */
#include <stddef.h>
#include <stdint.h>

#include "core/lowerbound.h"
#include "tap.h"

struct key {
	const int *v;
	int key;
};

static bool before(const void *ctx, size_t i)
{
	const struct key *k = ctx;

	return k->v[i] < k->key;
}

static bool at_or_before(const void *ctx, size_t i)
{
	const struct key *k = ctx;

	return k->v[i] <= k->key;
}

/* No array: the place itself is the key, for ranges no array could fill. */
static bool index_below(const void *ctx, size_t i)
{
	return i < *(const size_t *)ctx;
}

static const int v[] = { 1, 3, 3, 3, 7, 9, 9, 12 };
#define N (sizeof(v) / sizeof(v[0]))

static const struct {
	size_t lo, hi;
	int key;
	size_t lower, upper;
	const char *what;
} cases[] = {
	{ 0, N, 0, 0, 0, "a key before every element" },
	{ 0, N, 1, 0, 1, "the first element" },
	{ 0, N, 3, 1, 4, "a run of duplicates: its first, and past its last" },
	{ 0, N, 5, 4, 4, "a key between two elements" },
	{ 0, N, 9, 5, 7, "duplicates at the end of the middle" },
	{ 0, N, 12, 7, 8, "the last element" },
	{ 0, N, 99, 8, 8, "a key after every element: hi" },
	{ 0, 0, 3, 0, 0, "an empty range: lo" },
	{ 5, 2, 3, 5, 5, "an inverted range: lo, nothing read" },
	{ 2, 6, 3, 2, 4, "a sub-range starting inside duplicates" },
	{ 2, 6, 1, 2, 2, "a sub-range, a key before it: lo" },
	{ 2, 6, 10, 6, 6, "a sub-range, a key after it: hi" },
	{ 1, 1, 3, 1, 1, "an empty sub-range" },
	{ 0, 1, 1, 0, 1, "one element, equal" },
};

/* Every key from below the first to above the last, every sub-range,
 * against the definition read element by element. */
static bool matches_linear_scan(void)
{
	for (int key = -1; key <= 13; key++)
		for (size_t lo = 0; lo <= N; lo++)
			for (size_t hi = lo; hi <= N; hi++) {
				struct key k = { v, key };
				size_t lower = lo, upper = lo;

				while (lower < hi && v[lower] < key)
					lower++;
				while (upper < hi && v[upper] <= key)
					upper++;
				if (cm_lower_bound(lo, hi, before, &k) != lower ||
				    cm_lower_bound(lo, hi, at_or_before, &k) != upper)
					return false;
			}
	return true;
}

/* cm_lower_bound_u32: a field after another, in elements of 12 bytes. */
struct elem {
	uint32_t other;
	uint32_t key;
	uint32_t pad;
};

static const struct elem ev[] = { { 9, 2, 0 }, { 0, 5, 0 }, { 7, 5, 0 }, { 1, 40, 0 } };

static const struct {
	size_t lo, hi;
	uint32_t key;
	size_t want;
} fields[] = {
	{ 0, 4, 0, 0 }, { 0, 4, 2, 0 }, { 0, 4, 3, 1 }, { 0, 4, 5, 1 },
	{ 0, 4, 6, 3 }, { 0, 4, 40, 3 }, { 0, 4, 41, 4 }, { 2, 4, 5, 2 },
	{ 2, 3, 41, 3 }, { 0, 0, 5, 0 },
};

static bool fields_found(void)
{
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		if (cm_lower_bound_u32(ev, sizeof(ev[0]), offsetof(struct elem, key), fields[i].lo,
				       fields[i].hi, fields[i].key) != fields[i].want) {
			diag("[%zu, %zu) key %u: not at %zu", fields[i].lo, fields[i].hi,
			     fields[i].key, fields[i].want);
			return false;
		}
	/* An empty array may be NULL: nothing is read, no offset taken. */
	return cm_lower_bound_u32(NULL, sizeof(ev[0]), offsetof(struct elem, key), 0, 0, 5) == 0;
}

int main(void)
{
	size_t ncases = sizeof(cases) / sizeof(cases[0]);

	plan((int)ncases + 3);
	for (size_t i = 0; i < ncases; i++) {
		struct key k = { v, cases[i].key };
		size_t lower = cm_lower_bound(cases[i].lo, cases[i].hi, before, &k);
		size_t upper = cm_lower_bound(cases[i].lo, cases[i].hi, at_or_before, &k);

		ok(lower == cases[i].lower && upper == cases[i].upper,
		   "%s: [%zu, %zu) key %d: lower %zu (want %zu), upper %zu (want %zu)", cases[i].what,
		   cases[i].lo, cases[i].hi, cases[i].key, lower, cases[i].lower, upper, cases[i].upper);
	}
	{
		/* (lo + hi) / 2 would wrap here and search the wrong half. */
		size_t first_not = SIZE_MAX - 4;

		ok(cm_lower_bound(SIZE_MAX - 8, SIZE_MAX, index_below, &first_not) == first_not,
		   "a range ending at SIZE_MAX: the middle does not overflow");
	}
	ok(matches_linear_scan(), "every key, every sub-range: as a linear scan finds them");
	ok(fields_found(), "cm_lower_bound_u32: a table of keys and ranges over a field after another, and an empty NULL array");
	return done_testing();
}
