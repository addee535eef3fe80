/* SPDX-License-Identifier: BSD-2-Clause */
/* spec.c - parse and print probe specs and their filters. */
#include "spec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "number.h"

/* Characters of tracepoint and function names (GCC clones such as
 * tcp_sendmsg.isra.0 carry dots). */
static bool name_char(char c, bool dots)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || (dots && c == '.');
}

/* Copies the name at *p up to a character in stops (or the end) into out;
 * advances *p past it. */
static int take_name(const char **p, const char *stops, bool dots, const char *what,
		     char *out, size_t max, char *why, size_t whylen)
{
	const char *s = *p;
	size_t n = 0;

	while (s[n] != '\0' && strchr(stops, s[n]) == NULL) {
		if (!name_char(s[n], dots)) {
			snprintf(why, whylen, "invalid character '%c' in the %s", s[n], what);
			return -1;
		}
		n++;
	}
	if (n == 0) {
		snprintf(why, whylen, "missing %s", what);
		return -1;
	}
	if (n > max) {
		snprintf(why, whylen, "%s longer than %zu characters", what, max);
		return -1;
	}
	memcpy(out, s, n);
	out[n] = '\0';
	*p = s + n;
	return 0;
}

static int expect(const char **p, char c, const char *what, char *why, size_t whylen)
{
	if (**p != c) {
		snprintf(why, whylen, "expected %s", what);
		return -1;
	}
	(*p)++;
	return 0;
}

static int at_end(const char *p, char *why, size_t whylen)
{
	if (*p == '\0')
		return 0;
	snprintf(why, whylen, "unexpected '%s' after the spec", p);
	return -1;
}

/* CATEGORY:NAME, ending at one of stops. */
static int take_tracepoint(const char **p, const char *stops, char *cat, char *name,
			   char *why, size_t whylen)
{
	char name_stops[8];

	snprintf(name_stops, sizeof(name_stops), "%s:", stops);
	if (take_name(p, ":", false, "tracepoint category", cat, SPEC_MAX_CATEGORY, why,
		      whylen) != 0 ||
	    expect(p, ':', "CATEGORY:NAME for the tracepoint", why, whylen) != 0 ||
	    take_name(p, name_stops, false, "tracepoint name", name, SPEC_MAX_NAME, why,
		      whylen) != 0)
		return -1;
	return 0;
}

static int parse_latency(const char *p, struct probe_spec *s, char *why, size_t whylen)
{
	if (strncmp(p, "kprobe:", 7) == 0) {
		p += 7;
		s->kind = SPEC_LATENCY_KPROBE;
		if (take_name(&p, "", true, "function name", s->name, SPEC_MAX_NAME, why,
			      whylen) != 0)
			return -1;
		return at_end(p, why, whylen);
	}
	if (strncmp(p, "tracepoint:", 11) == 0) {
		p += 11;
		s->kind = SPEC_LATENCY_TRACEPOINT;
		if (take_tracepoint(&p, ",", s->category, s->name, why, whylen) != 0 ||
		    expect(&p, ',', "',' and the exit tracepoint (CAT:ENTRY,CAT:EXIT)", why,
			   whylen) != 0 ||
		    take_tracepoint(&p, "", s->exit_category, s->exit_name, why, whylen) != 0)
			return -1;
		return at_end(p, why, whylen);
	}
	snprintf(why, whylen, "a latency pair is latency:kprobe:FUNCTION or "
		 "latency:tracepoint:CAT:ENTRY,CAT:EXIT");
	return -1;
}

int spec_parse(const char *text, struct probe_spec *s, char *why, size_t whylen)
{
	const char *p = text;

	memset(s, 0, sizeof(*s));
	if (text == NULL || *text == '\0') {
		snprintf(why, whylen, "empty probe spec");
		return -1;
	}
	if (strlen(text) > SPEC_MAX_TEXT) {
		snprintf(why, whylen, "probe spec longer than %d characters", SPEC_MAX_TEXT);
		return -1;
	}
	if (strncmp(p, "tracepoint:", 11) == 0) {
		p += 11;
		s->kind = SPEC_TRACEPOINT;
		if (take_tracepoint(&p, "", s->category, s->name, why, whylen) != 0)
			return -1;
		return at_end(p, why, whylen);
	}
	if (strncmp(p, "raw_tracepoint:", 15) == 0 || strncmp(p, "kprobe:", 7) == 0 ||
	    strncmp(p, "kretprobe:", 10) == 0) {
		s->kind = p[0] == 'r' ? SPEC_RAW_TRACEPOINT :
			  p[1] == 'p' ? SPEC_KPROBE : SPEC_KRETPROBE;
		p = strchr(p, ':') + 1;
		if (take_name(&p, "", s->kind != SPEC_RAW_TRACEPOINT,
			      s->kind == SPEC_RAW_TRACEPOINT ? "tracepoint name" : "function name",
			      s->name, SPEC_MAX_NAME, why, whylen) != 0)
			return -1;
		return at_end(p, why, whylen);
	}
	if (strncmp(p, "latency:", 8) == 0)
		return parse_latency(p + 8, s, why, whylen);
	snprintf(why, whylen, "unknown probe type in '%.40s' (tracepoint:, raw_tracepoint:, "
		 "kprobe:, kretprobe: or latency:)", text);
	return -1;
}

