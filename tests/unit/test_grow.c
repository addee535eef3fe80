/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_grow.c - core/grow.c: room for one more element, doubling from the
 * first size; what was stored survives each move; a size that cannot be
 * represented is refused with the array untouched.
 */
#include <stdint.h>
#include <stdlib.h>

#include "core/grow.h"
#include "tap.h"

int main(void)
{
	uint32_t *v = NULL;
	size_t cap = 0, n = 0, caps[4] = { 0 }, k = 0;
	int kept = 1;

	plan(5);
	for (uint32_t i = 0; i < 20; i++) {
		size_t was = cap;

		if (!cm_grow(&v, &cap, n, sizeof(*v), 4))
			break;
		if (cap != was && k < 4)
			caps[k++] = cap;
		v[n++] = i;
	}
	for (size_t i = 0; i < n; i++)
		kept &= v[i] == i;
	ok(n == 20, "twenty elements stored (%zu)", n);
	ok(caps[0] == 4 && caps[1] == 8 && caps[2] == 16 && caps[3] == 32,
	   "the capacity went 4, 8, 16, 32 (%zu %zu %zu %zu)", caps[0], caps[1], caps[2], caps[3]);
	ok(kept, "every element kept its value through the moves");
	ok(cm_grow(&v, &cap, 5, sizeof(*v), 4) && cap == 32, "room already there: nothing moves");
	{
		uint32_t *before = v;
		size_t c = cap;

		ok(!cm_grow(&v, &c, c, SIZE_MAX / 16, 4) && v == before && c == cap,
		   "a size past SIZE_MAX is refused, the array untouched");
	}
	free(v);
	return done_testing();
}
