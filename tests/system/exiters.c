// SPDX-License-Identifier: BSD-2-Clause
/*
 * exiters.c - short-lived processes for exits.sh: N children started evenly
 * over SECONDS, each named NAME (prctl), living its own random 2-20 ms of
 * wall time (spinning the first fifth of it, sleeping the rest: the suite
 * shares two CPUs), then writing "PID CPU-NS EXIT" (its own getrusage at exit,
 * user + system) as one line to FILE and exiting with EXIT (pid % 7). The
 * parent reaps them as it goes and exits once every child is reaped.
 *
 * exiters N SECONDS NAME FILE [MIN-MS MAX-MS]
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void child(const char *name, int fd, long long life_ns)
{
	long long t0 = now_ns(), until = t0 + life_ns, spin = t0 + life_ns / 5;
	struct timespec rest;
	struct rusage ru;
	char line[96];
	int code = (int)(getpid() % 7), n;

	prctl(PR_SET_NAME, name);
	while (now_ns() < spin)
		;
	rest.tv_sec = until / 1000000000LL;
	rest.tv_nsec = until % 1000000000LL;
	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &rest, NULL);
	getrusage(RUSAGE_SELF, &ru);
	n = snprintf(line, sizeof(line), "%d %lld %d\n", (int)getpid(),
		     (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000LL +
			     (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000LL,
		     code);
	if (write(fd, line, (size_t)n) != n)
		_exit(99);
	_exit(code);
}

int main(int argc, char **argv)
{
	int n, fd, left;
	long long start, gap, lo = 2, hi = 20;

	if (argc < 5 || (n = atoi(argv[1])) <= 0) {
		fprintf(stderr, "usage: exiters N SECONDS NAME FILE [MIN-MS MAX-MS]\n");
		return 2;
	}
	if (argc >= 7)
		lo = atoll(argv[5]), hi = atoll(argv[6]);
	fd = open(argv[4], O_WRONLY | O_CREAT | O_APPEND | O_TRUNC, 0644);
	if (fd < 0)
		return 1;
	gap = (long long)(atof(argv[2]) * 1e9) / n;
	start = now_ns();
	srand((unsigned)getpid());
	for (int i = 0; i < n; i++) {
		long long life = (lo + rand() % (hi - lo + 1)) * 1000000LL;
		pid_t p;

		long long at = start + i * gap;
		struct timespec ts = { .tv_sec = at / 1000000000LL, .tv_nsec = at % 1000000000LL };

		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		p = fork();
		if (p == 0)
			child(argv[3], fd, life);
		if (p < 0)
			return 1;
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
	}
	for (left = 1; left > 0;)
		left = waitpid(-1, NULL, 0) > 0;
	return 0;
}
