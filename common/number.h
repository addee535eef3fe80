/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * number.h - the one strict decimal parser: configuration words, saved rows,
 * kernel files, the helper's requests and replies all read numbers through
 * it. No blanks, no base prefixes, no '+'; a '-' only where num_parse_i64
 * allows it; a number out of range is refused, never wrapped or clamped.
 */
#ifndef CLUSTERMON_NUMBER_H
#define CLUSTERMON_NUMBER_H

#include <stdint.h>

/* Why a word is not a number, so a config error can say which. */
enum num_status {
	NUM_OK,
	NUM_EMPTY,      /* nothing there */
	NUM_GARBAGE,    /* does not start with a digit */
	NUM_OVERFLOW,   /* more than the maximum (or than 64 bits) */
	NUM_TRAILING,   /* digits followed by something else */
	NUM_UNDERFLOW,  /* less than the minimum (num_parse_i64) */
};

/* Digits at s; *end (may be NULL) gets the first byte after them. Never
 * NUM_TRAILING: what follows is the caller's business. */
enum num_status num_scan_u64(const char *s, const char **end, uint64_t *out);
/* The whole of s is one number no larger than max. */
enum num_status num_parse_u64(const char *s, uint64_t max, uint64_t *out);
/* The same into 32 bits (max <= UINT32_MAX). */
enum num_status num_parse_u32(const char *s, uint32_t max, uint32_t *out);
/* The whole of s is one number in min..max, with an optional leading '-'
 * (saved rows write -1 for "every process", "every CPU"). */
enum num_status num_parse_i64(const char *s, int64_t min, int64_t max, int64_t *out);
/* The same for the word at *s, which ends at a blank or the end of the
 * string (saved rows are words on a line); on success *s moves past it and
 * the blanks after it, else *s and *out stay. */
enum num_status num_take_i64(const char **s, int64_t min, int64_t max, int64_t *out);
/* "empty", "not a number", "too large", "junk after the number", "too small". */
const char *num_status_str(enum num_status st);

#endif
