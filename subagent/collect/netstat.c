/* SPDX-License-Identifier: BSD-2-Clause */
/* netstat.c - name/value line pairs of /proc/net/snmp and /proc/net/netstat. */
#include "netstat.h"

#include <errno.h>
#include <string.h>

#include "parse.h"

/* The first line of buf starting with "prefix:" at or after p, or NULL. */
static const char *find_line(const char *p, const char *prefix)
{
	size_t n = strlen(prefix);

	for (; p != NULL; p = next_line(p))
		if (strncmp(p, prefix, n) == 0 && p[n] == ':')
			return p;
	return NULL;
}

/* Copies the next blank-separated word of a line into w; false at its end. */
static bool next_word(const char **p, char *w, size_t cap)
{
	size_t n = 0;

	*p = skip_blanks(*p);
	if (**p == '\n' || **p == '\0')
		return false;
	while (**p != ' ' && **p != '\t' && **p != '\n' && **p != '\0') {
		if (n + 1 < cap)
			w[n++] = **p;
		(*p)++;
	}
	w[n] = '\0';
	return true;
}

static int key_index(const char *name, const char *const *keys, size_t nkeys)
{
	for (size_t i = 0; i < nkeys; i++)
		if (strcmp(name, keys[i]) == 0)
			return (int)i;
	return -1;
}

int netstat_parse(const char *buf, const char *prefix, const char *const *keys, size_t nkeys,
		  uint64_t *out, uint32_t *found)
{
	const char *names = find_line(buf, prefix);
	const char *values = names ? find_line(next_line(names), prefix) : NULL;
	size_t skip = strlen(prefix) + 1;
	char name[64], value[32];
	uint64_t got[32];
	uint32_t have = 0;

	*found = 0;
	if (nkeys > 32 || values == NULL || strchr(values, '\n') == NULL) {
		errno = EINVAL;
		return -1;
	}
	names += skip;
	values += skip;
	while (next_word(&names, name, sizeof(name))) {
		const char *v = value;
		uint64_t n;
		int k;

		if (!next_word(&values, value, sizeof(value))) {
			errno = EINVAL; /* fewer values than names: a cut line */
			return -1;
		}
		k = key_index(name, keys, nkeys);
		if (k >= 0 && scan_u64(&v, &n) && *v == '\0') {
			got[k] = n;
			have |= 1u << k;
		}
	}
	if (next_word(&values, value, sizeof(value))) {
		errno = EINVAL;
		return -1;
	}
	/* All or nothing: a refused table writes no value. */
	for (size_t k = 0; k < nkeys; k++)
		if (have & (1u << k))
			out[k] = got[k];
	*found = have;
	return 0;
}
