/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_wireproto.c - common/wire.h, the helper's protocol, both ways: every
 * request and reply line read and written back the same (cases[]), lines
 * the parsers must refuse (bad[]), structs the writer must refuse, and the
 * replies a real clustermon-kprobe gave (tests/fixtures/wire/captured.txt)
 * through the line parser and the subagent's reply parsers.
 */
#include <string.h>

#include "collect/distlist.h"
#include "collect/helper.h"
#include "collect/tracelist.h"
#include "common/wire.h"
#include "fixture.h"
#include "tap.h"

#define SLOTS64 " 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0" \
		" 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 7"

/* Canonical lines: each reads into a struct that writes the same line. */
static const struct { enum wire_verb verb; const char *line; enum wire_reply_kind kind; } cases[] = {
	{ WIRE_HELLO, "ok clustermon-kprobe 1 9f2c-41", WIRE_R_HELLO },
	{ WIRE_DEL, "ok", WIRE_R_OK },
	{ WIRE_ADD, "ok attached", WIRE_R_OK },
	{ WIRE_ADD, "ok unchanged", WIRE_R_OK },
	{ WIRE_ADD, "err unsupported kernel has no kprobes (CONFIG_KPROBES is off)", WIRE_R_ERR },
	{ WIRE_ADD, "err busy at most 64 probes", WIRE_R_ERR },
	{ WIRE_DEL, "err invalid no probe 99", WIRE_R_ERR },
	{ WIRE_TRACE, "err failed", WIRE_R_ERR },
	{ WIRE_LIST, "ok 3", WIRE_R_COUNT },
	{ WIRE_TRACE, "ok started /var/lib/clustermon/traces/4-1700000000", WIRE_R_STARTED },
	{ WIRE_MAPS, "ok maps 131072 2 2", WIRE_R_MAPS },
	{ WIRE_CGMAPS, "ok cgmaps 65536 8192", WIRE_R_CGMAPS },
	{ WIRE_EXITS, "ok exits 2097152", WIRE_R_EXITS },
	{ WIRE_LIST, "probe 1 tracepoint:syscalls:sys_enter_getppid", WIRE_R_PROBE },
	{ WIRE_LIST, "probe 65535 kretprobe:vfs_read pid=5 cpu=1 every=10", WIRE_R_PROBE },
	{ WIRE_LIST, "probe 2 latency:tracepoint:block:block_rq_issue,block:block_rq_complete",
	  WIRE_R_PROBE },
	{ WIRE_READ, "probe 1 10000 10000 0 2 9000 1000", WIRE_R_COUNTS },
	{ WIRE_READ, "hist 2 18446744073709551615" SLOTS64, WIRE_R_HIST },
	{ WIRE_READ, "busy 2 123456789 987654321", WIRE_R_BUSY },
	{ WIRE_READ, "switches 1 42", WIRE_R_SWITCHES },
	{ WIRE_READ, "runqlat 0" SLOTS64, WIRE_R_RUNQLAT },
	{ WIRE_READ, "sensors 1 2 3 4", WIRE_R_SENSORS },
	{ WIRE_READ, "sensors 1 2 3", WIRE_R_SENSORS },
	{ WIRE_READ, "drop 2 17 NOT_SPECIFIED", WIRE_R_DROP },
	{ WIRE_PROCS, "proc 4194304 5 6 2", WIRE_R_PROC },
	{ WIRE_TRACES, "trace 7 finished 10 0 4096 2000 /t/7-1 duration reached", WIRE_R_TRACE },
	{ WIRE_TRACES, "trace 8 running 0 0 0 5 /t/8-1 -", WIRE_R_TRACE },
	{ WIRE_DISTS, "dist 3 5 5 0 100" SLOTS64, WIRE_R_DIST },
};

/* Lines each parser must refuse: cut short, overlong, another version,
 * junk in numbers, out of range. */
