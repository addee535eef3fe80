/*
 * bench_proc.c - per-process sample cost with 1000 idle processes alive:
 * the kept-open pread scanner of collect/proc.c against a WallMon-style
 * reader that fopen+fscanf's /proc/PID/stat and statm for every pid. Rounds
 * alternate so both see the same machine. Prints medians and the ratio.
 */
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "collect/proc.h"

#define CHILDREN 1000
#define ROUNDS 21

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* The naive way, as WallMon's procfs collector does it. */
static int wallmon_style(void)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	int n = 0;

	while ((de = readdir(d)) != NULL) {
		char path[300], comm[64], state;
		unsigned long ut, st, size, rss;
		int pid;
		FILE *f;

		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", de->d_name);
		if ((f = fopen(path, "r")) == NULL)
			continue;
		if (fscanf(f, "%d %63s %c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu",
			   &pid, comm, &state, &ut, &st) == 5)
			n++;
		fclose(f);
		snprintf(path, sizeof(path), "/proc/%s/statm", de->d_name);
		if ((f = fopen(path, "r")) == NULL)
			continue;
		if (fscanf(f, "%lu %lu", &size, &rss) != 2)
			n--;
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

int main(void)
{
	static pid_t kids[CHILDREN];
	double ours[ROUNDS], theirs[ROUNDS];
	struct proc_scanner *ps = proc_scanner_new("");
	struct proc_sample *s = NULL;
	size_t cap = 0;
	int n = 0, m = 0;

	for (int i = 0; i < CHILDREN; i++) {
		kids[i] = fork();
		if (kids[i] == 0) {
			alarm(120); /* never outlive a crashed benchmark */
			pause();
			_exit(0);
		}
	}
	usleep(200000);
	proc_scanner_sample(ps, true, &s, &cap); /* opens every process once */
	for (int r = 0; r < ROUNDS; r++) {
		double t0 = now_us();

		n = proc_scanner_sample(ps, false, &s, &cap);
		ours[r] = (now_us() - t0) / n;
		t0 = now_us();
		m = wallmon_style();
		theirs[r] = (now_us() - t0) / m;
	}
	for (int i = 0; i < CHILDREN; i++)
		kill(kids[i], SIGKILL);
	while (wait(NULL) > 0)
		;
	qsort(ours, ROUNDS, sizeof(double), cmp);
	qsort(theirs, ROUNDS, sizeof(double), cmp);
	printf("processes: %d (scanner) / %d (fopen+fscanf)\n", n, m);
	printf("per process: kept-open pread scanner %.2f us, fopen+fscanf stat+statm %.2f us\n",
	       ours[ROUNDS / 2], theirs[ROUNDS / 2]);
	printf("ratio scanner/wallmon-style: %.2f (target <= 0.4)\n", ours[ROUNDS / 2] / theirs[ROUNDS / 2]);
	proc_scanner_free(ps);
	free(s);
	return 0;
}
