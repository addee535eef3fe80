/* SPDX-License-Identifier: BSD-2-Clause */
/* policy.c - root's allow/deny rules on hooks (policy.h). */
#include "policy.h"

#include <fnmatch.h>
#include <stdio.h>
#include <string.h>

static const char *const kinds[] = { "tracepoint", "raw_tracepoint", "kprobe", "kretprobe" };

/* k*probe: is kprobe: and kretprobe:. The scheduler's switch and wake-up
 * paths and the allocators run millions of times a second: a probe there
 * costs every task on the node, and leaks heap addresses. */
const char policy_builtin_text[] =
	"# clustermon-kprobe's built-in policy: first match wins\n"
	"allow tracepoint:*\n"
	"allow raw_tracepoint:*\n"
	"# the scheduler's hot paths\n"
	"deny k*probe:schedule*\n"
	"deny k*probe:__schedule*\n"
	"deny k*probe:pick_next_task*\n"
	"deny k*probe:try_to_wake_up\n"
	"deny k*probe:ttwu_*\n"
	"deny k*probe:enqueue_task*\n"
	"deny k*probe:dequeue_task*\n"
	"deny k*probe:finish_task_switch*\n"
	"deny k*probe:__switch_to*\n"
	"deny k*probe:update_curr*\n"
	"# the allocators' hot paths\n"
	"deny k*probe:*kmalloc*\n"
	"deny k*probe:kmem_cache_*\n"
	"deny k*probe:*kfree*\n"
	"deny k*probe:*slab_alloc*\n"
	"deny k*probe:*slab_free*\n"
	"deny k*probe:__alloc_pages*\n"
	"deny k*probe:alloc_pages*\n"
	"deny k*probe:__free_pages*\n"
	"deny k*probe:free_unref_page*\n"
	"deny k*probe:get_page_from_freelist\n"
	"deny k*probe:rmqueue*\n"
	"deny k*probe:page_*\n"
	"allow kprobe:*\n"
	"allow kretprobe:*\n";

/* A pattern names a kind of hook: what comes before its first ':' matches
 * one of them, or it starts with '*'. */
static bool names_a_kind(const char *pattern)
{
	char head[POLICY_MAX_PATTERN + 1];
	size_t n = strcspn(pattern, ":");

	if (pattern[0] == '*')
		return true;
	if (pattern[n] != ':')
		return false;
	memcpy(head, pattern, n);
	head[n] = '\0';
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (fnmatch(head, kinds[i], 0) == 0)
			return true;
	return false;
}

/* One line, its comment cut: 0 (a rule added, or nothing on it), or -1
 * with why (without the SOURCE:LINE: head). */
static int parse_rule(char *line, unsigned no, struct policy *p, char *why, size_t whylen)
{
	char *verb, *pattern, *extra, *save = NULL;
	struct policy_rule *r;

	line[strcspn(line, "#")] = '\0';
	if ((verb = strtok_r(line, " \t\r", &save)) == NULL)
		return 0;
	pattern = strtok_r(NULL, " \t\r", &save);
	extra = strtok_r(NULL, " \t\r", &save);
	if (strcmp(verb, "allow") != 0 && strcmp(verb, "deny") != 0) {
		snprintf(why, whylen, "'%.40s' is neither allow nor deny", verb);
		return -1;
	}
	if (pattern == NULL || extra != NULL) {
		snprintf(why, whylen, "%s takes one pattern", verb);
		return -1;
	}
	if (strlen(pattern) > POLICY_MAX_PATTERN || !names_a_kind(pattern)) {
		snprintf(why, whylen, "pattern '%.60s' %s", pattern,
			 strlen(pattern) > POLICY_MAX_PATTERN ? "is too long"
			 : "names no kind of hook (tracepoint:, raw_tracepoint:, kprobe:, "
			   "kretprobe: or *)");
		return -1;
	}
	if (p->nrules == POLICY_MAX_RULES) {
		snprintf(why, whylen, "more than %d rules", POLICY_MAX_RULES);
		return -1;
	}
	r = &p->rule[p->nrules++];
	r->allow = verb[0] == 'a';
	r->line = no;
	strcpy(r->pattern, pattern);
	return 0;
}

