/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * bench_proc.c - per-process sample cost with 1000 idle processes alive:
 * the kept-open pread scanner of collect/proc.c (stat + schedstat) against a
 * WallMon-style reader that, for every pid readdir lists, fopen+fscanf's
 * /proc/PID/stat and /proc/PID/statm and fcloses them. Rounds alternate so
 * both see the same machine state; medians are printed. A benchmark, not a
 * test: it always exits 0 once it could run.
 */
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "collect/proc.h"

#define CHILDREN 1000
#define ROUNDS 31

static pid_t kids[CHILDREN];
static int nkids;

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

/* The naive way, as WallMon's procfs collector did it: processes counted. */
static int wallmon_style(void)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	int n = 0;

	if (d == NULL)
		return 0;
	while ((de = readdir(d)) != NULL) {
		char path[300], comm[64], state;
		unsigned long ut, st, size, rss;
		int pid, got;
		FILE *f;

		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", de->d_name);
		if ((f = fopen(path, "r")) == NULL)
			continue;
		got = fscanf(f, "%d %63s %c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu",
			     &pid, comm, &state, &ut, &st);
		fclose(f);
		snprintf(path, sizeof(path), "/proc/%s/statm", de->d_name);
		if ((f = fopen(path, "r")) == NULL)
			continue;
		if (fscanf(f, "%lu %lu", &size, &rss) == 2 && got == 5)
			n++;
		fclose(f);
	}
	closedir(d);
	return n;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Three kept-open files per process: make room for them. */
static void raise_nofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

static void spawn(void)
{
	for (nkids = 0; nkids < CHILDREN; nkids++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("fork (carrying on with fewer)");
			break;
		}
		if (pid == 0) {
			alarm(120); /* never outlive a crashed benchmark */
			pause();
			_exit(0);
		}
		kids[nkids] = pid;
	}
}

static void reap(void)
{
	for (int i = 0; i < nkids; i++)
		kill(kids[i], SIGKILL);
	while (wait(NULL) > 0)
		;
}

int main(void)
{
	double ours[ROUNDS], theirs[ROUNDS], rescan_us, t0;
	struct proc_scanner *ps;
	struct proc_sample *s = NULL;
	size_t cap = 0;
	int n = 0, m = 0;

	raise_nofile();
	spawn();
	usleep(200000); /* let every child reach pause() */
	ps = proc_scanner_new("");
	if (ps == NULL) {
		reap();
		return 1;
	}
	t0 = now_us();
	n = proc_scanner_sample(ps, true, &s, &cap); /* opens every process once */
	rescan_us = now_us() - t0;
	wallmon_style(); /* warm the dentry cache for the other side too */
	for (int r = 0; r < ROUNDS; r++) {
		t0 = now_us();
		n = proc_scanner_sample(ps, false, &s, &cap);
		ours[r] = (now_us() - t0) / (n > 0 ? n : 1);
		t0 = now_us();
		m = wallmon_style();
		theirs[r] = (now_us() - t0) / (m > 0 ? m : 1);
	}
	reap();
	qsort(ours, ROUNDS, sizeof(double), cmp);
	qsort(theirs, ROUNDS, sizeof(double), cmp);
	printf("children: %d; processes: %d (scanner, followed %zu) / %d (fopen+fscanf)\n", nkids,
	       n, proc_scanner_count(ps), m);
	printf("first sample with rescan (opens all): %.2f us per process\n",
	       rescan_us / (n > 0 ? n : 1));
	printf("per process, median of %d: kept-open pread stat+schedstat %.2f us, "
	       "fopen+fscanf stat+statm %.2f us\n", ROUNDS, ours[ROUNDS / 2], theirs[ROUNDS / 2]);
	printf("ratio scanner/wallmon-style: %.2f (target <= 0.4)\n",
	       ours[ROUNDS / 2] / theirs[ROUNDS / 2]);
	proc_scanner_free(ps);
	free(s);
	return 0;
}
