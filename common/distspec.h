/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * distspec.h - distribution specs (clusterMonDistSpec, the helper's "dist"
 * requests) and their filters, parsed once for both sides of the socket.
 * Pure C: no BPF, no SNMP. Events are written as the probe table writes
 * them and parsed by spec.c (tracepoint:CATEGORY:NAME):
 *
 *   latency START END               time from START to END of one thread
 *   latency START END key F[+F]     ... matched on START's and END's fields
 *   value EVENT FIELD               the values of a numeric field of EVENT
 *
 * Filters (pid=, cpu=, every=, as probes and traces take them, plus
 * cgroup=PATH and inflight=N) apply where a value starts: at START for a
 * latency, at EVENT for a value. END events are matched whoever runs them
 * (a block request completes in another task's interrupt).
 */
#ifndef CLUSTERMON_DISTSPEC_H
#define CLUSTERMON_DISTSPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "spec.h"

#define DIST_SPEC_MAX_TEXT 200    /* clusterMonDistSpec SIZE (1..200) */
#define DIST_FIELD_MAX 63
#define DIST_MAX_KEYS 2
#define DIST_CGROUP_MAX 200       /* clusterMonDistFilterCgroup SIZE (0..200) */
/* In-flight starts of a keyed pair (its hash's entries): the default and
 * the most a row may ask for (clusterMonDistMaxInflight). */
#define DIST_DEFAULT_INFLIGHT 10240u
#define DIST_MAX_INFLIGHT 65536u
/* Rows the helper holds at most (clusterMonDistMaxRows). */
#define DIST_MAX_ROWS 64u

enum dist_kind { DIST_LATENCY, DIST_VALUE };

struct dist_spec {
	enum dist_kind kind;
	struct probe_spec start;             /* latency START, or value EVENT */
	struct probe_spec end;               /* latency END */
	unsigned nkeys;                      /* 0: matched per thread */
	char key[DIST_MAX_KEYS][DIST_FIELD_MAX + 1];
	char field[DIST_FIELD_MAX + 1];      /* value FIELD */
};

struct dist_filter {
	struct probe_filter f;               /* pid=, cpu=, every= */
	char cgroup[DIST_CGROUP_MAX + 1];    /* "" or a path under the cgroup2 root */
	uint32_t inflight;                   /* keyed pairs: entries of the start map */
};

/* The same distribution: a new one counts from zero. */
bool dist_same(const struct dist_spec *a, const struct dist_filter *fa, const struct dist_spec *b,
	       const struct dist_filter *fb);
/* 0, or -1 with the reason in why (a sentence a user can act on). */
int dist_spec_parse(const char *text, struct dist_spec *out, char *why, size_t whylen);
/* The canonical text; parsing it back gives the same spec. */
void dist_spec_format(const struct dist_spec *s, char *buf, size_t len);

void dist_filter_default(struct dist_filter *f);
/* One filter word (pid=, cpu=, every=, cgroup=, inflight=): 0, or -1 with why. */
int dist_filter_word(const char *word, struct dist_filter *f, char *why, size_t whylen);
/* Whether a cgroup path is one the helper will open: absolute, no "..",
 * no blanks, at most DIST_CGROUP_MAX characters; "" is no filter. */
bool dist_cgroup_ok(const char *path);
/* " pid=N cpu=N every=N cgroup=P inflight=N" for what differs from defaults. */
void dist_filter_format(const struct dist_filter *f, char *buf, size_t len);

/* "SPEC[ FILTERS]": the words after "dist ID" of a request. The spec is
 * every word without '='; 0, or -1 with why. */
int dist_line_parse(const char *line, struct dist_spec *s, struct dist_filter *f, char *why,
		    size_t whylen);
/* The canonical "SPEC[ FILTERS]" (what dist_line_parse reads back). */
void dist_line_format(const struct dist_spec *s, const struct dist_filter *f, char *buf,
		      size_t len);

#endif
