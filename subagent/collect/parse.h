/* SPDX-License-Identifier: BSD-2-Clause */
/* parse.h - small strict number scanners shared by the /proc parsers. */
#ifndef CLUSTERMON_PARSE_H
#define CLUSTERMON_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Skips blanks (not newlines). */
const char *skip_blanks(const char *p);
/* Parses a decimal u64 at *p (no sign); advances *p. Fails on no digits and
 * on overflow, which must be refused rather than wrapped. */
bool scan_u64(const char **p, uint64_t *out);
/* The start of the next line, or NULL at the end of the buffer. */
const char *next_line(const char *p);
/* True when the line at p starts with word followed by a blank or ':'. */
bool line_is(const char *p, const char *word);

/*
 * Files of "name value" lines (/proc/meminfo, /proc/vmstat): the fields a
 * caller serves, each a uint64_t at an offset in its struct. Lines of other
 * names are skipped unparsed, so new kernel fields never break us.
 */
struct keyed_field {
	const char *name;
	size_t offset;
};
struct keyed_format {
	bool colon;        /* "Name:" (meminfo); else the name ends at a blank */
	const char *unit;  /* may follow the number ("kB"), or NULL */
	unsigned required; /* bit i: fields[i] must be there */
};
/*
 * Fills out (size bytes, zeroed first) from buf; *seen gets bit i for
 * fields[i] found. Refuses with -1 and EINVAL, out zeroed, a buffer whose
 * last line has no newline (it was cut off), a field given twice, a value
 * that is not one 64-bit number followed only by the unit, or a required
 * field missing.
 */
int parse_keyed(const char *buf, const struct keyed_field *fields, unsigned n,
		const struct keyed_format *fmt, void *out, size_t size, unsigned *seen);

#endif
