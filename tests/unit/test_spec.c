/* SPDX-License-Identifier: BSD-2-Clause */
/* test_spec.c - probe specs and filters: every valid form round-trips, every
 * malformed one is refused with the reason a user sees. */
#include <string.h>

#include "common/spec.h"
#include "tap.h"

static const struct {
	const char *text;
	enum spec_kind kind;
	const char *name, *exit_name;
} valid[] = {
	{ "tracepoint:syscalls:sys_enter_getppid", SPEC_TRACEPOINT, "sys_enter_getppid", "" },
	{ "tracepoint:sched:sched_switch", SPEC_TRACEPOINT, "sched_switch", "" },
	{ "raw_tracepoint:sched_switch", SPEC_RAW_TRACEPOINT, "sched_switch", "" },
	{ "kprobe:tcp_sendmsg", SPEC_KPROBE, "tcp_sendmsg", "" },
	{ "kprobe:tcp_sendmsg.isra.0", SPEC_KPROBE, "tcp_sendmsg.isra.0", "" },
	{ "kretprobe:vfs_read", SPEC_KRETPROBE, "vfs_read", "" },
	{ "latency:kprobe:vfs_read", SPEC_LATENCY_KPROBE, "vfs_read", "" },
	{ "latency:tracepoint:syscalls:sys_enter_nanosleep,syscalls:sys_exit_nanosleep",
	  SPEC_LATENCY_TRACEPOINT, "sys_enter_nanosleep", "sys_exit_nanosleep" },
};

static const struct {
	const char *text, *reason;
} invalid[] = {
	{ "", "empty probe spec" },
	{ "uprobe:/bin/sh:main", "unknown probe type" },
	{ "tracepoint", "unknown probe type" },
	{ "tracepoint:", "missing tracepoint category" },
	{ "tracepoint:sched", "expected CATEGORY:NAME" },
	{ "tracepoint:sched:", "missing tracepoint name" },
	{ "tracepoint::sched_switch", "missing tracepoint category" },
	{ "tracepoint:sched:sched switch", "invalid character ' '" },
	{ "tracepoint:sched:sched_switch:extra", "unexpected ':extra' after the spec" },
	{ "tracepoint:sch-ed:x", "invalid character '-'" },
	{ "tracepoint:sched:sched.switch", "invalid character '.'" },
	{ "raw_tracepoint:", "missing tracepoint name" },
	{ "kprobe:", "missing function name" },
	{ "kprobe:tcp/sendmsg", "invalid character '/'" },
	{ "kretprobe:a b", "invalid character ' '" },
	{ "latency:", "a latency pair is" },
	{ "latency:raw_tracepoint:x", "a latency pair is" },
	{ "latency:kprobe:", "missing function name" },
	{ "latency:tracepoint:syscalls:sys_enter_nanosleep", "expected ','" },
	{ "latency:tracepoint:syscalls:sys_enter_nanosleep,", "missing tracepoint category" },
	{ "latency:tracepoint:syscalls:sys_enter_nanosleep,syscalls",
	  "expected CATEGORY:NAME" },
	{ "latency:tracepoint:a:b,c:d,e:f", "invalid character ','" },
};

static void test_valid(void)
{
	char why[256], back[SPEC_MAX_TEXT + 1];
	struct probe_spec s;

	for (size_t i = 0; i < sizeof(valid) / sizeof(valid[0]); i++) {
		int rc = spec_parse(valid[i].text, &s, why, sizeof(why));

		ok(rc == 0 && s.kind == valid[i].kind && strcmp(s.name, valid[i].name) == 0 &&
			   strcmp(s.exit_name, valid[i].exit_name) == 0,
		   "'%s' parses", valid[i].text);
		if (rc != 0)
			diag("%s", why);
		spec_format(&s, back, sizeof(back));
		ok(strcmp(back, valid[i].text) == 0, "and prints back the same");
	}
}

static void test_invalid(void)
{
	char why[256];
	struct probe_spec s;

	for (size_t i = 0; i < sizeof(invalid) / sizeof(invalid[0]); i++) {
		why[0] = '\0';
		ok(spec_parse(invalid[i].text, &s, why, sizeof(why)) == -1 &&
			   strstr(why, invalid[i].reason) != NULL,
		   "'%s' is refused: %s", invalid[i].text, why);
	}
}

static void test_limits(void)
{
	char text[400], why[256];
	struct probe_spec s;

	memset(text, 'a', sizeof(text));
	memcpy(text, "kprobe:", 7);
	text[7 + SPEC_MAX_NAME] = '\0';
	ok(spec_parse(text, &s, why, sizeof(why)) == 0, "a function name of %d characters fits",
	   SPEC_MAX_NAME);
	text[7 + SPEC_MAX_NAME] = 'a';
	text[7 + SPEC_MAX_NAME + 1] = '\0';
	ok(spec_parse(text, &s, why, sizeof(why)) == -1 && strstr(why, "longer than"),
	   "one more is refused: %s", why);
	memset(text, 'a', sizeof(text));
	memcpy(text, "tracepoint:", 11);
	text[SPEC_MAX_TEXT + 1] = '\0';
	ok(spec_parse(text, &s, why, sizeof(why)) == -1 && strstr(why, "longer than 200"),
	   "a spec over 200 characters is refused: %s", why);
	ok(spec_parse(NULL, &s, why, sizeof(why)) == -1, "no spec at all is refused");
}

