/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ticker - the machine's own lateness, for comparison with clustermond's
 * sampler: wakes every MS milliseconds on absolute CLOCK_MONOTONIC
 * deadlines for SECONDS seconds at nice -10 (the sampler threads' priority)
 * and prints how many wake-ups came more than twice the interval after the
 * one before, the sampler's own definition of a late sample:
 *
 *   ticker MS SECONDS   ->   "ticks N late L worst-gap-us W"
 *
 * A late tick here means the machine (scheduler, hypervisor) held back a
 * high-priority thread that had nothing to wait for but the clock.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long ms = argc == 3 ? atol(argv[1]) : 0, seconds = argc == 3 ? atol(argv[2]) : 0;
	uint64_t interval, due, end, last, ticks = 0, late = 0, worst = 0;

	if (ms <= 0 || seconds <= 0) {
		fprintf(stderr, "usage: ticker MS SECONDS\n");
		return 2;
	}
	/* Best effort, as in clustermond: without the privilege, normal priority. */
	(void)setpriority(PRIO_PROCESS, 0, -10);
	interval = (uint64_t)ms * 1000000u;
	last = due = mono_ns();
	end = due + (uint64_t)seconds * 1000000000u;
	while (last < end) {
		struct timespec at;
		uint64_t now, gap;

		due += interval;
		at.tv_sec = (time_t)(due / 1000000000u);
		at.tv_nsec = (long)(due % 1000000000u);
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL);
		now = mono_ns();
		gap = now - last;
		ticks++;
		if (gap > 2 * interval)
			late++;
		if (gap > worst)
			worst = gap;
		if (due <= now)   /* fell behind: skip ahead, as the sampler does */
			due = now;
		last = now;
	}
	printf("ticks %llu late %llu worst-gap-us %llu\n", (unsigned long long)ticks,
	       (unsigned long long)late, (unsigned long long)(worst / 1000));
	return 0;
}
