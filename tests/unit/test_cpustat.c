/* test_cpustat.c - /proc/stat parsing against fixtures and the live file. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "collect/collect.h"
#include "tap.h"

static struct cpustat_cpu cpus[64];
static char buf[1 << 16];

static int parse_file(const char *fixture, const char *rel, struct cpustat *st, unsigned cap)
{
	char root[512];
	struct procfile pf;
	int rc;

	if (procfile_open(&pf, fixture_root(root, sizeof(root), fixture), rel) != 0)
		return -2;
	rc = procfile_read(&pf, buf, sizeof(buf)) < 0 ? -2 : 0;
	procfile_close(&pf);
	st->cpus = cpus;
	st->cap = cap;
	return rc == 0 ? cpustat_parse(buf, st) : rc;
}

int main(void)
{
	struct cpustat st;

	ok(parse_file("proc-basic", "proc/stat", &st, 64) == 0, "basic /proc/stat parses");
	is_u64(st.ncpu, 2, "two CPUs");
	is_u64(st.total.user, 2852, "aggregate user ticks");
	is_u64(st.total.steal, 11, "aggregate steal ticks");
	is_u64(st.cpus[1].cpu, 1, "second row is cpu1");
	is_u64(st.cpus[1].t.idle, 412812, "cpu1 idle");
	is_u64(st.cpus[1].t.iowait, 805, "cpu1 iowait");
	is_u64(st.ctxt, 732024, "ctxt");
	is_u64(st.procs_running, 3, "procs_running");
	is_u64(st.procs_blocked, 1, "procs_blocked");

	ok(parse_file("proc-offline", "proc/stat", &st, 64) == 0, "a stat with cpu2 offline parses");
	ok(st.ncpu == 3 && st.cpus[2].cpu == 3, "rows keep kernel numbers: 0, 1, 3");
	ok(parse_file("proc-offline", "proc/stat", &st, 2) == -1 && errno == E2BIG,
	   "more CPUs than the caller's array: E2BIG (caller grows and retries)");

	ok(parse_file("proc-old", "proc/stat", &st, 64) == 0, "an old kernel's 7-column stat parses");
	ok(st.cpus[0].t.softirq == 7 && st.cpus[0].t.steal == 0, "missing steal reads 0");

	ok(parse_file("bad", "empty", &st, 64) == -1 && errno == EINVAL, "empty file: EINVAL");
	ok(parse_file("bad", "stat-cut-mid-number", &st, 64) == -1,
	   "cut before ctxt: refused (no ctxt line)");
	ok(parse_file("bad", "stat-no-ctxt-ok", &st, 64) == 0 && st.ncpu == 1, "minimal stat parses");
	ok(parse_file("bad", "stat-letters", &st, 64) == -1 && errno == EINVAL, "letters in a number: EINVAL");
	ok(parse_file("bad", "stat-overflow", &st, 64) == -1, "a number over 2^64-1 is refused, not wrapped");
	ok(parse_file("bad", "garbage", &st, 64) == -1, "binary garbage is refused");

	/* A cpu line cut mid-number is dropped, not served with half a number. */
	strcpy(buf, "cpu  1 2 3 4 5 6 7 8\nctxt 9\ncpu0 1 2 3 4 5 6 7 8\ncpu1 11 2 3 4");
	st.cpus = cpus;
	st.cap = 64;
	ok(cpustat_parse(buf, &st) == 0 && st.ncpu == 1, "a last line without newline is ignored");

	{
		struct procfile pf;

		ok(procfile_open(&pf, "", "proc/stat") == 0 && procfile_read(&pf, buf, sizeof(buf)) > 0,
		   "live /proc/stat reads");
		procfile_close(&pf);
		st.cpus = cpus;
		st.cap = 64;
		ok(cpustat_parse(buf, &st) == 0, "live /proc/stat parses");
		is_u64(st.ncpu, (uint64_t)sysconf(_SC_NPROCESSORS_ONLN), "live ncpu equals online CPUs");
	}
	return done_testing();
}
