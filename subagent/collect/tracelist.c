/* SPDX-License-Identifier: BSD-2-Clause */
/* tracelist.c - parse the helper's list of trace sessions (tracelist.h). */
#include "tracelist.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/number.h"

static const char *const states[] = { "running", "finished", "failed" };

/* Copies the word at *s (up to a space or the line's end) into out. */
static int take_word(const char **s, char *out, size_t max)
{
	size_t n = strcspn(*s, " \n");

	if (n == 0 || n > max)
		return -1;
	memcpy(out, *s, n);
	out[n] = '\0';
	*s += n;
	if (**s == ' ')
		(*s)++;
	return 0;
}

static int take_u64(const char **s, uint64_t *v)
{
	char word[24];

	if (take_word(s, word, 20) != 0)
		return -1;
	return num_parse_u64(word, UINT64_MAX, v) == NUM_OK ? 0 : -1;
}

static int parse_line(const char *s, struct tracelist_entry *e)
{
	char word[16];
	uint64_t id;
	size_t n;
	int st;

	if (strncmp(s, "trace ", 6) != 0)
		return -1;
	s += 6;
	if (take_u64(&s, &id) != 0 || id < 1 || id > 65535 || take_word(&s, word, 15) != 0)
		return -1;
	e->id = (uint32_t)id;
	for (st = 0; st < 3 && strcmp(word, states[st]) != 0; st++)
		;
	if (st == 3 || take_u64(&s, &e->records) != 0 || take_u64(&s, &e->lost) != 0 ||
	    take_u64(&s, &e->bytes) != 0 || take_u64(&s, &e->elapsed_ms) != 0 ||
	    take_word(&s, e->dir, TRACELIST_DIR_MAX) != 0)
		return -1;
	e->state = (enum tracelist_state)st;
	n = strcspn(s, "\n");
	if (n == 0 || n > TRACELIST_REASON_MAX)
		return -1;
	memcpy(e->reason, s, n);
	e->reason[n] = '\0';
	if (strcmp(e->reason, "-") == 0)
		e->reason[0] = '\0';
	for (char *p = e->reason; *p; p++)
		if ((unsigned char)*p < 0x20 || (unsigned char)*p > 0x7e)
			*p = '?';
	return 0;
}

int tracelist_parse(const char *reply, struct tracelist_entry **out, size_t *n, char *why,
		    size_t whylen)
{
	uint64_t count;
	const char *line, *end;

	*out = NULL;
	*n = 0;
	if (strncmp(reply, "ok ", 3) != 0 || reply[3] < '0' || reply[3] > '9') {
		snprintf(why, whylen, "not a traces reply");
		return -1;
	}
	if (num_scan_u64(reply + 3, &end, &count) != NUM_OK || *end != '\n' ||
	    count > TRACELIST_MAX) {
		snprintf(why, whylen, "malformed count");
		return -1;
	}
	*out = calloc(count ? count : 1, sizeof(**out));
	if (*out == NULL) {
		snprintf(why, whylen, "out of memory");
		return -1;
	}
	line = end + 1;
	for (; *n < count; (*n)++) {
		if (*line == '\0' || strchr(line, '\n') == NULL || parse_line(line, &(*out)[*n]) != 0) {
			snprintf(why, whylen, "malformed or cut short at trace line %zu", *n + 1);
			free(*out);
			*out = NULL;
			*n = 0;
			return -1;
		}
		line = strchr(line, '\n') + 1;
	}
	return 0;
}
