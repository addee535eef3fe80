/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_proc.c - /proc/PID parsers and the kept-open process scanner, on the
 * proc-procs fixtures, on a scratch copy of them that the test edits while
 * the scanner follows it, and on the live system.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "collect/proc.h"
#include "fixture.h"
#include "tap.h"

static char buf[16384];

static const struct proc_sample *find(const struct proc_sample *s, int n, pid_t pid)
{
	for (int i = 0; i < n; i++)
		if (s[i].pid == pid)
			return &s[i];
	return NULL;
}

/* Parses fixture proc/PID/stat; -1 if it cannot be read or is refused. */
static int parse_fixture_stat(int pid, struct proc_sample *s)
{
	char rel[64];

	snprintf(rel, sizeof(rel), "proc/%d/stat", pid);
	if (read_fixture("proc-procs", rel, buf, sizeof(buf)) == NULL)
		return -1;
	return procstat_parse(buf, s);
}

static void stat_fixtures(void)
{
	struct proc_sample s;

	memset(&s, 0, sizeof(s));
	ok(parse_fixture_stat(1, &s) == 0 && s.pid == 1 && strcmp(s.comm, "systemd") == 0,
	   "init's stat parses");
	ok(s.state == 'S' && s.minflt == 45000 && s.majflt == 90, "state and faults");
	is_u64(s.utime_ticks, 150, "utime");
	is_u64(s.stime_ticks, 320, "stime");
	is_u64(s.threads, 1, "threads");
	is_u64(s.start_ticks, 12, "start time");
	is_u64(s.rss_pages, 3000, "rss");

	ok(parse_fixture_stat(4242, &s) == 0 && strcmp(s.comm, "a b) c") == 0,
	   "comm runs from the first '(' to the last ')': '%s'", s.comm);
	ok(s.state == 'R' && s.utime_ticks == 700 && s.stime_ticks == 300 && s.threads == 3 &&
	   s.start_ticks == 99999 && s.rss_pages == 512,
	   "fields after an odd comm, past a negative priority");
	ok(parse_fixture_stat(812, &s) == 0 && strcmp(s.comm, "(sd-pam)") == 0, "comm '(sd-pam)'");
	ok(parse_fixture_stat(2, &s) == 0 && strcmp(s.comm, "kthreadd") == 0 && s.rss_pages == 0,
	   "a kernel thread");
	ok(parse_fixture_stat(5000, &s) == 0 && s.state == 'Z', "a zombie");

	memset(&s, 0x5a, sizeof(s));
	ok(parse_fixture_stat(6000, &s) == -1 && errno == EINVAL, "a stat cut mid-line is refused");
	ok(s.pid == 0x5a5a5a5a && s.comm[0] == 0x5a && s.utime_ticks == 0x5a5a5a5a5a5a5a5aull,
	   "and nothing of it is written");
}

static void stat_bad(void)
{
	static const struct { const char *text, *why; } bad[] = {
		{ "", "empty" },
		{ "\n", "a bare newline" },
		{ "\x01\xff(garbage\n", "garbage" },
		{ "hello world\n", "words" },
		{ "12 x (a) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21\n",
		  "junk between pid and comm" },
		{ "12 (a S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21\n", "no ')'" },
		{ "12 (a) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18\n", "fields missing" },
		{ "12 (a) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21",
		  "no newline (cut after rss)" },
		{ "12 (a) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 99999999999999999999 1 1\n",
		  "a start time past 2^64" },
		{ "12 (a) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 -21\n", "a negative rss" },
		{ "12 (a) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 4294967296 18 19 20 21\n",
		  "more than 2^32 threads" },
		{ "12 (a) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 2x1\n", "a word for rss" },
		{ "0 (a) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21\n", "pid 0" },
		{ "12 (a)  1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21\n", "no state" },
	};
	struct proc_sample s;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		errno = 0;
		ok(procstat_parse(bad[i].text, &s) == -1 && errno == EINVAL, "stat refused: %s",
		   bad[i].why);
	}
	ok(procstat_parse("12 (a) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21\n", &s) == 0 &&
	   s.rss_pages == 21 && s.start_ticks == 19, "the shortest acceptable line (rss last)");
	ok(procstat_parse("12 (0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdefXYZ) "
			  "S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21\n", &s) == 0 &&
	   strlen(s.comm) == PROC_COMM_MAX - 1, "a comm too long is cut to fit");
}