int policy_parse(const char *text, const char *source, struct policy *p, char *why,
		 size_t whylen)
{
	char line[POLICY_MAX_LINE + 2], inner[200];
	unsigned no = 0;

	p->nrules = 0;
	snprintf(p->source, sizeof(p->source), "%s", source);
	for (const char *at = text; *at != '\0';) {
		size_t n = strcspn(at, "\n");

		no++;
		if (n > POLICY_MAX_LINE) {
			snprintf(why, whylen, "%.200s:%u: longer than %d characters", source, no,
				 POLICY_MAX_LINE);
			p->nrules = 0;
			return -1;
		}
		memcpy(line, at, n);
		line[n] = '\0';
		at += n + (at[n] == '\n');
		if (parse_rule(line, no, p, inner, sizeof(inner)) != 0) {
			snprintf(why, whylen, "%.200s:%u: %.200s", source, no, inner);
			p->nrules = 0;
			return -1;
		}
	}
	return 0;
}

void policy_builtin(struct policy *p)
{
	char why[64];

	policy_parse(policy_builtin_text, POLICY_BUILTIN, p, why, sizeof(why));
}

bool policy_allows(const struct policy *p, const char *hook, char *why, size_t whylen)
{
	for (size_t i = 0; i < p->nrules; i++) {
		const struct policy_rule *r = &p->rule[i];

		if (fnmatch(r->pattern, hook, 0) != 0)
			continue;
		if (!r->allow)
			snprintf(why, whylen, "%.140s is denied by %.60s:%u (deny %.40s)", hook,
				 p->source, r->line, r->pattern);
		return r->allow;
	}
	snprintf(why, whylen, "%.140s is denied: no rule of %.90s allows it", hook, p->source);
	return false;
}

bool policy_allows_spec(const struct policy *p, const struct probe_spec *s, char *why,
			size_t whylen)
{
	char a[SPEC_MAX_TEXT + 32], b[SPEC_MAX_TEXT + 32];

	b[0] = '\0';
	switch (s->kind) {
	case SPEC_TRACEPOINT:
		snprintf(a, sizeof(a), "tracepoint:%s:%s", s->category, s->name);
		break;
	case SPEC_RAW_TRACEPOINT:
		snprintf(a, sizeof(a), "raw_tracepoint:%s", s->name);
		break;
	case SPEC_KPROBE:
	case SPEC_KRETPROBE:
		snprintf(a, sizeof(a), "%s:%s", s->kind == SPEC_KPROBE ? "kprobe" : "kretprobe",
			 s->name);
		break;
	case SPEC_LATENCY_KPROBE:
		snprintf(a, sizeof(a), "kprobe:%s", s->name);
		snprintf(b, sizeof(b), "kretprobe:%s", s->name);
		break;
	case SPEC_LATENCY_TRACEPOINT:
		snprintf(a, sizeof(a), "tracepoint:%s:%s", s->category, s->name);
		snprintf(b, sizeof(b), "tracepoint:%s:%s", s->exit_category, s->exit_name);
		break;
	default:
		snprintf(why, whylen, "a hook of an unknown kind");
		return false;
	}
	return policy_allows(p, a, why, whylen) &&
	       (b[0] == '\0' || policy_allows(p, b, why, whylen));
}

bool policy_allows_request(const struct policy *p, const struct wire_request *r, char *why,
			   size_t whylen)
{
	switch (r->verb) {
	case WIRE_ADD:
	case WIRE_TRACE:
		return policy_allows_spec(p, &r->spec, why, whylen);
	case WIRE_DIST:
		return policy_allows_spec(p, &r->dist.start, why, whylen) &&
		       (r->dist.kind != DIST_LATENCY ||
			policy_allows_spec(p, &r->dist.end, why, whylen));
	default:
		return true;
	}
}