void spec_format(const struct probe_spec *s, char *buf, size_t len)
{
	switch (s->kind) {
	case SPEC_TRACEPOINT:
		snprintf(buf, len, "tracepoint:%s:%s", s->category, s->name);
		break;
	case SPEC_RAW_TRACEPOINT:
		snprintf(buf, len, "raw_tracepoint:%s", s->name);
		break;
	case SPEC_KPROBE:
		snprintf(buf, len, "kprobe:%s", s->name);
		break;
	case SPEC_KRETPROBE:
		snprintf(buf, len, "kretprobe:%s", s->name);
		break;
	case SPEC_LATENCY_KPROBE:
		snprintf(buf, len, "latency:kprobe:%s", s->name);
		break;
	case SPEC_LATENCY_TRACEPOINT:
		snprintf(buf, len, "latency:tracepoint:%s:%s,%s:%s", s->category, s->name,
			 s->exit_category, s->exit_name);
		break;
	}
}

bool spec_is_latency(const struct probe_spec *s)
{
	return s->kind == SPEC_LATENCY_KPROBE || s->kind == SPEC_LATENCY_TRACEPOINT;
}

bool spec_needs_kprobes(const struct probe_spec *s)
{
	return s->kind == SPEC_KPROBE || s->kind == SPEC_KRETPROBE ||
	       s->kind == SPEC_LATENCY_KPROBE;
}

void filter_default(struct probe_filter *f)
{
	f->tgid = -1;
	f->cpu = -1;
	f->every = 1;
}

static int number(const char *text, int64_t lo, int64_t hi, int64_t *out)
{
	/* A filter's numbers have no sign: -1 ("any") is written by leaving the word out. */
	if (*text == '-')
		return -1;
	return num_parse_i64(text, lo, hi, out) == NUM_OK ? 0 : -1;
}

int filter_parse_word(const char *word, struct probe_filter *f, char *why, size_t whylen)
{
	int64_t v;

	if (strncmp(word, "pid=", 4) == 0) {
		if (number(word + 4, 1, INT32_MAX, &v) == 0) {
			f->tgid = (int32_t)v;
			return 0;
		}
		snprintf(why, whylen, "pid= takes a process id (1..%d)", INT32_MAX);
	} else if (strncmp(word, "cpu=", 4) == 0) {
		if (number(word + 4, 0, FILTER_MAX_CPU, &v) == 0) {
			f->cpu = (int32_t)v;
			return 0;
		}
		snprintf(why, whylen, "cpu= takes a CPU number (0..%d)", FILTER_MAX_CPU);
	} else if (strncmp(word, "every=", 6) == 0) {
		if (number(word + 6, 1, FILTER_MAX_EVERY, &v) == 0) {
			f->every = (uint32_t)v;
			return 0;
		}
		snprintf(why, whylen, "every= takes 1..%u", FILTER_MAX_EVERY);
	} else {
		snprintf(why, whylen, "unknown option '%.40s' (pid=N, cpu=N or every=N)", word);
	}
	return -1;
}

void filter_format(const struct probe_filter *f, char *buf, size_t len)
{
	int n = 0;

	buf[0] = '\0';
	if (f->tgid >= 0)
		n += snprintf(buf + n, len - (size_t)n, " pid=%d", (int)f->tgid);
	if (f->cpu >= 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, " cpu=%d", (int)f->cpu);
	if (f->every != 1 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, " every=%u", f->every);
}

int spec_filter_save(const char *spec, const struct probe_filter *f, char *buf, size_t len)
{
	/* Specs hold no blanks (spec_parse refuses them): one word. */
	return snprintf(buf, len, "%s %d %d %u", spec, (int)f->tgid, (int)f->cpu, f->every);
}

int spec_filter_restore(const char **line, char *spec, struct probe_filter *f)
{
	const char *s = *line;
	size_t n = strcspn(s, " \t");
	int64_t pid, cpu, every;

	if (n == 0 || n > SPEC_MAX_TEXT)
		return -1;
	memcpy(spec, s, n);
	spec[n] = '\0';
	s += strspn(s + n, " \t") + n;
	if (num_take_i64(&s, -1, INT32_MAX, &pid) != NUM_OK ||
	    num_take_i64(&s, -1, FILTER_MAX_CPU, &cpu) != NUM_OK ||
	    num_take_i64(&s, 1, FILTER_MAX_EVERY, &every) != NUM_OK)
		return -1;
	f->tgid = (int32_t)pid;
	f->cpu = (int32_t)cpu;
	f->every = (uint32_t)every;
	*line = s;
	return 0;
}

bool spec_same(const struct probe_spec *a, const struct probe_spec *b)
{
	return a->kind == b->kind && strcmp(a->category, b->category) == 0 &&
	       strcmp(a->name, b->name) == 0 && strcmp(a->exit_category, b->exit_category) == 0 &&
	       strcmp(a->exit_name, b->exit_name) == 0;
}

bool filter_same(const struct probe_filter *a, const struct probe_filter *b)
{
	return a->tgid == b->tgid && a->cpu == b->cpu && a->every == b->every;
}
