/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * number.h - the one strict decimal parser: configuration words, saved rows,
 * kernel files and the helper's replies all read numbers through it. No sign,
 * no blanks, no base prefixes; a number too large is refused, never wrapped.
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
};

/* Digits at s; *end (may be NULL) gets the first byte after them. Never
 * NUM_TRAILING: what follows is the caller's business. */
enum num_status num_scan_u64(const char *s, const char **end, uint64_t *out);
/* The whole of s is one number no larger than max. */
enum num_status num_parse_u64(const char *s, uint64_t max, uint64_t *out);
/* The same into 32 bits (max <= UINT32_MAX). */
enum num_status num_parse_u32(const char *s, uint32_t max, uint32_t *out);
/* "empty", "not a number", "too large", "junk after the number". */
const char *num_status_str(enum num_status st);

#endif
