/* SPDX-License-Identifier: BSD-2-Clause */
/* wire.c - request lines of the helper's control socket. */
#include "wire.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "number.h"

enum wire_line_status wire_take_line(char *buf, size_t *len, size_t max, char *line)
{
	char *nl = memchr(buf, '\n', *len);
	size_t n, rest;

	if (nl == NULL)
		return *len > max ? WIRE_TOO_LONG : WIRE_NEED_MORE;
	n = (size_t)(nl - buf);
	if (n > max)
		return WIRE_TOO_LONG;
	memcpy(line, buf, n);
	if (n > 0 && line[n - 1] == '\r')
		n--;
	line[n] = '\0';
	rest = *len - (size_t)(nl + 1 - buf);
	memmove(buf, nl + 1, rest);
	*len = rest;
	return WIRE_LINE;
}

static int parse_id(const char *word, uint32_t *id, char *why, size_t whylen)
{
	uint32_t v;

	if (word == NULL || *word < '0' || *word > '9') {
		snprintf(why, whylen, "expected a probe id (1..%u)", WIRE_MAX_ID);
		return -1;
	}
	if (num_parse_u32(word, WIRE_MAX_ID, &v) != NUM_OK || v < 1) {
		snprintf(why, whylen, "probe id '%.20s' is not in 1..%u", word, WIRE_MAX_ID);
		return -1;
	}
	*id = v;
	return 0;
}

static int parse_add(char **save, struct wire_request *req, char *why, size_t whylen)
{
	char *word;

	if (parse_id(strtok_r(NULL, " ", save), &req->id, why, whylen) != 0)
		return -1;
	word = strtok_r(NULL, " ", save);
	if (spec_parse(word, &req->spec, why, whylen) != 0)
		return -1;
	filter_default(&req->filter);
	while ((word = strtok_r(NULL, " ", save)) != NULL)
		if (filter_parse_word(word, &req->filter, why, whylen) != 0)
			return -1;
	return 0;
}

/* "duration=MS", "bytes=N" or "buffer=N"; 1 when word is none of them. */
static int limit_word(const char *word, struct trace_limits *l, char *why, size_t whylen)
{
	static const struct { const char *key; unsigned long long min, max; } keys[] = {
		{ "duration=", 1, TRACE_MAX_DURATION_MS },
		{ "bytes=", TRACE_MIN_BYTES, TRACE_MAX_BYTES },
		{ "buffer=", TRACE_MIN_BUFFER, TRACE_MAX_BUFFER },
	};
	uint64_t v;

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		size_t n = strlen(keys[i].key);

		if (strncmp(word, keys[i].key, n) != 0)
			continue;
		if (num_parse_u64(word + n, keys[i].max, &v) != NUM_OK || v < keys[i].min ||
		    (i == 2 && (v & (v - 1)) != 0)) {
			snprintf(why, whylen, "%s takes %s%llu..%llu", keys[i].key,
				 i == 2 ? "a power of two in " : "", keys[i].min, keys[i].max);
			return -1;
		}
		if (i == 0)
			l->duration_ms = (uint32_t)v;
		else if (i == 1)
			l->max_bytes = v;
		else
			l->buffer_bytes = (uint32_t)v;
		return 0;
	}
	return 1;
}

static int trace_spec_ok(const struct probe_spec *spec, char *why, size_t whylen)
{
	if (spec->kind == SPEC_TRACEPOINT || spec->kind == SPEC_RAW_TRACEPOINT)
		return 0;
	snprintf(why, whylen, "a trace records a tracepoint: or raw_tracepoint: spec");
	return -1;
}

int wire_parse_trace_spec(const char *word, struct probe_spec *out, char *why, size_t whylen)
{
	if (word != NULL && strcmp(word, "sched_switch") == 0)
		word = "tracepoint:sched:sched_switch";
	if (spec_parse(word, out, why, whylen) != 0)
		return -1;
	return trace_spec_ok(out, why, whylen);
}

int wire_trace_option(const char *word, struct probe_filter *f, struct trace_limits *l,
		      char *why, size_t whylen)
{
	int rc = limit_word(word, l, why, whylen);

	return rc > 0 ? filter_parse_word(word, f, why, whylen) : rc;
}

void wire_trace_defaults(struct wire_request *req)
{
	filter_default(&req->filter);
	req->limits = (struct trace_limits){ TRACE_DEFAULT_DURATION_MS, TRACE_DEFAULT_BUFFER,
					     TRACE_DEFAULT_BYTES };
}

static int parse_trace(char **save, struct wire_request *req, char *why, size_t whylen)
{
	char *word;

	if (parse_id(strtok_r(NULL, " ", save), &req->id, why, whylen) != 0)
		return -1;
	if (wire_parse_trace_spec(strtok_r(NULL, " ", save), &req->spec, why, whylen) != 0)
		return -1;
	wire_trace_defaults(req);
	while ((word = strtok_r(NULL, " ", save)) != NULL)
		if (wire_trace_option(word, &req->filter, &req->limits, why, whylen) != 0)
			return -1;
	return 0;
}

/* "dist ID SPEC[ FILTERS]": the rest of the line is distspec.c's. */
static int parse_dist(char **save, struct wire_request *req, char *why, size_t whylen)
{
	const char *rest;

	if (parse_id(strtok_r(NULL, " ", save), &req->id, why, whylen) != 0)
		return -1;
	rest = *save != NULL ? *save + strspn(*save, " ") : "";
	return dist_line_parse(rest, &req->dist, &req->dfilter, why, whylen);
}

