/* SPDX-License-Identifier: BSD-2-Clause */
/* distlist.c - parse the helper's "dists" reply (distlist.h). */
#include "distlist.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/number.h"

/* " N" at *s: one blank, then digits. */
static int take(const char **s, uint64_t max, uint64_t *v)
{
	if (**s != ' ' || num_scan_u64(*s + 1, s, v) != NUM_OK || *v > max)
		return -1;
	return 0;
}

static int parse_line(const char *s, struct distlist_entry *e)
{
	uint64_t id, sum;

	if (strncmp(s, "dist", 4) != 0)
		return -1;
	s += 4;
	if (take(&s, 65535, &id) != 0 || id == 0 || take(&s, UINT64_MAX, &e->hits) != 0 ||
	    take(&s, UINT64_MAX, &e->sampled) != 0 || take(&s, UINT64_MAX, &e->misses) != 0 ||
	    take(&s, UINT64_MAX, &sum) != 0)
		return -1;
	e->id = (uint32_t)id;
	log2hist_init(&e->hist, DISTLIST_SLOTS);
	e->hist.sum = sum;
	for (unsigned i = 0; i < DISTLIST_SLOTS; i++) {
		if (take(&s, UINT64_MAX, &e->hist.bucket[i]) != 0)
			return -1;
		e->hist.count += e->hist.bucket[i];
	}
	return *s == '\n' ? 0 : -1;
}

int distlist_parse(const char *reply, struct distlist_entry **out, size_t *n, char *why,
		   size_t whylen)
{
	const char *line, *end;
	uint64_t count;

	*out = NULL;
	*n = 0;
	if (strncmp(reply, "ok ", 3) != 0 || num_scan_u64(reply + 3, &end, &count) != NUM_OK ||
	    *end != '\n' || count > DISTLIST_MAX) {
		snprintf(why, whylen, "not a dists reply");
		return -1;
	}
	if ((*out = calloc(count ? count : 1, sizeof(**out))) == NULL) {
		snprintf(why, whylen, "out of memory");
		return -1;
	}
	line = end + 1;
	for (; *n < count; (*n)++) {
		if (parse_line(line, &(*out)[*n]) != 0) {
			snprintf(why, whylen, "malformed or cut short at dist line %zu", *n + 1);
			free(*out);
			*out = NULL;
			*n = 0;
			return -1;
		}
		line = strchr(line, '\n') + 1;
	}
	return 0;
}
