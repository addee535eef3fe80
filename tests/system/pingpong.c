/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pingpong - two processes passing one byte back and forth through pipes
 * for SECONDS, the known workload of the trace tests: on one CPU every
 * hand-over is a task switch from one to the other.
 *
 *   pingpong SECONDS [RATE]   prints "PARENT-PID CHILD-PID", then the round
 *                             trips; RATE caps them per second (sleeping
 *                             in between, so a trace's buffers keep up)
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	int ab[2], ba[2];
	double seconds = argc >= 2 ? atof(argv[1]) : 0, rate = argc == 3 ? atof(argv[2]) : 0;
	double start, end;
	long trips = 0;
	pid_t child;
	char c = 'x';

	if (seconds <= 0 || pipe(ab) != 0 || pipe(ba) != 0) {
		fprintf(stderr, "usage: pingpong SECONDS\n");
		return 2;
	}
	child = fork();
	if (child < 0)
		return 1;
	if (child == 0) {
		/* Echoes until the parent closes its end (the only one left). */
		close(ab[1]);
		close(ba[0]);
		while (read(ab[0], &c, 1) == 1 && write(ba[1], &c, 1) == 1)
			;
		return 0;
	}
	close(ab[0]);
	close(ba[1]);
	printf("%d %d\n", (int)getpid(), (int)child);
	fflush(stdout);
	start = now();
	end = start + seconds;
	while (now() < end && write(ab[1], &c, 1) == 1 && read(ba[0], &c, 1) == 1) {
		trips++;
		if (rate > 0 && trips % 100 == 0 && trips > rate * (now() - start))
			usleep((useconds_t)(1e6 * (trips / rate - (now() - start))));
	}
	close(ab[1]);
	waitpid(child, NULL, 0);
	fprintf(stderr, "%ld round trips\n", trips);
	return 0;
}
