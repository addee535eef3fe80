/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ctlutil.c - the helpers every command file of clustermonctl uses (ctl.h).
 * Apart from clustermonctl.c, which dispatches to the commands, so that no
 * two files call each other (tests/source/circles.sh).
 */
#include "ctl.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/number.h"

void die(int code, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "clustermonctl: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(code);
}

bool ctl_number(const char *text, long lo, long hi, long *out)
{
	int64_t v;

	if (text == NULL || num_parse_i64(text, lo, hi, &v) != NUM_OK)
		return false;
	*out = (long)v;
	return true;
}

const char *u64_text(uint64_t v)
{
	static char buf[4][24];
	static int next;

	next = (next + 1) % 4;
	snprintf(buf[next], sizeof(buf[next]), "%llu", (unsigned long long)v);
	return buf[next];
}

void *ctl_append(void **rows, size_t *n, size_t *cap, size_t size)
{
	char *slot;

	if (*n == *cap) {
		size_t grown_cap = *cap ? *cap * 2 : 64;
		void *grown = realloc(*rows, grown_cap * size);

		if (grown == NULL)
			die(EXIT_DOWN, "out of memory");
		*rows = grown;
		*cap = grown_cap;
	}
	slot = (char *)*rows + (*n)++ * size;
	memset(slot, 0, size);
	return slot;
}