static bool printable(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s > 0x7e)
			return false;
	return true;
}

int wire_parse_request(const char *line, struct wire_request *req, char *why, size_t whylen)
{
	char copy[WIRE_MAX_REQUEST + 1], *save = NULL, *verb;

	memset(req, 0, sizeof(*req));
	if (strlen(line) > WIRE_MAX_REQUEST) {
		snprintf(why, whylen, "request longer than %d bytes", WIRE_MAX_REQUEST);
		return -1;
	}
	if (!printable(line)) {
		snprintf(why, whylen, "request has a control or non-ASCII byte");
		return -1;
	}
	strcpy(copy, line);
	verb = strtok_r(copy, " ", &save);
	if (verb == NULL) {
		snprintf(why, whylen, "empty request");
		return -1;
	}
	if (strcmp(verb, "add") == 0) {
		req->verb = WIRE_ADD;
		return parse_add(&save, req, why, whylen);
	}
	if (strcmp(verb, "trace") == 0) {
		req->verb = WIRE_TRACE;
		return parse_trace(&save, req, why, whylen);
	}
	if (strcmp(verb, "dist") == 0) {
		req->verb = WIRE_DIST;
		return parse_dist(&save, req, why, whylen);
	}
	if (strcmp(verb, "del") == 0 || strcmp(verb, "stop") == 0 || strcmp(verb, "undist") == 0) {
		req->verb = verb[0] == 'd' ? WIRE_DEL : verb[0] == 's' ? WIRE_STOP : WIRE_UNDIST;
		if (parse_id(strtok_r(NULL, " ", &save), &req->id, why, whylen) != 0)
			return -1;
	} else if (strcmp(verb, "hello") == 0) {
		req->verb = WIRE_HELLO;
	} else if (strcmp(verb, "list") == 0) {
		req->verb = WIRE_LIST;
	} else if (strcmp(verb, "read") == 0) {
		req->verb = WIRE_READ;
	} else if (strcmp(verb, "traces") == 0) {
		req->verb = WIRE_TRACES;
	} else if (strcmp(verb, "procs") == 0) {
		req->verb = WIRE_PROCS;
	} else if (strcmp(verb, "maps") == 0) {
		req->verb = WIRE_MAPS;
	} else if (strcmp(verb, "cgmaps") == 0) {
		req->verb = WIRE_CGMAPS;
	} else if (strcmp(verb, "exits") == 0) {
		req->verb = WIRE_EXITS;
	} else if (strcmp(verb, "dists") == 0) {
		req->verb = WIRE_DISTS;
	} else {
		snprintf(why, whylen,
			 "unknown request '%.20s' (hello, add, del, list, read, trace, stop, traces, procs, maps, cgmaps, exits, dist, undist, dists)",
			 verb);
		return -1;
	}
	if (strtok_r(NULL, " ", &save) != NULL) {
		snprintf(why, whylen, "unexpected words after '%s'", verb);
		return -1;
	}
	return 0;
}

static int format_dist(const struct wire_request *req, char *buf, size_t len)
{
	char line[WIRE_MAX_REQUEST + 1];

	dist_line_format(&req->dist, &req->dfilter, line, sizeof(line));
	return snprintf(buf, len, "dist %u %s\n", req->id, line);
}

int wire_format_request(const struct wire_request *req, char *buf, size_t len)
{
	char spec[SPEC_MAX_TEXT + 1], filter[64];
	int n;

	switch (req->verb) {
	case WIRE_ADD:
		spec_format(&req->spec, spec, sizeof(spec));
		filter_format(&req->filter, filter, sizeof(filter));
		n = snprintf(buf, len, "add %u %s%s\n", req->id, spec, filter);
		break;
	case WIRE_DEL:
		n = snprintf(buf, len, "del %u\n", req->id);
		break;
	case WIRE_HELLO:
		n = snprintf(buf, len, "hello\n");
		break;
	case WIRE_LIST:
		n = snprintf(buf, len, "list\n");
		break;
	case WIRE_TRACE:
		spec_format(&req->spec, spec, sizeof(spec));
		filter_format(&req->filter, filter, sizeof(filter));
		n = snprintf(buf, len, "trace %u %s%s duration=%u bytes=%llu buffer=%u\n", req->id,
			     spec, filter, req->limits.duration_ms,
			     (unsigned long long)req->limits.max_bytes, req->limits.buffer_bytes);
		break;
	case WIRE_STOP:
		n = snprintf(buf, len, "stop %u\n", req->id);
		break;
	case WIRE_TRACES:
		n = snprintf(buf, len, "traces\n");
		break;
	case WIRE_PROCS:
		n = snprintf(buf, len, "procs\n");
		break;
	case WIRE_MAPS:
		n = snprintf(buf, len, "maps\n");
		break;
	case WIRE_CGMAPS:
		n = snprintf(buf, len, "cgmaps\n");
		break;
	case WIRE_EXITS:
		n = snprintf(buf, len, "exits\n");
		break;
	case WIRE_DIST:
		n = format_dist(req, buf, len);
		break;
	case WIRE_UNDIST:
		n = snprintf(buf, len, "undist %u\n", req->id);
		break;
	case WIRE_DISTS:
		n = snprintf(buf, len, "dists\n");
		break;
	default:
		n = snprintf(buf, len, "read\n");
		break;
	}
	return n > 0 && (size_t)n < len ? n : -1;
}
