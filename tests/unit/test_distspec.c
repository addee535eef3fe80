/* SPDX-License-Identifier: BSD-2-Clause */
/* test_distspec.c - distribution specs and filters (distspec.h): every valid
 * form round-trips through its canonical text, every malformed one is
 * refused with the reason a user sees, and the helper's "dists" reply is
 * parsed or refused whole (collect/distlist.h). */
#include <stdlib.h>
#include <string.h>

#include "collect/distlist.h"
#include "common/distspec.h"
#include "tap.h"

static const struct {
	const char *text, *canonical;
	enum dist_kind kind;
	unsigned nkeys;
} valid[] = {
	{ "latency tracepoint:syscalls:sys_enter_nanosleep tracepoint:syscalls:sys_exit_nanosleep",
	  NULL, DIST_LATENCY, 0 },
	{ "latency  tracepoint:block:block_rq_issue\ttracepoint:block:block_rq_complete key dev+sector",
	  "latency tracepoint:block:block_rq_issue tracepoint:block:block_rq_complete key dev+sector",
	  DIST_LATENCY, 2 },
	{ "latency tracepoint:a:b tracepoint:c:d key id", NULL, DIST_LATENCY, 1 },
	{ "value tracepoint:syscalls:sys_exit_read ret", NULL, DIST_VALUE, 0 },
	{ " value tracepoint:net:net_dev_xmit len ", "value tracepoint:net:net_dev_xmit len",
	  DIST_VALUE, 0 },
};

static const struct {
	const char *text, *reason;
} invalid[] = {
	{ "", "empty spec" },
	{ "   ", "empty spec" },
	{ "hist tracepoint:a:b x", "starts with latency or value" },
	{ "latency tracepoint:a:b", "latency START END" },
	{ "latency tracepoint:a:b tracepoint:c:d key", "latency START END" },
	{ "latency tracepoint:a:b tracepoint:c:d kee x", "expected 'key'" },
	{ "latency tracepoint:a:b tracepoint:c:d key a+b+c", "one or two field names" },
	{ "latency tracepoint:a:b tracepoint:c:d key a+", "one or two field names" },
	{ "latency tracepoint:a:b tracepoint:c:d key +a", "one or two field names" },
	{ "latency tracepoint:a:b tracepoint:c:d key 1a", "one or two field names" },
	{ "latency kprobe:vfs_read tracepoint:c:d", "START must be tracepoint:CATEGORY:NAME" },
	{ "latency tracepoint:a:b raw_tracepoint:x", "END must be tracepoint:CATEGORY:NAME" },
	{ "latency tracepoint:a tracepoint:c:d", "START: expected CATEGORY:NAME" },
	{ "value tracepoint:a:b", "value EVENT FIELD" },
	{ "value tracepoint:a:b x y", "value EVENT FIELD" },
	{ "value tracepoint:a:b x-y", "is not a field name" },
	{ "value kprobe:x y", "EVENT must be tracepoint" },
	{ "value a b c d e f g h i", "too many words" },
};

static void round_trips(void)
{
	char text[DIST_SPEC_MAX_TEXT + 1], why[256];
	struct dist_spec s, back;

	for (size_t i = 0; i < sizeof(valid) / sizeof(valid[0]); i++) {
		const char *want = valid[i].canonical ? valid[i].canonical : valid[i].text;
		int rc = dist_spec_parse(valid[i].text, &s, why, sizeof(why));

		ok(rc == 0 && s.kind == valid[i].kind && s.nkeys == valid[i].nkeys,
		   "'%s' parses", valid[i].text);
		dist_spec_format(&s, text, sizeof(text));
		ok(strcmp(text, want) == 0, "and prints as '%s'", text);
		ok(dist_spec_parse(text, &back, why, sizeof(why)) == 0 &&
		   memcmp(&s, &back, sizeof(s)) == 0, "which parses to the same spec");
	}
}

static void refusals(void)
{
	char why[256], longer[DIST_SPEC_MAX_TEXT + 2];
	struct dist_spec s;

	for (size_t i = 0; i < sizeof(invalid) / sizeof(invalid[0]); i++) {
		why[0] = '\0';
		ok(dist_spec_parse(invalid[i].text, &s, why, sizeof(why)) != 0 &&
		   strstr(why, invalid[i].reason) != NULL, "'%s' is refused: %s", invalid[i].text, why);
	}
	memset(longer, 'a', sizeof(longer) - 1);
	longer[sizeof(longer) - 1] = '\0';
	ok(dist_spec_parse(longer, &s, why, sizeof(why)) != 0, "a spec over 200 characters is refused");
}

