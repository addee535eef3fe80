/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_cpustat.c - /proc/stat parsing against fixtures, hand-made edge
 * cases and the live file.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "collect/collect.h"
#include "fixture.h"

static struct cpustat_cpu cpus[64];

static int parse_text(const char *text, struct cpustat *st, unsigned cap)
{
	st->cpus = cpus;
	st->cap = cap;
	errno = 0;
	return cpustat_parse(text, st);
}

static int parse_file(const char *fixture, const char *rel, struct cpustat *st, unsigned cap)
{
	const char *text = fixture_text(fixture, rel);

	return text == NULL ? -2 : parse_text(text, st, cap);
}

static void basic(void)
{
	struct cpustat st;

	ok(parse_file("proc-basic", "proc/stat", &st, 64) == 0, "basic /proc/stat parses");
	is_u64(st.ncpu, 2, "two CPUs");
	is_u64(st.total.user, 2852, "aggregate user ticks");
	is_u64(st.total.system, 4713, "aggregate system ticks");
	is_u64(st.total.idle, 828911, "aggregate idle ticks");
	is_u64(st.total.softirq, 86, "aggregate softirq ticks");
	is_u64(st.total.steal, 11, "aggregate steal ticks");
	is_u64(st.cpus[0].cpu, 0, "first row is cpu0");
	is_u64(st.cpus[1].cpu, 1, "second row is cpu1");
	is_u64(st.cpus[1].t.user, 1943, "cpu1 user");
	is_u64(st.cpus[1].t.idle, 412812, "cpu1 idle");
	is_u64(st.cpus[1].t.iowait, 805, "cpu1 iowait");
	is_u64(st.ctxt, 732024, "ctxt");
	is_u64(st.procs_running, 3, "procs_running");
	is_u64(st.procs_blocked, 1, "procs_blocked");
}

static void offline_and_old(void)
{
	struct cpustat st;

	ok(parse_file("proc-offline", "proc/stat", &st, 64) == 0, "4 CPUs with cpu2 offline parse");
	ok(st.ncpu == 3 && st.cpus[0].cpu == 0 && st.cpus[1].cpu == 1 && st.cpus[2].cpu == 3,
	   "rows keep kernel numbers: 0, 1, 3");
	is_u64(st.cpus[2].t.user, 2000, "cpu3 is the third row");
	ok(parse_file("proc-offline", "proc/stat", &st, 2) == -1 && errno == E2BIG,
	   "more CPUs than the caller's array: E2BIG (caller grows and retries)");
	ok(st.ncpu == 0, "a refused parse leaves no rows");
	ok(parse_file("proc-offline", "proc/stat", &st, 3) == 0, "exactly cap CPUs fit");

	ok(parse_file("proc-old",
	   "proc/stat", &st, 64) == 0, "an old kernel's 7-column stat parses");
	ok(st.cpus[0].t.softirq == 7 && st.cpus[0].t.steal == 0, "missing steal reads 0");
	ok(parse_text("cpu  1 2 3 4\ncpu0 1 2 3 4\nctxt 1\n", &st, 64) == 0 &&
	   st.cpus[0].t.idle == 4 && st.cpus[0].t.iowait == 0, "a 2.4 kernel's 4 columns parse");
	ok(parse_text("cpu  1 2 3 4 5 6 7 8 9 10 11\nctxt 1\n", &st, 64) == 0 &&
	   st.total.steal == 8,
	   "columns past guest_nice from a future kernel are ignored");
	ok(parse_text("cpu  1 2 3 4\nctxt 1\n", &st, 64) == 0 && st.ncpu == 0 &&
	   st.procs_running == 0,
	   "no cpuN lines and no procs lines: 0 rows, 0 tasks");
}

