/* parse.h - small strict number scanners shared by the /proc parsers. */
#ifndef CLUSTERMON_PARSE_H
#define CLUSTERMON_PARSE_H

#include <stdbool.h>
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

#endif