static void schedstat_cases(void)
{
	uint64_t a = 1, b = 1;

	ok(read_fixture("proc-procs", "proc/1/schedstat", buf, sizeof(buf)) != NULL &&
	   schedstat_parse(buf, &a, &b) == 0, "init's schedstat parses");
	is_u64(a, 480000000, "runtime ns");
	is_u64(b, 12000000, "run delay ns");
	a = b = 7;
	ok(schedstat_parse("", &a, &b) == -1 && errno == EINVAL, "empty schedstat is refused");
	ok(schedstat_parse("x 1 2\n", &a, &b) == -1, "garbage schedstat is refused");
	ok(schedstat_parse("480000000 12\n", &a, &b) == 0, "two fields are enough");
	ok(schedstat_parse("480000000 12", &a, &b) == -1, "a cut schedstat is refused");
	ok(schedstat_parse("18446744073709551616 1 1\n", &a, &b) == -1,
	   "a runtime past 2^64 is refused");
	a = b = 7;
	ok(schedstat_parse("5 x 1\n", &a, &b) == -1 && a == 7 && b == 7, "and nothing is written");
}

static void status_cases(void)
{
	struct proc_sample s;

	memset(&s, 0, sizeof(s));
	ok(read_fixture("proc-procs", "proc/4242/status", buf, sizeof(buf)) != NULL &&
	   procstatus_parse(buf, &s) == 0, "a full status parses");
	is_u64(s.uid, 1000, "real uid");
	is_u64(s.vol_ctxsw, 12, "voluntary context switches");
	is_u64(s.invol_ctxsw, 4, "involuntary context switches");
	ok(procstatus_parse("Name:\tx\nTgid:\t4242\nUid:\t5\t0\t0\t0\n", &s) == 0 &&
		   s.tgid == 4242, "the process a thread's status names (Tgid)");
	ok(procstatus_parse("Name:\tx\nTgid:\t99999999999\nUid:\t5\t0\t0\t0\n", &s) != 0,
	   "a Tgid beyond any pid is refused");
	ok(procstatus_parse("Name:\tx\nUid:\t5\t0\t0\t0\n", &s) == 0 && s.uid == 5 &&
	   s.vol_ctxsw == 0 && s.invol_ctxsw == 0, "context switch lines are optional");
	s.uid = 77;
	ok(procstatus_parse("", &s) == -1 && s.uid == 77, "empty status is refused");
	ok(procstatus_parse("Name:\tx\nState:\tS\n", &s) == -1, "status without Uid is refused");
	ok(procstatus_parse("Uid:\t1000\t1000\t1000\t1000\nvoluntary_ctxt_switches:\t9", &s) == -1 &&
	   s.uid == 77, "a cut status is refused whole");
	ok(procstatus_parse("Uid:\t4294967296\t0\t0\t0\n", &s) == -1, "a uid past 2^32 is refused");
	ok(procstatus_parse("Uid:\t1\t0\t0\t0\nvoluntary_ctxt_switches:\t99999999999999999999\n",
			    &s) == -1, "a count past 2^64 is refused");
	ok(procstatus_parse("\x01\xfe garbage\n", &s) == -1, "garbage status is refused");
}

static void pidns_cases(void)
{
	uint64_t ino = 0;

	ok(pidns_link_parse("pid:[4026531836]", &ino) == 0 && ino == PIDNS_INIT_INO,
	   "the initial PID namespace's link");
	ok(pidns_link_parse("pid:[4026532301]", &ino) == 0 && ino == 4026532301u, "a child's link");
	ok(pidns_link_parse("net:[4026531840]", &ino) == -1 && pidns_link_parse("pid:[12", &ino) == -1 &&
	   pidns_link_parse("pid:[]", &ino) == -1 && pidns_link_parse("pid:[1]x", &ino) == -1 &&
	   pidns_link_parse("pid:[99999999999999999999]", &ino) == -1,
	   "a malformed link is refused");
	ok(!proc_self_in_child_pidns("/nonexistent"), "no link: not taken as a child namespace");
	/* The test runs in the namespace make check was started in. */
	{
		struct stat st;
		bool child = stat("/proc/self/ns/pid", &st) == 0 && st.st_ino != PIDNS_INIT_INO;

		ok(proc_self_in_child_pidns("") == child, "this process's namespace as stat sees it");
	}
}