static const struct { enum wire_verb verb; const char *line; } bad[] = {
	{ WIRE_HELLO, "" },
	{ WIRE_HELLO, "ok clustermon-kprobe 2 x" },
	{ WIRE_HELLO, "ok clustermon-kprobe 1" },
	{ WIRE_HELLO, "ok clustermon-kprobe 1 x y" },
	{ WIRE_HELLO, "ok clustermon-kprobe 01x x" },
	{ WIRE_ADD, "ok added" },
	{ WIRE_ADD, "ok attached " },
	{ WIRE_ADD, "err" },
	{ WIRE_ADD, "err sorry no" },
	{ WIRE_LIST, "ok 12x" },
	{ WIRE_LIST, "ok -1" },
	{ WIRE_LIST, "ok 1048577" },
	{ WIRE_LIST, "ok  1" },
	{ WIRE_TRACE, "ok started" },
	{ WIRE_TRACE, "ok started a b" },
	{ WIRE_MAPS, "ok maps 3 2 2" },
	{ WIRE_MAPS, "ok maps 4 2 3" },
	{ WIRE_MAPS, "ok maps 4 8193 2" },
	{ WIRE_MAPS, "ok maps 4 2" },
	{ WIRE_CGMAPS, "ok cgmaps 0 2" },
	{ WIRE_CGMAPS, "ok cgmaps 65537 2" },
	{ WIRE_EXITS, "ok exits 3000" },
	{ WIRE_EXITS, "ok exits 2048" },
	{ WIRE_EXITS, "ok exits 134217728" },
	{ WIRE_EXITS, "ok exits 4096 1" },
	{ WIRE_LIST, "probe 1" },
	{ WIRE_LIST, "probe 0 kprobe:x" },
	{ WIRE_LIST, "probe 1 kprobe:x colour=red" },
	{ WIRE_LIST, "probe 1 nonsense" },
	{ WIRE_READ, "probe 1 10 10 0" },
	{ WIRE_READ, "probe 1 10 10 0 2 1" },
	{ WIRE_READ, "probe 1 10 10 0 1 1 1" },
	{ WIRE_READ, "probe 1 10 10 0 0" },
	{ WIRE_READ, "probe 1 10 10 0 8193 1" },
	{ WIRE_READ, "probe 65536 1 1 0 1 1" },
	{ WIRE_READ, "probe 1 18446744073709551616 1 0 1 1" },
	{ WIRE_READ, "hist 1 5 1 2" },
	{ WIRE_READ, "hist 1 5" SLOTS64 " 1" },
	{ WIRE_READ, "runqlat" },
	{ WIRE_READ, "busy 2 1" },
	{ WIRE_READ, "busy 1 -1" },
	{ WIRE_READ, "sensors 1 2" },
	{ WIRE_READ, "sensors 1 2 3 4 5" },
	{ WIRE_READ, "drop 65536 1 X" },
	{ WIRE_READ, "drop 3 20" },
	{ WIRE_READ, "drop 3 20 TWO WORDS" },
	{ WIRE_READ, "bogus 1" },
	{ WIRE_PROCS, "proc 0 1 1 1" },
	{ WIRE_PROCS, "proc 4194305 1 1 1" },
	{ WIRE_PROCS, "proc 5 1 1 4" },
	{ WIRE_PROCS, "proc 5 1 1 0" },
	{ WIRE_PROCS, "proc 5 1 1 1x" },
	{ WIRE_TRACES, "trace 1 running 1 2 3 4 /d" },
	{ WIRE_TRACES, "trace 1 paused 1 2 3 4 /d -" },
	{ WIRE_TRACES, "trace 1 running 1 2 3 4 /d \x01" },
	{ WIRE_DISTS, "dist 1 1 1 1 1" },
};

static void test_cases(void)
{
	char why[256], *text = NULL;
	size_t len = 0;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct wire_reply r, again;
		FILE *out = open_memstream(&text, &len);
		bool parsed = wire_parse_reply(cases[i].verb, cases[i].line, &r, why, sizeof(why)) == 0;
		bool same;

		ok(parsed && r.kind == cases[i].kind, "case %zu reads: %s", i, parsed ? "" : why);
		if (!parsed || out == NULL)
			continue;
		ok(wire_write_reply(out, &r) == 0, "case %zu writes", i);
		fclose(out);
		ok(len > 0 && text[len - 1] == '\n' && strncmp(text, cases[i].line, len - 1) == 0 &&
			   strlen(cases[i].line) == len - 1,
		   "case %zu writes the same line: %s", i, text);
		text[len - 1] = '\0';
		same = wire_parse_reply(cases[i].verb, text, &again, why, sizeof(why)) == 0 &&
		       again.ncpu == r.ncpu &&
		       (r.ncpu == 0 || memcmp(again.cpu, r.cpu, r.ncpu * sizeof(*r.cpu)) == 0) &&
		       memcmp(&again.u, &r.u, sizeof(r.u)) == 0 && again.kind == r.kind;
		ok(same, "case %zu: what it wrote reads back as the same struct", i);
		wire_reply_free(&again);
		wire_reply_free(&r);
		free(text);
		text = NULL;
	}
}

