/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * lowerbound.h - the one binary search: the first place in a sorted range
 * where a test stops holding. Every sorted table of the agent (the process
 * table's chunks and rows, socket owners, rankings, cgroups, rows of the
 * MIB's tables, the image's entries) finds its place through it, so the
 * off-by-ones live in one function with one table-driven test
 * (tests/unit/test_lowerbound.c).
 *
 * Inline, not in a .c file: the image reader (image/image.c) is compiled
 * into clustermon.so as well, and with the test a constant function at each
 * call the compiler inlines it there, so the hot lookups (a process by pid,
 * an entry by OID) pay no call per step.
 */
#ifndef CLUSTERMON_CORE_LOWERBOUND_H
#define CLUSTERMON_CORE_LOWERBOUND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/*
 * The first i in [lo, hi) for which below(ctx, i) is false; hi when it
 * holds for all of them (lo when lo >= hi). below must hold for a prefix of
 * the range and not after it: "the element at i sorts before the key" gives
 * the first element not before it (C++'s lower_bound), "... at or before
 * the key" the first one after it (upper_bound), so the last one at or
 * before it is that minus one.
 */
static inline size_t cm_lower_bound(size_t lo, size_t hi, bool (*below)(const void *ctx, size_t i),
				    const void *ctx)
{
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (below(ctx, mid))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

struct cm_u32_field {
	const unsigned char *v;
	size_t size, off;
	uint32_t key;
};

static inline bool cm_u32_field_below(const void *ctx, size_t i)
{
	const struct cm_u32_field *f = ctx;
	uint32_t x;

	memcpy(&x, f->v + i * f->size + f->off, sizeof(x)); /* any element type's field */
	return x < f->key;
}

/* The common case: in v[lo, hi), elements of size bytes sorted by the
 * uint32_t at byte off of each, the first whose field is not below key. */
static inline size_t cm_lower_bound_u32(const void *v, size_t size, size_t off, size_t lo,
					size_t hi, uint32_t key)
{
	/* v may be NULL when the range is empty: no offset is added to it here */
	struct cm_u32_field f = { v, size, off, key };

	return cm_lower_bound(lo, hi, cm_u32_field_below, &f);
}

#endif