static int sh(const char *fmt, const char *a, const char *b)
{
	char cmd[1400];

	snprintf(cmd, sizeof(cmd), fmt, a, b);
	return system(cmd);
}

/* The first sample of the fixture copy: everything but the cut stat. */
static void first_sample(struct proc_sample *s, int n, struct proc_scanner *ps)
{
	const struct proc_sample *p;

	ok(n == 5, "first sample: five processes, the cut stat skipped (%d)", n);
	ok(proc_scanner_count(ps) == 6, "the unreadable one is still followed (%zu)",
	   proc_scanner_count(ps));
	ok(n == 5 && s[0].pid == 1 && s[1].pid == 2 && s[2].pid == 812 && s[3].pid == 4242 &&
	   s[4].pid == 5000, "sorted by pid");
	p = find(s, n, 1);
	ok(p && strcmp(p->cmdline, "/sbin/init splash") == 0, "cmdline NULs become spaces");
	ok(p && p->have_schedstat && p->cpu_ns == 480000000 && p->run_delay_ns == 12000000,
	   "schedstat read");
	ok(p && p->have_status && p->uid == 0 && p->vol_ctxsw == 5000 && p->invol_ctxsw == 300,
	   "status read when first seen");
	p = find(s, n, 2);
	ok(p && p->cmdline[0] == '\0' && strcmp(p->comm, "kthreadd") == 0,
	   "a kernel thread has an empty cmdline");
	p = find(s, n, 5000);
	ok(p && p->state == 'Z' && !p->have_schedstat && p->cmdline[0] == '\0',
	   "a zombie: no schedstat, no cmdline");
	p = find(s, n, 4242);
	ok(p && strcmp(p->comm, "a b) c") == 0 && p->uid == 1000 &&
	   strcmp(p->cmdline, "./a b) c --flag") == 0, "odd comm, its uid and cmdline");
	ok(p && p->threads == 3 && !p->have_schedstat,
	   "three threads: no schedstat, which counts the main thread only");
	p = find(s, n, 812);
	ok(p && strcmp(p->comm, "(sd-pam)") == 0 && p->utime_ticks == 1, "(sd-pam)");
}

static void status_cadence(const char *dir, struct proc_scanner *ps, struct proc_sample **s,
			   size_t *cap)
{
	const struct proc_sample *p;
	int n;

	fixture_put(dir, "proc/812/status", "Name:\t(sd-pam)\nUid:\t1000\t1000\t1000\t1000\n"
				    "voluntary_ctxt_switches:\t70\nnonvoluntary_ctxt_switches:\t3\n");
	n = proc_scanner_sample(ps, 0, s, cap);
	p = find(*s, n, 812);
	ok(p && p->have_status && p->vol_ctxsw == 7, "status is not re-read between rescans");
	proc_scanner_status_quota(ps, 2); /* 1 and 2: the cursor starts at 0 */
	n = proc_scanner_sample(ps, 0, s, cap);
	p = find(*s, n, 812);
	ok(p && p->vol_ctxsw == 7, "a status quota reads the next pids round-robin: 812 waits");
	proc_scanner_status_quota(ps, 3); /* 812 and round to 1, 2 */
	n = proc_scanner_sample(ps, 0, s, cap);
	p = find(*s, n, 812);
	ok(p && p->vol_ctxsw == 7, "at its turn, a process that has not run since keeps its status");
	fixture_put(dir, "proc/812/stat", "812 ((sd-pam)) S 811 811 811 0 -1 1077936448 50 0 0 0 "
		    "2 2 0 0 20 0 1 0 2500 107000000 1200 18446744073709551615 1 1 0 0 0 0 0 4096 0 "
		    "0 0 0 17 1 0 0 0 0 0 0 0 0 0 0 0 0 0\n");
	proc_scanner_status_quota(ps, 3); /* 4242, 5000, 1 */
	n = proc_scanner_sample(ps, 0, s, cap);
	proc_scanner_status_quota(ps, 2); /* 2, 812 */
	n = proc_scanner_sample(ps, 0, s, cap);
	p = find(*s, n, 812);
	ok(p && p->vol_ctxsw == 70 && p->invol_ctxsw == 3,
	   "one that ran (its ticks moved) has it read at its turn");
	fixture_put(dir, "proc/812/status", "Name:\t(sd-pam)\nUid:\t1000\t1000\t1000\t1000\n"
				    "voluntary_ctxt_switches:\t71\nnonvoluntary_ctxt_switches:\t3\n");
	n = proc_scanner_sample(ps, PROC_SCAN_FULL, s, cap);
	p = find(*s, n, 812);
	ok(p && p->vol_ctxsw == 71 && p->invol_ctxsw == 3, "status is re-read on a rescan sample");
	fixture_put(dir, "proc/812/status", "garbage\n");
	n = proc_scanner_sample(ps, PROC_SCAN_FULL, s, cap);
	p = find(*s, n, 812);
	ok(p && p->have_status && p->vol_ctxsw == 71, "a bad status keeps the last values");
}

