/* SPDX-License-Identifier: BSD-2-Clause */
/* grow.c - see grow.h. */
#include "grow.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

bool cm_grow(void *v, size_t *cap, size_t n, size_t elem, size_t first)
{
	void *grown, *old;
	size_t want;

	if (n < *cap)
		return true;
	want = *cap ? *cap * 2 : first;
	if (want < *cap || want > SIZE_MAX / elem)
		return false;
	memcpy(&old, v, sizeof(old));
	if ((grown = realloc(old, want * elem)) == NULL)
		return false;
	memcpy(v, &grown, sizeof(grown));
	*cap = want;
	return true;
}