static void filters(void)
{
	char why[256], text[512];
	struct dist_spec s;
	struct dist_filter f;

	ok(dist_line_parse("value tracepoint:a:b ret pid=7 cgroup=/system.slice/x.service "
			   "inflight=100 every=3", &s, &f, why, sizeof(why)) == 0 &&
	   f.f.tgid == 7 && f.f.every == 3 && f.inflight == 100 &&
	   strcmp(f.cgroup, "/system.slice/x.service") == 0, "filters among the spec's words");
	dist_line_format(&s, &f, text, sizeof(text));
	ok(strcmp(text, "value tracepoint:a:b ret pid=7 every=3 cgroup=/system.slice/x.service "
		   "inflight=100") == 0, "print in their order: %s", text);
	ok(dist_line_parse("value tracepoint:a:b ret cgroup=/a/../b", &s, &f, why, sizeof(why)) != 0,
	   "a cgroup path with .. is refused: %s", why);
	ok(dist_line_parse("value tracepoint:a:b ret cgroup=a", &s, &f, why, sizeof(why)) != 0,
	   "a relative cgroup path is refused");
	ok(dist_line_parse("value tracepoint:a:b ret inflight=65537", &s, &f, why, sizeof(why)) != 0,
	   "inflight beyond 65536 is refused: %s", why);
	ok(dist_line_parse("value tracepoint:a:b ret inflight=0", &s, &f, why, sizeof(why)) != 0,
	   "inflight=0 is refused");
	ok(dist_line_parse("value tracepoint:a:b ret colour=red", &s, &f, why, sizeof(why)) != 0,
	   "an unknown filter is refused: %s", why);
}

/* The source tells a changed row from the same one by dist_same. */
static void sameness(void)
{
	static const char *const lines[] = {
		"latency tracepoint:a:b tracepoint:a:c",
		"latency tracepoint:a:b tracepoint:a:d",
		"latency tracepoint:a:b tracepoint:a:c key pid",
		"value tracepoint:a:b ret",
		"value tracepoint:a:b len",
		"value tracepoint:a:b ret pid=7",
		"value tracepoint:a:b ret cgroup=/x",
		"latency tracepoint:a:b tracepoint:a:c key pid inflight=100",
	};
	enum { N = sizeof(lines) / sizeof(lines[0]) };
	struct dist_spec s[N], again;
	struct dist_filter f[N], fa;
	char why[256];
	int bad = 0;

	for (unsigned i = 0; i < N; i++)
		bad += dist_line_parse(lines[i], &s[i], &f[i], why, sizeof(why)) != 0;
	for (unsigned i = 0; i < N; i++)
		for (unsigned j = 0; j < N; j++)
			bad += dist_same(&s[i], &f[i], &s[j], &f[j]) != (i == j);
	for (unsigned i = 0; i < N; i++) {
		char text[512];

		dist_line_format(&s[i], &f[i], text, sizeof(text));
		bad += dist_line_parse(text, &again, &fa, why, sizeof(why)) != 0 ||
		       !dist_same(&s[i], &f[i], &again, &fa);
	}
	ok(bad == 0, "each of %d specs is the same only as itself, and as its text read back (%d wrong)",
	   N, bad);
}

static void reply(void)
{
	char good[2048], why[256];
	struct distlist_entry *e;
	size_t n, at;

	at = (size_t)snprintf(good, sizeof(good), "ok 1\ndist 3 10 9 1 4096");
	for (int i = 0; i < DISTLIST_SLOTS; i++)
		at += (size_t)snprintf(good + at, sizeof(good) - at, " %d", i == 12 ? 9 : 0);
	snprintf(good + at, sizeof(good) - at, "\n");
	ok(distlist_parse(good, &e, &n, why, sizeof(why)) == 0 && n == 1 && e[0].id == 3 &&
	   e[0].hits == 10 && e[0].misses == 1 && e[0].hist.count == 9 &&
	   e[0].hist.bucket[12] == 9 && e[0].hist.sum == 4096, "a dists reply parses");
	if (n == 1)
		free(e);
	good[strlen(good) - 3] = '\n';
	good[strlen(good) - 2] = '\0';
	ok(distlist_parse(good, &e, &n, why, sizeof(why)) != 0, "one slot short is refused: %s", why);
	ok(distlist_parse("ok 2\n", &e, &n, why, sizeof(why)) != 0, "a reply cut short is refused");
	ok(distlist_parse("err busy\n", &e, &n, why, sizeof(why)) != 0, "an error is no reply");
	ok(distlist_parse("ok 0\n", &e, &n, why, sizeof(why)) == 0 && n == 0, "no rows is fine");
	free(e);
}

int main(void)
{
	round_trips();
	refusals();
	filters();
	sameness();
	reply();
	return done_testing();
}
