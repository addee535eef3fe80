/* SPDX-License-Identifier: BSD-2-Clause */
/* parse.c - strict scanners: a number cut short or overflowing is an error. */
#include "parse.h"
#include "common/number.h"

#include <errno.h>
#include <string.h>

const char *skip_blanks(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

bool scan_u64(const char **p, uint64_t *out)
{
	const char *s;
	uint64_t v;

	if (num_scan_u64(skip_blanks(*p), &s, &v) != NUM_OK)
		return false;
	/* A number must end at a separator, not inside a word. */
	if (*s != ' ' && *s != '\t' && *s != '\n' && *s != '\0' && *s != '.')
		return false;
	*out = v;
	*p = s;
	return true;
}

const char *next_line(const char *p)
{
	const char *nl = strchr(p, '\n');

	return nl != NULL && nl[1] != '\0' ? nl + 1 : NULL;
}

bool line_is(const char *p, const char *word)
{
	size_t n;

	/* Most lines differ in the first byte: skip strlen and strncmp there. */
	if (p[0] != word[0])
		return false;
	n = strlen(word);
	return strncmp(p, word, n) == 0 && (p[n] == ' ' || p[n] == '\t' || p[n] == ':');
}

/* Index of the field that names this line, or -1. */
static int field_of_line(const char *p, const struct keyed_field *f, unsigned n, bool colon)
{
	for (unsigned i = 0; i < n; i++) {
		size_t len;

		if (!colon) {
			if (line_is(p, f[i].name))
				return (int)i;
			continue;
		}
		/* Most lines differ in the first byte: skip strlen there. */
		if (p[0] != f[i].name[0])
			continue;
		len = strlen(f[i].name);
		if (strncmp(p, f[i].name, len) == 0 && p[len] == ':')
			return (int)i;
	}
	return -1;
}

/* " 1234[ unit]" up to the newline. */
static bool scan_value(const char *p, const char *unit, uint64_t *out)
{
	if (!scan_u64(&p, out))
		return false;
	p = skip_blanks(p);
	if (unit != NULL && strncmp(p, unit, strlen(unit)) == 0)
		p = skip_blanks(p + strlen(unit));
	return *p == '\n';
}

static int refuse(void *out, size_t size)
{
	memset(out, 0, size);
	errno = EINVAL;
	return -1;
}

int parse_keyed(const char *buf, const struct keyed_field *fields, unsigned n,
		const struct keyed_format *fmt, void *out, size_t size, unsigned *seen)
{
	const char *p, *nl;

	*seen = 0;
	memset(out, 0, size);
	for (p = buf; *p != '\0'; p = nl + 1) {
		int i;

		nl = strchr(p, '\n');
		if (nl == NULL)
			return refuse(out, size);
		i = field_of_line(p, fields, n, fmt->colon);
		if (i < 0)
			continue;
		if ((*seen & 1u << i) ||
		    !scan_value(p + strlen(fields[i].name) + fmt->colon, fmt->unit,
				(uint64_t *)((char *)out + fields[i].offset)))
			return refuse(out, size);
		*seen |= 1u << i;
	}
	return (*seen & fmt->required) == fmt->required ? 0 : refuse(out, size);
}
