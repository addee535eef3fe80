/*
 * pressure.c - /proc/pressure/{cpu,memory,io}:
 *   some avg10=1.23 avg60=0.00 avg300=0.00 total=12345
 * Averages are percentages with two decimals; we keep hundredths.
 */
#include "collect.h"
#include "parse.h"

#include <errno.h>
#include <string.h>

/* "12.34" -> 1234; at most two decimals, at most 100.00. */
static bool scan_hundredths(const char **p, uint32_t *out)
{
	uint64_t whole, frac = 0;
	const char *s = *p;

	if (!scan_u64(&s, &whole) || whole > 100)
		return false;
	if (*s == '.') {
		s++;
		if (s[0] < '0' || s[0] > '9' || s[1] < '0' || s[1] > '9')
			return false;
		frac = (uint64_t)(s[0] - '0') * 10 + (uint64_t)(s[1] - '0');
		s += 2;
	}
	if (whole * 100 + frac > 10000)
		return false;
	*out = (uint32_t)(whole * 100 + frac);
	*p = s;
	return true;
}

static bool scan_field(const char **p, const char *name, bool hundredths, void *out)
{
	const char *s = skip_blanks(*p);
	size_t n = strlen(name);

	if (strncmp(s, name, n) != 0 || s[n] != '=')
		return false;
	s += n + 1;
	if (hundredths ? !scan_hundredths(&s, out) : !scan_u64(&s, out))
		return false;
	*p = s;
	return true;
}

static bool scan_line(const char *p, struct pressure_line *l)
{
	return scan_field(&p, "avg10", true, &l->avg10) &&
	       scan_field(&p, "avg60", true, &l->avg60) &&
	       scan_field(&p, "avg300", true, &l->avg300) &&
	       scan_field(&p, "total", false, &l->total_us) &&
	       (*skip_blanks(p) == '\n');
}

int pressure_parse(const char *buf, struct pressure *out)
{
	memset(out, 0, sizeof(*out));
	for (const char *p = buf; p != NULL && *p != '\0'; p = next_line(p)) {
		if (strchr(p, '\n') == NULL)
			break;
		if (line_is(p, "some") && scan_line(p + 4, &out->some))
			out->have_some = 1;
		else if (line_is(p, "full") && scan_line(p + 4, &out->full))
			out->have_full = 1;
	}
	if (!out->have_some && !out->have_full) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}