/* A single-threaded process's schedstat is read again only when its stat
 * ticks moved (utime + stime is its runtime in ticks). */
static void schedstat_cadence(const char *dir, struct proc_scanner *ps, struct proc_sample **s,
			      size_t *cap)
{
	const struct proc_sample *p;
	int n;

	fixture_put(dir, "proc/1/schedstat", "485000000 12500000 905\n");
	n = proc_scanner_sample(ps, 0, s, cap);
	p = find(*s, n, 1);
	ok(p && p->have_schedstat && p->cpu_ns == 480000000 && p->run_delay_ns == 12000000,
	   "schedstat kept while the stat ticks stay");
	fixture_put(dir, "proc/1/stat",
		    "1 (systemd) S 0 1 1 0 -1 4194560 45000 900000 90 800 151 320 2000 1800 20 "
		    "0 1 0 12 170000000 3000 18446744073709551615 1 1 0 0 0 0 671173123 4096 "
		    "1260 0 0 0 17 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n");
	n = proc_scanner_sample(ps, 0, s, cap);
	p = find(*s, n, 1);
	ok(p && p->have_schedstat && p->cpu_ns == 485000000 && p->run_delay_ns == 12500000,
	   "and read again once they move");
}

static void gone_and_reused(const char *dir, struct proc_scanner *ps, struct proc_sample **s,
			    size_t *cap)
{
	const struct proc_sample *p;
	int n;

	/* A dead process's kept-open stat fails with ESRCH; an unlinked
	 * regular file would still read, so empty it before removing. */
	fixture_put(dir, "proc/812/stat", "");
	sh("rm -rf '%s/proc/812'", dir, "");
	n = proc_scanner_sample(ps, 0, s, cap);
	ok(n == 4 && !find(*s, n, 812), "a removed pid is gone after the next sample (%d)", n);
	ok(proc_scanner_count(ps) == 5, "and no longer followed");

	sh("rm -rf '%s/proc/2'", dir, "");
	n = proc_scanner_sample(ps, PROC_SCAN_FULL, s, cap);
	ok(n == 3 && !find(*s, n, 2), "a pid missing from the listing is dropped by a rescan");

	fixture_put(dir, "proc/4242/stat", "4242 (other) S 1 4242 4242 0 -1 1 1 0 0 0 1 1 0 0 20 0 1 0 "
				   "123456 1 7 1 1 0 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0\n");
	fixture_put(dir, "proc/4242/cmdline", "other\0");
	fixture_put(dir, "proc/4242/status", "Name:\tother\nUid:\t33\t33\t33\t33\n");
	n = proc_scanner_sample(ps, 0, s, cap);
	p = find(*s, n, 4242);
	ok(p && p->start_ticks == 123456 && strcmp(p->comm, "other") == 0,
	   "a new start time under the same pid is another process");
	ok(p && strcmp(p->cmdline, "other") == 0, "its cmdline is re-read");
	ok(p && p->have_status && p->uid == 33 && p->vol_ctxsw == 0,
	   "its status is read at once, not kept from the old process");
}

