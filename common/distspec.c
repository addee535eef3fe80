/* SPDX-License-Identifier: BSD-2-Clause */
/* distspec.c - parse and print distribution specs and filters (distspec.h). */
#include "distspec.h"

#include <stdio.h>
#include <string.h>

#include "number.h"

#define MAX_WORDS 8

/* Splits text at blanks into at most MAX_WORDS words of buf; the count, or
 * -1 when there are more. */
static int split(const char *text, char *buf, size_t len, char **w)
{
	char *save = NULL, *t;
	int n = 0;

	snprintf(buf, len, "%s", text);
	for (t = strtok_r(buf, " \t", &save); t != NULL; t = strtok_r(NULL, " \t", &save)) {
		if (n == MAX_WORDS)
			return -1;
		w[n++] = t;
	}
	return n;
}

/* An event as the probe table writes it; only tracepoints carry fields. */
static int event(const char *word, const char *what, struct probe_spec *s, char *why,
		 size_t whylen)
{
	char inner[160];

	if (spec_parse(word, s, inner, sizeof(inner)) != 0) {
		snprintf(why, whylen, "%s: %s", what, inner);
		return -1;
	}
	if (s->kind != SPEC_TRACEPOINT) {
		snprintf(why, whylen, "%s must be tracepoint:CATEGORY:NAME", what);
		return -1;
	}
	return 0;
}

static bool field_name(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > DIST_FIELD_MAX || (s[0] >= '0' && s[0] <= '9'))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
			return false;
	return true;
}

/* key F or key F+G */
static int keys(const char *text, struct dist_spec *s, char *why, size_t whylen)
{
	const char *plus = strchr(text, '+');
	size_t n = plus ? (size_t)(plus - text) : strlen(text);

	s->nkeys = 0;
	for (int i = 0; i < DIST_MAX_KEYS && *text; i++) {
		if (n > DIST_FIELD_MAX)
			break;
		memcpy(s->key[i], text, n);
		s->key[i][n] = '\0';
		if (!field_name(s->key[i]))
			break;
		s->nkeys++;
		if (text[n] == '\0')
			return 0;
		text += n + 1;
		plus = strchr(text, '+');
		n = plus ? (size_t)(plus - text) : strlen(text);
	}
	snprintf(why, whylen, "key takes one or two field names joined by '+' (key dev+sector)");
	return -1;
}

static int parse_latency(char **w, int n, struct dist_spec *s, char *why, size_t whylen)
{
	s->kind = DIST_LATENCY;
	if (n != 3 && n != 5) {
		snprintf(why, whylen, "latency START END [key FIELD[+FIELD]]");
		return -1;
	}
	if (event(w[1], "START", &s->start, why, whylen) != 0 ||
	    event(w[2], "END", &s->end, why, whylen) != 0)
		return -1;
	if (n == 3)
		return 0;
	if (strcmp(w[3], "key") != 0) {
		snprintf(why, whylen, "expected 'key' after END, not '%.40s'", w[3]);
		return -1;
	}
	return keys(w[4], s, why, whylen);
}

static int parse_value(char **w, int n, struct dist_spec *s, char *why, size_t whylen)
{
	s->kind = DIST_VALUE;
	if (n != 3) {
		snprintf(why, whylen, "value EVENT FIELD");
		return -1;
	}
	if (event(w[1], "EVENT", &s->start, why, whylen) != 0)
		return -1;
	if (!field_name(w[2])) {
		snprintf(why, whylen, "'%.40s' is not a field name", w[2]);
		return -1;
	}
	snprintf(s->field, sizeof(s->field), "%s", w[2]);
	return 0;
}

int dist_spec_parse(const char *text, struct dist_spec *s, char *why, size_t whylen)
{
	char buf[DIST_SPEC_MAX_TEXT + 1], *w[MAX_WORDS];
	int n;

	memset(s, 0, sizeof(*s));
	if (text == NULL || strlen(text) > DIST_SPEC_MAX_TEXT) {
		snprintf(why, whylen, "a spec is 1..%d characters", DIST_SPEC_MAX_TEXT);
		return -1;
	}
	n = split(text, buf, sizeof(buf), w);
	if (n <= 0) {
		snprintf(why, whylen, n == 0 ? "empty spec" : "too many words in the spec");
		return -1;
	}
	if (strcmp(w[0], "latency") == 0)
		return parse_latency(w, n, s, why, whylen);
	if (strcmp(w[0], "value") == 0)
		return parse_value(w, n, s, why, whylen);
	snprintf(why, whylen, "a spec starts with latency or value, not '%.40s'", w[0]);
	return -1;
}

