/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * vmstat.c - /proc/vmstat: "name value" lines; we take faults and swap.
 *
 * A buffer whose last line has no newline was cut off and is refused whole
 * (EINVAL), as in the other parsers: the swap counters come before the fault
 * counters, so a cut would otherwise serve them from a half-read file. Each
 * of our names may appear once, followed by one number and the newline.
 */
#include "collect.h"
#include "parse.h"

#include <stddef.h>

enum { KEY_PGFAULT, KEY_PGMAJFAULT, KEY_PSWPIN, KEY_PSWPOUT, NKEYS };

#define KEY(name, field) { name, offsetof(struct vmstat, field) }
static const struct keyed_field keys[NKEYS] = {
	[KEY_PGFAULT] = KEY("pgfault", pgfault),
	[KEY_PGMAJFAULT] = KEY("pgmajfault", pgmajfault),
	[KEY_PSWPIN] = KEY("pswpin", pswpin),
	[KEY_PSWPOUT] = KEY("pswpout", pswpout),
};
#undef KEY

int vmstat_parse(const char *buf, struct vmstat *out)
{
	static const struct keyed_format format = {
		.colon = false, .unit = NULL, .required = 1u << KEY_PGFAULT | 1u << KEY_PGMAJFAULT,
	};
	unsigned seen;

	return parse_keyed(buf, keys, NKEYS, &format, out, sizeof(*out), &seen);
}