static void appears(const char *dir, struct proc_scanner *ps, struct proc_sample **s,
		    size_t *cap)
{
	int n;

	ok(sh("cp -r '%s/proc/1' '%s/proc/7777'", dir, dir) == 0, "a new process dir is made");
	fixture_put(dir, "proc/7777/stat", "7777 (newbie) S 1 1 1 0 -1 1 1 0 0 0 1 1 0 0 20 0 1 0 555 1 1 1\n");
	n = proc_scanner_sample(ps, 0, s, cap);
	ok(!find(*s, n, 7777), "a new pid is not seen before a rescan");
	n = proc_scanner_sample(ps, PROC_SCAN_FULL, s, cap);
	ok(find(*s, n, 7777) != NULL && strcmp(find(*s, n, 7777)->comm, "newbie") == 0,
	   "and seen after one");
	ok(n >= 2 && (*s)[n - 1].pid == 7777, "still sorted");
}

/* Under a low fd limit every process is still followed: only the hottest
 * keep their files open, the rest are opened for one read. */
static void out_of_fds(const char *dir)
{
	struct proc_scanner *ps = proc_scanner_new(dir, 1);
	struct proc_sample *s = NULL;
	struct rlimit old, low;
	size_t cap = 0, held;
	int n, n2, spare = dup(0);

	if (spare < 0 || getrlimit(RLIMIT_NOFILE, &old) != 0) {
		skip("no descriptor to measure from");
		return;
	}
	close(spare);
	low = old;
	low.rlim_cur = (rlim_t)spare + 4; /* one kept process, one file at a time */
	if (setrlimit(RLIMIT_NOFILE, &low) != 0) {
		skip("cannot lower RLIMIT_NOFILE");
		return;
	}
	n = proc_scanner_sample(ps, PROC_SCAN_FULL, &s, &cap);
	n2 = proc_scanner_sample(ps, 0, &s, &cap);
	held = proc_reader_open_fds(proc_scanner_reader(ps));
	setrlimit(RLIMIT_NOFILE, &old);
	ok(n == 4 && n2 == 4, "with 4 spare fds, every process is followed (%d, %d)", n, n2);
	ok(s && n2 == 4 && strcmp(s[0].cmdline, "/sbin/init splash") == 0,
	   "and every cmdline read");
	ok(held <= 2, "one process's files kept open (%zu fds)", held);
	proc_scanner_free(ps);
	free(s);
}

static void scanner_on_fixtures(void)
{
	char src[512], dir[] = "/tmp/cm-procs-XXXXXX", longroot[400];
	struct proc_scanner *ps;
	struct proc_sample *s = NULL;
	size_t cap = 0;
	int n;

	if (mkdtemp(dir) == NULL) {
		perror("mkdtemp");
		return;
	}
	ok(sh("cp -r '%s' '%s'", fixture_root(src, sizeof(src), "proc-procs/proc"), dir) == 0,
	   "fixture tree copied");
	ps = proc_scanner_new(dir, 64);
	ok(ps != NULL, "scanner made");
	if (ps == NULL)
		return;
	n = proc_scanner_sample(ps, PROC_SCAN_FULL, &s, &cap); /* before s is read */
	first_sample(s, n, ps);
	status_cadence(dir, ps, &s, &cap);
	schedstat_cadence(dir, ps, &s, &cap);
	gone_and_reused(dir, ps, &s, &cap);
	appears(dir, ps, &s, &cap);
	proc_scanner_free(ps);
	free(s);
	out_of_fds(dir);
	memset(longroot, 'x', sizeof(longroot) - 1);
	longroot[sizeof(longroot) - 1] = '\0';
	ps = proc_scanner_new(longroot, 64);
	ok(ps == NULL && errno == ENAMETOOLONG, "a root too long is refused");
	proc_scanner_free(ps);
	ok(sh("rm -rf '%s'%s", dir, "") == 0, "fixture copy removed");
}

static void burn_cpu(void)
{
	volatile uint64_t x = 0;

	for (uint64_t i = 0; i < 20000000; i++)
		x += i;
}

static atomic_bool stop_spinning;

static void *spin_until_told(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop_spinning))
		;
	return NULL;
}

/* A second thread burns CPU while the main one sleeps: the process's times
 * must include it (schedstat would show only the sleeping main thread). */
