/* SPDX-License-Identifier: BSD-2-Clause */
/* number.c - strict decimal parsing with a reason for every refusal. */
#include "number.h"

#include <stddef.h>

enum num_status num_scan_u64(const char *s, const char **end, uint64_t *out)
{
	uint64_t v = 0;

	if (s == NULL || *s == '\0')
		return NUM_EMPTY;
	if (*s < '0' || *s > '9')
		return NUM_GARBAGE;
	for (; *s >= '0' && *s <= '9'; s++) {
		unsigned d = (unsigned)(*s - '0');

		if (v > (UINT64_MAX - d) / 10)
			return NUM_OVERFLOW;
		v = v * 10 + d;
	}
	if (end != NULL)
		*end = s;
	*out = v;
	return NUM_OK;
}

enum num_status num_parse_u64(const char *s, uint64_t max, uint64_t *out)
{
	const char *end;
	uint64_t v;
	enum num_status st = num_scan_u64(s, &end, &v);

	if (st != NUM_OK)
		return st;
	if (*end != '\0')
		return NUM_TRAILING;
	if (v > max)
		return NUM_OVERFLOW;
	*out = v;
	return NUM_OK;
}

enum num_status num_parse_u32(const char *s, uint32_t max, uint32_t *out)
{
	uint64_t v;
	enum num_status st = num_parse_u64(s, max, &v);

	if (st == NUM_OK)
		*out = (uint32_t)v;
	return st;
}

const char *num_status_str(enum num_status st)
{
	switch (st) {
	case NUM_OK:
		return "a number";
	case NUM_EMPTY:
		return "empty";
	case NUM_GARBAGE:
		return "not a number";
	case NUM_OVERFLOW:
		return "too large";
	default:
		return "junk after the number";
	}
}
