/* test_proc.c - /proc/PID parsers and the kept-open process scanner. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "collect/proc.h"
#include "tap.h"

static const struct proc_sample *find(const struct proc_sample *s, int n, pid_t pid)
{
	for (int i = 0; i < n; i++)
		if (s[i].pid == pid)
			return &s[i];
	return NULL;
}

static void parsers(void)
{
	struct proc_sample s;
	uint64_t a, b;

	memset(&s, 0, sizeof(s));
	ok(procstat_parse("4242 (a b) c) R 1 4242 4242 0 -1 4194304 1234 0 5 0 700 300 0 0 20 0 3 0 "
			  "99999 2000000 512 18446744073709551615 1\n", &s) == 0, "comm with ') ' parses");
	ok(strcmp(s.comm, "a b) c") == 0, "comm runs to the last ')': '%s'", s.comm);
	ok(s.state == 'R' && s.minflt == 1234 && s.majflt == 5, "state and faults");
	ok(s.utime_ticks == 700 && s.stime_ticks == 300 && s.threads == 3, "times and threads");
	ok(s.start_ticks == 99999 && s.rss_pages == 512, "start time and rss");
	ok(procstat_parse("812 ((sd-pam)) S 811 811 811 0 -1 1 50 0 0 0 1 2 0 0 20 0 1 0 2500 1 1 1\n",
			  &s) == 0 && strcmp(s.comm, "(sd-pam)") == 0, "comm '(sd-pam)'");
	ok(procstat_parse("6000 (cut) S 1 6000 6000 0 -1 4194304 12 0 0 0 3 4 0 0 20 0 1 0 77", &s) == -1,
	   "a stat cut before rss is refused");
	ok(procstat_parse("", &s) == -1 && errno == EINVAL, "empty stat is refused");
	ok(procstat_parse("12 (x) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 99999999999999999999 1 1\n",
			  &s) == -1, "a start time past 2^64 is refused");
	ok(procstat_parse("\x01\xff(garbage\n", &s) == -1, "garbage is refused");
	ok(schedstat_parse("480000000 12000000 900\n", &a, &b) == 0 && a == 480000000 && b == 12000000,
	   "schedstat runtime and run delay");
	ok(schedstat_parse("x 1 2\n", &a, &b) == -1, "bad schedstat is refused");
	ok(procstatus_parse("Name:\tx\nUid:\t1000\t1000\t1000\t1000\nvoluntary_ctxt_switches:\t7\n"
			    "nonvoluntary_ctxt_switches:\t1\n", &s) == 0 &&
	   s.uid == 1000 && s.vol_ctxsw == 7 && s.invol_ctxsw == 1, "status uid and context switches");
}

static void copy_tree(const char *from, const char *to)
{
	char cmd[1200];

	snprintf(cmd, sizeof(cmd), "cp -r '%s' '%s'", from, to);
	if (system(cmd) != 0)
		perror(cmd);
}

static void put(const char *dir, const char *rel, const char *text)
{
	char path[600];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	f = fopen(path, "r+");
	if (f == NULL)
		f = fopen(path, "w");
	/* In place: the scanner's kept-open fd must see the new text. */
	if (ftruncate(fileno(f), 0) != 0 || fputs(text, f) < 0)
		perror(path);
	fclose(f);
}

static void scanner_on_fixtures(void)
{
	char src[512], dir[] = "/tmp/cm-procs-XXXXXX", path[600];
	struct proc_scanner *ps;
	struct proc_sample *s = NULL;
	const struct proc_sample *p;
	size_t cap = 0;
	int n;

	if (mkdtemp(dir) == NULL)
		return;
	copy_tree(fixture_root(src, sizeof(src), "proc-procs/proc"), dir);
	ps = proc_scanner_new(dir);
	n = proc_scanner_sample(ps, true, &s, &cap);
	ok(n == 5, "five processes; the truncated stat is skipped (%d)", n);
	ok(n == 5 && s[0].pid == 1 && s[4].pid == 5000, "sorted by pid");
	p = find(s, n, 1);
	ok(p && strcmp(p->cmdline, "/sbin/init splash") == 0, "cmdline NULs become spaces");
	ok(p && p->have_schedstat && p->cpu_ns == 480000000 && p->run_delay_ns == 12000000,
	   "schedstat read");
	ok(p && p->have_status && p->vol_ctxsw == 5000 && p->invol_ctxsw == 300, "status read");
	p = find(s, n, 2);
	ok(p && p->cmdline[0] == '\0', "a kernel thread has an empty cmdline");
	p = find(s, n, 5000);
	ok(p && p->state == 'Z' && !p->have_schedstat, "a zombie without schedstat");
	p = find(s, n, 4242);
	ok(p && strcmp(p->comm, "a b) c") == 0 && p->uid == 1000, "odd comm and uid");

	/* A dead process's kept-open stat reads as nothing (or ESRCH). */
	put(dir, "proc/812/stat", "");
	ok(proc_scanner_sample(ps, false, &s, &cap) == 4 && !find(s, 4, 812),
	   "a process whose stat reads empty is dropped without a rescan");

	put(dir, "proc/4242/stat", "4242 (other) S 1 4242 4242 0 -1 1 1 0 0 0 1 1 0 0 20 0 1 0 "
			      "123456 1 7 1\n");
	put(dir, "proc/4242/cmdline", "other");
	n = proc_scanner_sample(ps, false, &s, &cap);
	p = find(s, n, 4242);
	ok(p && p->start_ticks == 123456 && strcmp(p->cmdline, "other") == 0,
	   "a new start time is pid reuse: files reopened, cmdline re-read");

	snprintf(path, sizeof(path), "cp -r '%s/proc/1' '%s/proc/7777'", dir, dir);
	ok(system(path) == 0, "a new process appears in the tree");
	put(dir, "proc/7777/stat", "7777 (newbie) S 1 1 1 0 -1 1 1 0 0 0 1 1 0 0 20 0 1 0 555 1 1 1\n");
	n = proc_scanner_sample(ps, false, &s, &cap);
	ok(!find(s, n, 7777), "not seen before a rescan");
	n = proc_scanner_sample(ps, true, &s, &cap);
	ok(find(s, n, 7777) != NULL, "seen after a rescan");
	proc_scanner_free(ps);
	free(s);
	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	ok(system(path) == 0, "fixture copy removed");
}

static void scanner_live(void)
{
	struct proc_scanner *ps = proc_scanner_new("");
	struct proc_sample *s = NULL;
	size_t cap = 0;
	int n = proc_scanner_sample(ps, true, &s, &cap);
	const struct proc_sample *me = n > 0 ? find(s, n, getpid()) : NULL;

	ok(n > 1, "the live system has processes (%d)", n);
	pid_t child;

	ok(me && strncmp(me->comm, program_invocation_short_name, 15) == 0 && me->state == 'R',
	   "we find ourselves running");
	ok(me && (!me->have_schedstat || me->cpu_ns > 0), "our CPU time in ns");
	child = fork();
	if (child == 0) {
		pause();
		_exit(0);
	}
	n = proc_scanner_sample(ps, true, &s, &cap);
	ok(find(s, n, child) != NULL, "a forked child is followed after a rescan");
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	n = proc_scanner_sample(ps, false, &s, &cap);
	ok(find(s, n, child) == NULL, "and dropped as soon as it is reaped, without a rescan");
	proc_scanner_free(ps);
	free(s);
}

int main(void)
{
	parsers();
	scanner_on_fixtures();
	scanner_live();
	return done_testing();
}
