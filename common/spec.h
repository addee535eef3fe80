/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * spec.h - probe specs and filters as users write them (in SET requests,
 * probe directives and the helper's control socket), parsed once and
 * checked the same way on both sides of the socket. Pure C: no BPF, no SNMP.
 *
 *   tracepoint:CATEGORY:NAME          count a kernel tracepoint
 *   raw_tracepoint:NAME               count a raw tracepoint (cheaper)
 *   kprobe:FUNCTION                   count calls (kernels with kprobes)
 *   kretprobe:FUNCTION                count returns
 *   latency:kprobe:FUNCTION           call-to-return durations
 *   latency:tracepoint:CAT:ENTRY,CAT:EXIT   entry-to-exit durations by thread
 */
#ifndef CLUSTERMON_SPEC_H
#define CLUSTERMON_SPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SPEC_MAX_TEXT 200     /* clusterMonProbeSpec SIZE (1..200) */
#define SPEC_MAX_CATEGORY 63
#define SPEC_MAX_NAME 127

enum spec_kind {
	SPEC_TRACEPOINT,
	SPEC_RAW_TRACEPOINT,
	SPEC_KPROBE,
	SPEC_KRETPROBE,
	SPEC_LATENCY_KPROBE,
	SPEC_LATENCY_TRACEPOINT,
};

struct probe_spec {
	enum spec_kind kind;
	char category[SPEC_MAX_CATEGORY + 1];      /* tracepoints */
	char name[SPEC_MAX_NAME + 1];              /* event or function */
	char exit_category[SPEC_MAX_CATEGORY + 1]; /* latency:tracepoint */
	char exit_name[SPEC_MAX_NAME + 1];
};

#define FILTER_MAX_EVERY 1000000u
#define FILTER_MAX_CPU 8191

struct probe_filter {
	int32_t tgid;     /* -1: every process */
	int32_t cpu;      /* -1: every CPU */
	uint32_t every;   /* record one event in N (1..1000000) */
};

/* 0, or -1 with the reason in why (a sentence a user can act on). */
int spec_parse(const char *text, struct probe_spec *out, char *why, size_t whylen);
/* The canonical text of a spec; what spec_parse read back gives the same. */
void spec_format(const struct probe_spec *s, char *buf, size_t len);
bool spec_is_latency(const struct probe_spec *s);
/* Whether two parsed specs (or filters) name the same thing. */
bool spec_same(const struct probe_spec *a, const struct probe_spec *b);
bool filter_same(const struct probe_filter *a, const struct probe_filter *b);
bool spec_needs_kprobes(const struct probe_spec *s);

void filter_default(struct probe_filter *f);
/* One "pid=N", "cpu=N" or "every=N" word into f: 0, or -1 with why. */
int filter_parse_word(const char *word, struct probe_filter *f, char *why, size_t whylen);
/* " pid=N cpu=N every=N" for the fields that differ from the defaults. */
void filter_format(const struct probe_filter *f, char *buf, size_t len);
/* A saved row's first words (persistent storage): "SPEC PID CPU EVERY",
 * -1 for every process or every CPU. snprintf's return. */
int spec_filter_save(const char *spec, const struct probe_filter *f, char *buf, size_t len);
/* Reads them back at *line: the spec word into spec (SPEC_MAX_TEXT + 1
 * bytes; its grammar is the caller's to judge), the numbers into f, *line
 * past them. 0, or -1 (f untouched) when a word is missing or out of range. */
int spec_filter_restore(const char **line, char *spec, struct probe_filter *f);

#endif