static void test_bad(void)
{
	static char overlong[WIRE_MAX_REPLY_LINE + 16];
	struct wire_reply r;
	char why[256];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		why[0] = '\0';
		ok(wire_parse_reply(bad[i].verb, bad[i].line, &r, why, sizeof(why)) == -1 &&
			   why[0] != '\0' && r.cpu == NULL,
		   "bad line %zu '%.40s' is refused: %s", i, bad[i].line, why);
	}
	strcpy(overlong, "busy 8192");
	for (size_t n = strlen(overlong); n < sizeof(overlong) - 3; n += 2)
		memcpy(overlong + n, " 1", 3);
	ok(wire_parse_reply(WIRE_READ, overlong, &r, why, sizeof(why)) == -1,
	   "a line over %u bytes is refused", (unsigned)WIRE_MAX_REPLY_LINE);
}

/* Structs outside the protocol's bounds write nothing. */
static void test_unwritable(void)
{
	struct wire_reply r[] = {
		{ .kind = WIRE_R_HELLO, .u.hello = { 1, "two words" } },
		{ .kind = WIRE_R_ERR, .u.err = { WIRE_ERR_BUSY, "a\nb" } },
		{ .kind = WIRE_R_COUNTS, .u.counts = { 1, 1, 1, 1 }, .ncpu = 0 },
		{ .kind = WIRE_R_PROC, .u.proc = { 0, 1, 1, WIRE_PROC_RAN } },
		{ .kind = WIRE_R_DROP, .u.drop = { 1, 1, "" } },
		{ .kind = WIRE_R_TRACE, .u.trace = { .id = 1, .dir = "/d", .reason = "-" } },
	};
	char *text = NULL;
	size_t len = 0;

	for (size_t i = 0; i < sizeof(r) / sizeof(r[0]); i++) {
		FILE *out = open_memstream(&text, &len);

		ok(out != NULL && wire_write_reply(out, &r[i]) == -1 && fclose(out) == 0 && len == 0,
		   "struct %zu is not written", i);
		free(text);
		text = NULL;
	}
}

/* Each request line reads and formats back the same. */
static void test_request_cases(void)
{
	static const char *const lines[] = {
		"hello", "list", "read", "traces", "procs", "maps", "cgmaps", "exits", "dists",
		"add 1 kprobe:vfs_read", "add 2 tracepoint:sched:sched_switch pid=7 every=3",
		"del 65535", "stop 9", "undist 4",
		"trace 4 tracepoint:sched:sched_switch cpu=1 duration=2000 bytes=67108864 buffer=8192",
		"dist 5 latency tracepoint:block:block_rq_issue tracepoint:block:block_rq_complete",
	};
	struct wire_request req, again;
	char buf[WIRE_MAX_REQUEST + 2], why[256];

	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		bool ok_parse = wire_parse_request(lines[i], &req, why, sizeof(why)) == 0;
		int n = ok_parse ? wire_format_request(&req, buf, sizeof(buf)) : -1;

		ok(n > 0 && buf[n - 1] == '\n' && (size_t)n - 1 == strlen(lines[i]) &&
			   strncmp(buf, lines[i], (size_t)n - 1) == 0,
		   "request '%s' formats back the same: %s", lines[i], ok_parse ? "" : why);
		if (n > 0)
			buf[n - 1] = '\0';
		ok(n > 0 && wire_parse_request(buf, &again, why, sizeof(why)) == 0 &&
			   memcmp(&again, &req, sizeof(req)) == 0,
		   "and reads back as the same struct");
	}
}

/* ------------------------------------------------------------ captured */

#define NVERBS (WIRE_DISTS + 1)
static char block[NVERBS][32768];

/* One reply line of the capture: read as the reply to verb and written
 * back the same; kept in its verb's block for the reply parsers. */