static void test_filters(void)
{
	static const char *bad[] = {
		"pid=0", "pid=-1", "pid=x", "pid=", "pid=2147483648", "cpu=8192", "cpu=-1",
		"every=0", "every=1000001", "every=1e3", "tgid=1", "pid",
		/* what strtol took: a sign, blanks, a wrap at 64 bits */
		"pid=+5", "pid= 5", "pid=5 ", "cpu=-0", "every=-1",
		"pid=18446744073709551617", "every=99999999999999999999",
	};
	struct probe_filter f;
	char why[256], out[64];

	filter_default(&f);
	filter_format(&f, out, sizeof(out));
	ok(f.tgid == -1 && f.cpu == -1 && f.every == 1 && out[0] == '\0',
	   "defaults: every pid, every CPU, every event, printed as nothing");
	ok(filter_parse_word("pid=42", &f, why, sizeof(why)) == 0 &&
		   filter_parse_word("cpu=0", &f, why, sizeof(why)) == 0 &&
		   filter_parse_word("every=10", &f, why, sizeof(why)) == 0,
	   "pid=42 cpu=0 every=10 parse");
	filter_format(&f, out, sizeof(out));
	ok(strcmp(out, " pid=42 cpu=0 every=10") == 0, "and print back: '%s'", out);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		why[0] = '\0';
		ok(filter_parse_word(bad[i], &f, why, sizeof(why)) == -1 && why[0] != '\0',
		   "'%s' is refused: %s", bad[i], why);
	}
	ok(f.tgid == 42 && f.cpu == 0 && f.every == 10, "refused words change nothing");
}

/* A saved row's words: what comes back, or a refusal that changes nothing. */
static void test_saved(void)
{
	static const struct {
		const char *line;
		int rc;
		int32_t tgid, cpu;
		uint32_t every;
		const char *rest;
	} cases[] = {
		{ "tracepoint:a:b -1 -1 1", 0, -1, -1, 1, "" },
		{ "kprobe:f 42 3 10 500 4096 8192", 0, 42, 3, 10, "500 4096 8192" },
		{ "kprobe:f 2147483647 8191 1000000", 0, INT32_MAX, 8191, 1000000, "" },
		{ "kprobe:f 0 0 1", 0, 0, 0, 1, "" },
		{ "kprobe:f -2 0 1", -1, 0, 0, 0, NULL },
		{ "kprobe:f 4294967295 0 1", -1, 0, 0, 0, NULL },   /* %d made it -1 */
		{ "kprobe:f 4294967296 0 1", -1, 0, 0, 0, NULL },   /* %d made it 0 */
		{ "kprobe:f -1 -1 -1", -1, 0, 0, 0, NULL },         /* %u made it 2^32-1 */
		{ "kprobe:f -1 8192 1", -1, 0, 0, 0, NULL },
		{ "kprobe:f -1 -1 0", -1, 0, 0, 0, NULL },
		{ "kprobe:f -1 -1 1000001", -1, 0, 0, 0, NULL },
		{ "kprobe:f 1x -1 1", -1, 0, 0, 0, NULL },
		{ "kprobe:f +1 -1 1", -1, 0, 0, 0, NULL },
		{ "kprobe:f 1 2", -1, 0, 0, 0, NULL },
		{ "kprobe:f", -1, 0, 0, 0, NULL },
		{ "", -1, 0, 0, 0, NULL },
		{ " kprobe:f 1 2 3", -1, 0, 0, 0, NULL },
	};
	char spec[SPEC_MAX_TEXT + 1], buf[300], big[400];
	struct probe_filter f, want;
	const char *at;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		filter_default(&f);
		at = cases[i].line;
		int rc = spec_filter_restore(&at, spec, &f);

		if (cases[i].rc == 0)
			ok(rc == 0 && f.tgid == cases[i].tgid && f.cpu == cases[i].cpu &&
				   f.every == cases[i].every && strcmp(at, cases[i].rest) == 0,
			   "saved '%s' reads back", cases[i].line);
		else
			ok(rc == -1 && f.tgid == -1 && f.cpu == -1 && f.every == 1 &&
				   at == cases[i].line, "saved '%s' is refused", cases[i].line);
	}
	want = (struct probe_filter){ .tgid = 77, .cpu = -1, .every = 3 };
	spec_filter_save("tracepoint:sched:sched_switch", &want, buf, sizeof(buf));
	at = buf;
	ok(strcmp(buf, "tracepoint:sched:sched_switch 77 -1 3") == 0 &&
		   spec_filter_restore(&at, spec, &f) == 0 && *at == '\0' &&
		   strcmp(spec, "tracepoint:sched:sched_switch") == 0 &&
		   memcmp(&f, &want, sizeof(f)) == 0, "save and restore round-trip: '%s'", buf);
	memset(big, 'k', sizeof(big));
	snprintf(big + SPEC_MAX_TEXT + 1, sizeof(big) - SPEC_MAX_TEXT - 1, " 1 2 3");
	at = big;
	ok(spec_filter_restore(&at, spec, &f) == -1, "a spec word over %d bytes is refused",
	   SPEC_MAX_TEXT);
}

int main(void)
{
	test_saved();
	test_valid();
	test_invalid();
	test_limits();
	test_filters();
	return done_testing();
}