/* The choice documented in cpustat.c: a cut buffer is refused whole. */
static void truncated(void)
{
	struct cpustat st;

	ok(parse_file("bad", "stat-cut-mid-number", &st, 64) == -1 && errno == EINVAL,
	   "cut in the middle of a cpu0 number: EINVAL");
	ok(parse_file("bad", "stat-cut-mid-line", &st, 64) == -1 && errno == EINVAL && st.ncpu == 0,
	   "cut at a blank inside cpu1: EINVAL, no rows");
	ok(parse_file("bad", "stat-cut-after-ctxt", &st, 64) == -1 && errno == EINVAL,
	   "cut inside procs_running after ctxt: still refused, not procs_running 0");
	ok(parse_text("cpu  1 2 3 4 5 6 7 8\nctxt 9\ncpu0 1 2 3 4 5 6 7 8\ncpu1 11 2 3 4",
		      &st, 64) == -1 && errno == EINVAL,
	   "a last cpu line without its newline: EINVAL, not a row with a cut number");
	ok(parse_text("cpu  1 2 3 4\nctxt 9", &st, 64) == -1,
	   "even a complete-looking last line needs its newline");
	ok(parse_file("bad", "empty", &st, 64) == -1 && errno == EINVAL, "empty file: EINVAL");
	ok(parse_text("cpu  1 2 3 4\n", &st, 64) == -1 && errno == EINVAL, "no ctxt line: EINVAL");
	ok(parse_text("ctxt 1\n", &st, 64) == -1 && errno == EINVAL, "no aggregate line: EINVAL");
}

static void garbage(void)
{
	struct cpustat st;

	ok(parse_file("bad",
	   "stat-no-ctxt-ok", &st, 64) == 0 && st.ncpu == 1, "minimal stat parses");
	ok(parse_file("bad",
	   "stat-letters", &st, 64) == -1 && errno == EINVAL, "letters in a number: EINVAL");
	ok(parse_file("bad",
	   "stat-negative", &st, 64) == -1 && errno == EINVAL, "a negative number: EINVAL");
	ok(parse_file("bad",
	   "stat-3-columns", &st, 64) == -1 && errno == EINVAL, "3 time columns: EINVAL");
	ok(parse_file("bad", "stat-overflow", &st, 64) == -1 && errno == EINVAL,
	   "2^64 is refused, not wrapped to 0");
	ok(parse_file("bad", "stat-u64-max", &st, 64) == 0 && st.total.user == UINT64_MAX &&
	   st.cpus[0].t.user == UINT64_MAX && st.ctxt == UINT64_MAX, "2^64-1 itself parses");
	ok(parse_file("bad", "stat-dup-cpu", &st, 64) == -1 && errno == EINVAL,
	   "a CPU listed twice: EINVAL (it would get two rows)");
	ok(parse_text("cpu  1 2 3 4\ncpu1 1 2 3 4\ncpu0 1 2 3 4\nctxt 1\n", &st, 64) == -1,
	   "CPUs out of order: EINVAL");
	ok(parse_text("cpu  1 2 3 4\ncpu  1 2 3 4\nctxt 1\n", &st, 64) == -1,
	   "two aggregate lines: EINVAL");
	ok(parse_text("cpu  1 2 3 4\nctxt 1\nctxt 2\n", &st, 64) == -1, "two ctxt lines: EINVAL");
	ok(parse_text("cpu  1 2 3 4\nctxt 1 2\n", &st, 64) == -1, "junk after ctxt: EINVAL");
	ok(parse_text("cpu  1 2 3 4\nctxt 1.5\n", &st, 64) == -1, "a fraction: EINVAL");
	ok(parse_text("cpu  1 2 3 4\nctxt\n", &st, 64) == -1, "ctxt without a number: EINVAL");
	ok(parse_text("cpu  1 2 3 4x\nctxt 1\n", &st, 64) == -1,
	   "a number running into a word: EINVAL");
	ok(parse_text("cpu  1 2 3 4\ncpu99999999 1 2 3 4\nctxt 1\n", &st, 64) == -1,
	   "an absurd CPU number: EINVAL");
	ok(parse_text("cpu  1 2 3 4\ncpufreq 7\nintr 1 x\nctxt 1\n", &st, 64) == 0 && st.ncpu == 0,
	   "lines that are not ours are skipped unparsed");
	ok(parse_file("bad", "garbage", &st, 64) == -1, "garbage with a NUL is refused");
	ok(parse_file("bad", "binary", &st, 64) == -1, "binary bytes are refused");
}

static void live(void)
{
	struct cpustat st = { 0 };
	const char *text = live_text("proc/stat");

	ok(text != NULL, "live /proc/stat reads");
	ok(text != NULL && parse_text(text, &st, 64) == 0, "live /proc/stat parses");
	is_u64(st.ncpu, (uint64_t)sysconf(_SC_NPROCESSORS_ONLN), "live ncpu equals online CPUs");
	ok(st.ctxt > 0 && st.procs_running > 0, "live ctxt and procs_running (this test runs)");
}

int main(void)
{
	basic();
	offline_and_old();
	truncated();
	garbage();
	live();
	return done_testing();
}