static void captured_line(enum wire_verb verb, const char *line, size_t lineno)
{
	struct wire_reply r;
	char why[256], *text = NULL;
	size_t len = 0;
	FILE *out;
	bool same = false;

	if (wire_parse_reply(verb, line, &r, why, sizeof(why)) == 0 &&
	    (out = open_memstream(&text, &len)) != NULL) {
		same = wire_write_reply(out, &r) == 0 && fclose(out) == 0 && len == strlen(line) + 1 &&
		       strncmp(text, line, len - 1) == 0;
		free(text);
		wire_reply_free(&r);
	}
	ok(same, "captured line %zu '%.40s' reads and writes back the same %s", lineno, line,
	   same ? "" : why);
	if (strlen(block[verb]) + strlen(line) + 2 < sizeof(block[verb])) {
		strcat(block[verb], line);
		strcat(block[verb], "\n");
	}
}

static void captured_parsers(void)
{
	static char joined[3 * 32768];
	struct helper_reading rd;
	struct helper_procs procs;
	struct helper_maps_reply maps;
	struct tracelist_entry *tl;
	struct distlist_entry *dl;
	uint64_t entries, ncpu;
	size_t n;
	char why[256];

	/* Each parse runs before ok() reads what it found. */
	bool read;

	snprintf(joined, sizeof(joined), "%s%s%s", block[WIRE_HELLO], block[WIRE_LIST], block[WIRE_READ]);
	read = helper_parse_poll(joined, &rd, why, sizeof(why)) == 0;
	ok(read && rd.nprobes > 0 && rd.has_sched && rd.has_sensors,
	   "the captured poll reads: %zu probes, sensors %d %s", rd.nprobes, rd.has_sched, why);
	helper_reading_free(&rd);
	snprintf(joined, sizeof(joined), "%s%s", block[WIRE_HELLO], block[WIRE_PROCS]);
	read = helper_parse_procs(joined, &procs, why, sizeof(why)) == 0;
	ok(read && procs.n > 0, "the captured procs reply reads: %zu processes", procs.n);
	helper_procs_free(&procs);
	snprintf(joined, sizeof(joined), "%s%s", block[WIRE_HELLO], block[WIRE_MAPS]);
	ok(helper_parse_maps(joined, &maps, why, sizeof(why)) == 0, "the captured maps reply reads");
	snprintf(joined, sizeof(joined), "%s%s", block[WIRE_HELLO], block[WIRE_CGMAPS]);
	ok(helper_parse_cgmaps(joined, &entries, &ncpu) == 0, "the captured cgmaps reply reads");
	read = tracelist_parse(block[WIRE_TRACES], &tl, &n, why, sizeof(why)) == 0;
	ok(read && n > 0, "the captured traces reply reads: %zu sessions", n);
	free(tl);
	read = distlist_parse(block[WIRE_DISTS], &dl, &n, why, sizeof(why)) == 0;
	ok(read && n > 0, "the captured dists reply reads: %zu rows", n);
	free(dl);
}

/* tests/fixtures/wire/captured.txt: ">> REQUEST" lines, each followed by
 * the reply the helper gave (the file says how it was captured). */
static void test_captured(void)
{
	const char *text = fixture_text("wire", "captured.txt");
	enum wire_verb verb = WIRE_HELLO;
	char line[WIRE_MAX_REPLY_LINE + 1], why[256];
	size_t lineno = 0;

	if (!ok(text != NULL, "the captured replies are there"))
		return;
	while (*text) {
		size_t n = strcspn(text, "\n");
		struct wire_request req;

		lineno++;
		snprintf(line, sizeof(line), "%.*s", (int)n, text);
		text += n + (text[n] == '\n');
		if (line[0] == '#' || line[0] == '\0')
			continue;
		if (strncmp(line, ">> ", 3) == 0) {
			ok(wire_parse_request(line + 3, &req, why, sizeof(why)) == 0,
			   "captured request '%s' reads", line + 3);
			verb = req.verb;
			continue;
		}
		captured_line(verb, line, lineno);
	}
	captured_parsers();
}

int main(void)
{
	test_cases();
	test_bad();
	test_unwritable();
	test_request_cases();
	test_captured();
	return done_testing();
}