void dist_spec_format(const struct dist_spec *s, char *buf, size_t len)
{
	char a[SPEC_MAX_TEXT + 1], b[SPEC_MAX_TEXT + 1];

	spec_format(&s->start, a, sizeof(a));
	if (s->kind == DIST_VALUE) {
		snprintf(buf, len, "value %s %s", a, s->field);
		return;
	}
	spec_format(&s->end, b, sizeof(b));
	if (s->nkeys == 0)
		snprintf(buf, len, "latency %s %s", a, b);
	else if (s->nkeys == 1)
		snprintf(buf, len, "latency %s %s key %s", a, b, s->key[0]);
	else
		snprintf(buf, len, "latency %s %s key %s+%s", a, b, s->key[0], s->key[1]);
}

void dist_filter_default(struct dist_filter *f)
{
	memset(f, 0, sizeof(*f));   /* whole, so two filters compare with memcmp */
	filter_default(&f->f);
	f->inflight = DIST_DEFAULT_INFLIGHT;
}

bool dist_cgroup_ok(const char *path)
{
	size_t n = strlen(path);

	if (n == 0)
		return true;
	if (path[0] != '/' || n > DIST_CGROUP_MAX || strstr(path, "/..") != NULL)
		return false;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)path[i] <= ' ' || path[i] == 0x7f)
			return false;
	return true;
}

int dist_filter_word(const char *word, struct dist_filter *f, char *why, size_t whylen)
{
	uint32_t v;

	if (strncmp(word, "cgroup=", 7) == 0) {
		if (!dist_cgroup_ok(word + 7) || word[7] == '\0') {
			snprintf(why, whylen, "cgroup= takes a path under the cgroup2 root "
				 "(/system.slice/x.service), without '..'");
			return -1;
		}
		memset(f->cgroup, 0, sizeof(f->cgroup));
		snprintf(f->cgroup, sizeof(f->cgroup), "%s", word + 7);
		return 0;
	}
	if (strncmp(word, "inflight=", 9) == 0) {
		if (num_parse_u32(word + 9, DIST_MAX_INFLIGHT, &v) != NUM_OK || v == 0) {
			snprintf(why, whylen, "inflight= takes 1..%u", DIST_MAX_INFLIGHT);
			return -1;
		}
		f->inflight = v;
		return 0;
	}
	return filter_parse_word(word, &f->f, why, whylen);
}

void dist_filter_format(const struct dist_filter *f, char *buf, size_t len)
{
	size_t n;

	filter_format(&f->f, buf, len);
	n = strlen(buf);
	if (f->cgroup[0] != '\0' && n < len)
		n += (size_t)snprintf(buf + n, len - n, " cgroup=%s", f->cgroup);
	if (f->inflight != DIST_DEFAULT_INFLIGHT && n < len)
		snprintf(buf + n, len - n, " inflight=%u", f->inflight);
}

int dist_line_parse(const char *line, struct dist_spec *s, struct dist_filter *f, char *why,
		    size_t whylen)
{
	char buf[2 * DIST_SPEC_MAX_TEXT + 64], spec[DIST_SPEC_MAX_TEXT + 1], *save = NULL;
	size_t n = 0;

	dist_filter_default(f);
	if (strlen(line) >= sizeof(buf)) {
		snprintf(why, whylen, "line too long");
		return -1;
	}
	strcpy(buf, line);
	spec[0] = '\0';
	for (char *w = strtok_r(buf, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
		size_t wl = strlen(w);

		if (strchr(w, '=') != NULL) {
			if (dist_filter_word(w, f, why, whylen) != 0)
				return -1;
			continue;
		}
		if (n + wl + 1 > DIST_SPEC_MAX_TEXT) {
			snprintf(why, whylen, "a spec is 1..%d characters", DIST_SPEC_MAX_TEXT);
			return -1;
		}
		if (n > 0)
			spec[n++] = ' ';
		memcpy(spec + n, w, wl + 1);
		n += wl;
	}
	return dist_spec_parse(spec, s, why, whylen);
}

void dist_line_format(const struct dist_spec *s, const struct dist_filter *f, char *buf,
		      size_t len)
{
	char spec[DIST_SPEC_MAX_TEXT + 1], filt[DIST_CGROUP_MAX + 80];

	dist_spec_format(s, spec, sizeof(spec));
	dist_filter_format(f, filt, sizeof(filt));
	snprintf(buf, len, "%s%s", spec, filt);
}

bool dist_same(const struct dist_spec *a, const struct dist_filter *fa, const struct dist_spec *b,
	       const struct dist_filter *fb)
{
	if (a->kind != b->kind || !spec_same(&a->start, &b->start) ||
	    (a->kind == DIST_LATENCY && !spec_same(&a->end, &b->end)) || a->nkeys != b->nkeys ||
	    strcmp(a->field, b->field) != 0)
		return false;
	for (unsigned i = 0; i < a->nkeys && i < DIST_MAX_KEYS; i++)
		if (strcmp(a->key[i], b->key[i]) != 0)
			return false;
	return filter_same(&fa->f, &fb->f) && strcmp(fa->cgroup, fb->cgroup) == 0 &&
	       fa->inflight == fb->inflight;
}
