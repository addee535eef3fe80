/* SPDX-License-Identifier: BSD-2-Clause */
/* duty PERCENT SECONDS - spins PERCENT of every 100 ms of its own CPU time
 * and sleeps the rest (a long period: on a loaded machine the wakeups
 * come late, and short periods would bring every loop to one share), for SECONDS (the loops of tests/system/top.sh, whose
 * order a top-N table must match). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double clock_s(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	const double period = 0.100;
	double pct, secs, end, busy;
	struct timespec nap;
	volatile unsigned long n = 0;

	if (argc != 3 || (pct = atof(argv[1])) <= 0 || pct > 100 || (secs = atof(argv[2])) <= 0) {
		fprintf(stderr, "usage: duty PERCENT SECONDS\n");
		return 2;
	}
	busy = period * pct / 100;
	nap.tv_sec = 0;
	nap.tv_nsec = (long)((period - busy) * 1e9);
	end = clock_s(CLOCK_MONOTONIC) + secs;
	while (clock_s(CLOCK_MONOTONIC) < end) {
		/* CPU time, not wall time: a loop preempted on a busy machine
		 * still uses its share. */
		double stop = clock_s(CLOCK_PROCESS_CPUTIME_ID) + busy;

		while (clock_s(CLOCK_PROCESS_CPUTIME_ID) < stop)
			n++;
		if (nap.tv_nsec > 0)
			nanosleep(&nap, NULL);
	}
	return 0;
}
