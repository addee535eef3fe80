/* parse.c - strict scanners: a number cut short or overflowing is an error. */
#include "parse.h"
#include "core/number.h"

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
