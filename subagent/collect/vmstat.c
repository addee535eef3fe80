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

#include <errno.h>
#include <stdbool.h>
#include <string.h>

enum { KEY_PGFAULT, KEY_PGMAJFAULT, KEY_PSWPIN, KEY_PSWPOUT, NKEYS };

static const char *const names[NKEYS] = {
	[KEY_PGFAULT] = "pgfault",
	[KEY_PGMAJFAULT] = "pgmajfault",
	[KEY_PSWPIN] = "pswpin",
	[KEY_PSWPOUT] = "pswpout",
};

static uint64_t *field_of(struct vmstat *out, int key)
{
	switch (key) {
	case KEY_PGFAULT:
		return &out->pgfault;
	case KEY_PGMAJFAULT:
		return &out->pgmajfault;
	case KEY_PSWPIN:
		return &out->pswpin;
	default:
		return &out->pswpout;
	}
}

/* Index of the name this line starts with, or -1. */
static int key_of(const char *line)
{
	for (int i = 0; i < NKEYS; i++)
		if (line_is(line, names[i]))
			return i;
	return -1;
}

/* " 1234" up to the newline. */
static bool scan_value(const char *p, uint64_t *out)
{
	return scan_u64(&p, out) && *skip_blanks(p) == '\n';
}

/* Fails with EINVAL and leaves nothing a careless caller could serve. */
static int refuse(struct vmstat *out)
{
	memset(out, 0, sizeof(*out));
	errno = EINVAL;
	return -1;
}

int vmstat_parse(const char *buf, struct vmstat *out)
{
	const unsigned required = 1u << KEY_PGFAULT | 1u << KEY_PGMAJFAULT;
	unsigned seen = 0;
	const char *p, *nl;

	memset(out, 0, sizeof(*out));
	for (p = buf; *p != '\0'; p = nl + 1) {
		int key;

		nl = strchr(p, '\n');
		if (nl == NULL)
			return refuse(out); /* cut off: see the top */
		key = key_of(p);
		if (key < 0)
			continue;
		if ((seen & 1u << key) ||
		    !scan_value(p + strlen(names[key]), field_of(out, key)))
			return refuse(out);
		seen |= 1u << key;
	}
	return (seen & required) == required ? 0 : refuse(out);
}