static void two_threads_live(struct proc_scanner *ps, struct proc_sample **s, size_t *cap)
{
	const struct proc_sample *me;
	struct timespec pause_ns = {0, 300000000};
	pthread_t spinner;
	uint64_t ticks0 = 0;
	int n;

	n = proc_scanner_sample(ps, PROC_SCAN_FULL, s, cap);
	me = n > 0 ? find(*s, n, getpid()) : NULL;
	ticks0 = me ? me->utime_ticks + me->stime_ticks : 0;
	atomic_store(&stop_spinning, false);
	if (pthread_create(&spinner, NULL, spin_until_told, NULL) != 0) {
		ok(0, "pthread_create");
		return;
	}
	nanosleep(&pause_ns, NULL);
	n = proc_scanner_sample(ps, PROC_SCAN_FULL, s, cap);
	atomic_store(&stop_spinning, true);
	pthread_join(spinner, NULL);
	me = n > 0 ? find(*s, n, getpid()) : NULL;
	ok(me && me->threads == 2 && !me->have_schedstat,
	   "two threads: schedstat withheld (threads %u)", me ? me->threads : 0);
	/* 300 ms of spinning; a loaded machine may give it much less. */
	ok(me && me->utime_ticks + me->stime_ticks >= ticks0 + 3,
	   "the spinning thread's time is counted (%llu ticks more)",
	   me ? (unsigned long long)(me->utime_ticks + me->stime_ticks - ticks0) : 0ULL);
}

static void scanner_live(void)
{
	struct proc_scanner *ps = proc_scanner_new("", 64);
	struct proc_sample *s = NULL;
	const struct proc_sample *me;
	size_t cap = 0;
	pid_t child;
	int n;

	burn_cpu();
	n = proc_scanner_sample(ps, PROC_SCAN_FULL, &s, &cap);
	me = n > 0 ? find(s, n, getpid()) : NULL;
	ok(n > 1, "the live system has processes (%d)", n);
	/* Under libtool the binary may be lt-test_proc. */
	ok(me && strstr(me->comm, "test_proc") != NULL, "we find ourselves: '%s'",
	   me ? me->comm : "");
	ok(me && me->state == 'R', "running, as we read our own stat");
	if (access("/proc/self/schedstat", R_OK) != 0)
		skip("no /proc/PID/schedstat (CONFIG_SCHED_INFO off)");
	else
		ok(me && me->have_schedstat && me->cpu_ns > 0, "our CPU time in ns");
	ok(me && me->have_status && me->uid == getuid(), "our real uid");
	ok(me && strstr(me->cmdline, "test_proc") != NULL, "our cmdline: '%s'",
	   me ? me->cmdline : "");

	child = fork();
	if (child == 0) {
		alarm(60);
		pause();
		_exit(0);
	}
	n = proc_scanner_sample(ps, PROC_SCAN_FULL, &s, &cap);
	ok(find(s, n, child) != NULL, "a forked child is followed after a rescan");
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	n = proc_scanner_sample(ps, 0, &s, &cap);
	ok(find(s, n, child) == NULL, "and dropped once reaped, without a rescan");
	ok(find(s, n, getpid()) != NULL, "while we stay");
	two_threads_live(ps, &s, &cap);
	proc_scanner_free(ps);
	free(s);
}

static void loadavg_cases(void)
{
	uint32_t pid = 7;

	ok(loadavg_last_pid_parse("0.00 0.01 0.05 1/234 5678\n", &pid) == 0 && pid == 5678,
	   "loadavg: the last pid handed out");
	ok(loadavg_last_pid_parse("0.00 0.01 0.05 1/234 56x\n", &pid) != 0 &&
		   loadavg_last_pid_parse("", &pid) != 0 &&
		   loadavg_last_pid_parse("1 2 3 1/2 99999999999\n", &pid) != 0 &&
		   loadavg_last_pid_parse("1 2 3 1/2 \n", &pid) != 0 && pid == 5678,
	   "loadavg: trailing garbage, nothing, an overflow or no number refused, pid untouched");
}

int main(void)
{
	loadavg_cases();
	stat_fixtures();
	stat_bad();
	schedstat_cases();
	status_cases();
	pidns_cases();
	scanner_on_fixtures();
	scanner_live();
	return done_testing();
}
