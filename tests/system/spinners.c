/* SPDX-License-Identifier: BSD-2-Clause */
/* spinners N SECONDS - one process whose N threads each spin on a CPU for
 * SECONDS (the multi-threaded process of tests/system/procfed.sh). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double seconds;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *spin(void *arg)
{
	double end = now() + seconds;
	volatile unsigned long n = 0;

	(void)arg;
	while (now() < end)
		n++;
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[64];
	int n = argc == 3 ? atoi(argv[1]) : 0;

	if (n < 1 || n > 64 || (seconds = atof(argv[2])) <= 0) {
		fprintf(stderr, "usage: spinners N SECONDS (N 1..64)\n");
		return 2;
	}
	for (int i = 1; i < n; i++)
		if (pthread_create(&t[i], NULL, spin, NULL) != 0)
			return 1;
	spin(NULL);
	for (int i = 1; i < n; i++)
		pthread_join(t[i], NULL);
	return 0;
}
