/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * bench_proc.c - per-process sample cost with 1000 idle processes alive:
 * the scanner of collect/procscan.c (stat + schedstat) with every file kept open
 * and with its bounded reader (issue 23), against a
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

/* One sample of every process by ps, in us per process. */
static double per_process(struct proc_scanner *ps, struct proc_sample **s, size_t *cap, int *n)
{
	double t0 = now_us();

	*n = proc_scanner_sample(ps, 0, s, cap);
	return (now_us() - t0) / (*n > 0 ? *n : 1);
}

int main(void)
{
	double all[ROUNDS], bounded[ROUNDS], theirs[ROUNDS], rescan_us, t0;
	struct proc_scanner *ps, *pb;
	struct proc_sample *s = NULL;
	size_t cap = 0;
	int n = 0, nb = 0, m = 0;

	raise_nofile();
	spawn();
	usleep(200000); /* let every child reach pause() */
	/* Every process kept open (the scanner before issue 23) against the
	 * bounded reader clustermond uses (64 hot, the rest opened per read). */
	ps = proc_scanner_new("", 4 * CHILDREN);
	pb = proc_scanner_new("", 64);
	if (ps == NULL || pb == NULL) {
		reap();
		return 1;
	}
	t0 = now_us();
	n = proc_scanner_sample(ps, PROC_SCAN_FULL, &s, &cap); /* opens every process once */
	rescan_us = now_us() - t0;
	proc_scanner_sample(pb, PROC_SCAN_FULL, &s, &cap);
	wallmon_style(); /* warm the dentry cache for the other side too */
	for (int r = 0; r < ROUNDS; r++) {
		all[r] = per_process(ps, &s, &cap, &n);
		bounded[r] = per_process(pb, &s, &cap, &nb);
		t0 = now_us();
		m = wallmon_style();
		theirs[r] = (now_us() - t0) / (m > 0 ? m : 1);
	}
	reap();
	qsort(all, ROUNDS, sizeof(double), cmp);
	qsort(bounded, ROUNDS, sizeof(double), cmp);
	qsort(theirs, ROUNDS, sizeof(double), cmp);
	printf("children: %d; processes: %d (all kept open) / %d (bounded) / %d (fopen+fscanf)\n",
	       nkids, n, nb, m);
	printf("first sample with rescan (opens all): %.2f us per process\n",
	       rescan_us / (n > 0 ? n : 1));
	printf("per process, median of %d: every file kept open (pread) %.2f us, bounded "
	       "(64 kept, rest opened per read) %.2f us, fopen+fscanf stat+statm %.2f us\n",
	       ROUNDS, all[ROUNDS / 2], bounded[ROUNDS / 2], theirs[ROUNDS / 2]);
	printf("fds held: all kept %zu, bounded %zu\n",
	       proc_reader_open_fds(proc_scanner_reader(ps)),
	       proc_reader_open_fds(proc_scanner_reader(pb)));
	printf("ratio bounded/all-kept: %.2f; bounded/wallmon-style: %.2f\n",
	       bounded[ROUNDS / 2] / all[ROUNDS / 2], bounded[ROUNDS / 2] / theirs[ROUNDS / 2]);
	proc_scanner_free(ps);
	proc_scanner_free(pb);
	free(s);
	return 0;
}
