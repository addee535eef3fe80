/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pressure.c - /proc/pressure/{cpu,memory,io}:
 *   some avg10=1.23 avg60=0.00 avg300=0.00 total=12345
 *   full avg10=0.00 avg60=0.00 avg300=0.00 total=0
 * Averages are percentages with two decimals; we keep hundredths.
 *
 * The "full" line is absent for cpu before Linux 5.13, so either line may be
 * missing, but a "some" or "full" line that is there must parse: a
 * malformed one, a repeated one, an average above 100.00 (the kernel clamps
 * samples to the period, so it never prints one) or a buffer cut off before
 * its last newline refuses the whole file (EINVAL), as in the other parsers.
 */
#include "collect.h"
#include "parse.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* A number ends at a blank or the newline, not inside a word. */
static bool ends_field(char c)
{
	return c == ' ' || c == '\t' || c == '\n';
}

/* "12.34" -> 1234; "12" -> 1200; exactly two decimals; at most 100.00. */
static bool scan_hundredths(const char **p, uint32_t *out)
{
	const char *s = *p;
	uint64_t whole, frac = 0;

	if (!scan_u64(&s, &whole) || whole > 100)
		return false;
	if (*s == '.') {
		if (!is_digit(s[1]) || !is_digit(s[2]))
			return false;
		frac = (uint64_t)(s[1] - '0') * 10 + (uint64_t)(s[2] - '0');
		s += 3;
	}
	if (!ends_field(*s) || whole * 100 + frac > 10000)
		return false;
	*out = (uint32_t)(whole * 100 + frac);
	*p = s;
	return true;
}

/* " name=" and a digit right after the '='; *p moves to the digit. */
static bool scan_name(const char **p, const char *name)
{
	const char *s = skip_blanks(*p);
	size_t n = strlen(name);

	if (s == *p || strncmp(s, name, n) != 0 || s[n] != '=' || !is_digit(s[n + 1]))
		return false;
	*p = s + n + 1;
	return true;
}

static bool scan_avg(const char **p, const char *name, uint32_t *out)
{
	return scan_name(p, name) && scan_hundredths(p, out);
}

static bool scan_total(const char **p, uint64_t *out)
{
	return scan_name(p, "total") && scan_u64(p, out) && ends_field(**p);
}

/* What follows "some" or "full", up to the newline. */
static bool scan_line(const char *p, struct pressure_line *l)
{
	return scan_avg(&p, "avg10", &l->avg10) &&
	       scan_avg(&p, "avg60", &l->avg60) &&
	       scan_avg(&p, "avg300", &l->avg300) &&
	       scan_total(&p, &l->total_us) &&
	       *skip_blanks(p) == '\n';
}

/* Fails with EINVAL and leaves nothing a careless caller could serve. */
static int refuse(struct pressure *out)
{
	memset(out, 0, sizeof(*out));
	errno = EINVAL;
	return -1;
}

/* One line: 0 if it is ours and parses or is not ours, -1 otherwise. */
static int parse_line(const char *p, struct pressure *out)
{
	if (line_is(p, "some")) {
		if (out->have_some || !scan_line(p + 4, &out->some))
			return -1;
		out->have_some = 1;
	} else if (line_is(p, "full")) {
		if (out->have_full || !scan_line(p + 4, &out->full))
			return -1;
		out->have_full = 1;
	}
	return 0;
}

int pressure_parse(const char *buf, struct pressure *out)
{
	const char *p, *nl;

	memset(out, 0, sizeof(*out));
	for (p = buf; *p != '\0'; p = nl + 1) {
		nl = strchr(p, '\n');
		if (nl == NULL || parse_line(p, out) != 0)
			return refuse(out); /* cut off or malformed: see the top */
	}
	return out->have_some || out->have_full ? 0 : refuse(out);
}
