/* SPDX-License-Identifier: BSD-2-Clause */
/* number.c - strict decimal parsing with a reason for every refusal. */
#include "number.h"

#include <stdbool.h>
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

/* A '-' and digits, or digits, in min..max; *end after them. */
static enum num_status scan_i64(const char *s, const char **end, int64_t min, int64_t max,
				int64_t *out)
{
	const uint64_t magnitude_min = (uint64_t)INT64_MAX + 1;   /* of INT64_MIN */
	bool neg = s != NULL && *s == '-';
	uint64_t v;
	int64_t x;
	enum num_status st = num_scan_u64(neg ? s + 1 : s, end, &v);

	if (neg && st == NUM_EMPTY)
		return NUM_GARBAGE;
	if (st == NUM_OVERFLOW || (st == NUM_OK && v > (neg ? magnitude_min : INT64_MAX)))
		return neg ? NUM_UNDERFLOW : NUM_OVERFLOW;
	if (st != NUM_OK)
		return st;
	x = !neg ? (int64_t)v : v == magnitude_min ? INT64_MIN : -(int64_t)v;
	if (x < min)
		return NUM_UNDERFLOW;
	if (x > max)
		return NUM_OVERFLOW;
	*out = x;
	return NUM_OK;
}

enum num_status num_parse_i64(const char *s, int64_t min, int64_t max, int64_t *out)
{
	const char *end;
	int64_t x;
	enum num_status st = scan_i64(s, &end, min, max, &x);

	/* Junk after the digits outranks the range, as in num_parse_u64. */
	if (st == NUM_OK && *end != '\0')
		return NUM_TRAILING;
	if (st == NUM_OK)
		*out = x;
	return st;
}

enum num_status num_take_i64(const char **s, int64_t min, int64_t max, int64_t *out)
{
	const char *end;
	int64_t x;
	enum num_status st = scan_i64(*s, &end, min, max, &x);

	if (st == NUM_OK && *end != '\0' && *end != ' ' && *end != '\t')
		return NUM_TRAILING;
	if (st != NUM_OK)
		return st;
	while (*end == ' ' || *end == '\t')
		end++;
	*s = end;
	*out = x;
	return NUM_OK;
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
	case NUM_UNDERFLOW:
		return "too small";
	default:
		return "junk after the number";
	}
}
