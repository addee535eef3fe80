/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * policy.h - what may be hooked is root's decision (issue 40, part 3).
 *
 * A policy is lines of
 *
 *   allow PATTERN
 *   deny PATTERN
 *
 * '#' starts a comment; blank lines are skipped. PATTERN is a shell glob
 * (fnmatch(3) without flags: '*' matches ':' too) on a hook's name:
 *
 *   tracepoint:CATEGORY:NAME   raw_tracepoint:NAME
 *   kprobe:FUNCTION            kretprobe:FUNCTION
 *
 * The first line whose pattern matches decides; a hook no line matches is
 * denied. A pattern starts with one of those kinds (or a glob matching
 * one, like k*probe:), or with '*'. Every hook a request makes is judged:
 * a latency:kprobe:F is kprobe:F and kretprobe:F, a latency:tracepoint pair
 * and a latency dist are both their events, a trace its tracepoint
 * (sched_switch is tracepoint:sched:sched_switch).
 *
 * The file (-P, default POLICY_DEFAULT_PATH) must be a regular file owned
 * by root, writable by nobody else, in a directory owned by root that its
 * group and others cannot write in (unless sticky); it is opened with
 * O_NOFOLLOW, so never through a symbolic link. With no file at the default
 * path the built-in policy (policy_builtin_text) holds. Pure C: no BPF.
 */
#ifndef CLUSTERMON_POLICY_H
#define CLUSTERMON_POLICY_H

#include <stdbool.h>
#include <stddef.h>

#include "common/wire.h"

#define POLICY_DEFAULT_PATH "/etc/clustermon/kprobe-policy"
#define POLICY_MAX_RULES 512
#define POLICY_MAX_PATTERN 191
#define POLICY_MAX_LINE 255
#define POLICY_MAX_BYTES (256u << 10)
#define POLICY_BUILTIN "built-in"   /* the source named in reasons */

struct policy_rule {
	bool allow;
	unsigned line;
	char pattern[POLICY_MAX_PATTERN + 1];
};

struct policy {
	char source[256];          /* the file, or POLICY_BUILTIN */
	size_t nrules;
	struct policy_rule rule[POLICY_MAX_RULES];
};

/* The built-in policy's text: allow tracepoints and raw tracepoints, deny
 * kprobes and kretprobes on the scheduler's and the allocator's hot paths,
 * allow other kprobes. */
extern const char policy_builtin_text[];

/* Parses text (NUL-terminated) named source: 0, or -1 with why starting
 * "SOURCE:LINE: " (p then holds no rule). */
int policy_parse(const char *text, const char *source, struct policy *p, char *why,
		 size_t whylen);
/* The built-in policy into p. */
void policy_builtin(struct policy *p);
/* Reads the policy at path (an absolute path): 0; 1 when the file does not
 * exist and may be absent (the built-in policy is then in p); -1 with why
 * (p untouched) for a file that is not root's alone, a symbolic link, or
 * has a bad line (why says FILE:LINE). */
int policy_load(const char *path, bool may_be_absent, struct policy *p, char *why,
		size_t whylen);

/* Whether hook (its name as above) is allowed: true, or false with the
 * reason in why naming the rule (FILE:LINE and the line) or saying that
 * none allows it. */
bool policy_allows(const struct policy *p, const char *hook, char *why, size_t whylen);
/* Every hook a spec makes. */
bool policy_allows_spec(const struct policy *p, const struct probe_spec *s, char *why,
			size_t whylen);
/* Every hook an add, trace or dist request makes (other verbs: true). */
bool policy_allows_request(const struct policy *p, const struct wire_request *r, char *why,
			   size_t whylen);

#endif
