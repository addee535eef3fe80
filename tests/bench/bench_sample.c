/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * bench_sample.c - the cost of one cpu+mem sample as clustermond takes it
 * (kept-open fds, pread, parse, snapshot) against a naive reader that opens,
 * reads and closes the same files every time. Both run interleaved in one
 * process so machine noise hits them alike. Prints medians and the ratio.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sources/cpu.h"
#include "sources/mem.h"

#define ROUNDS 2000

static const char *const files[] = {
	"/proc/stat", "/proc/meminfo", "/proc/vmstat", "/proc/pressure/cpu",
	"/proc/pressure/io", "/proc/pressure/memory",
};

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* The naive way: open, read to EOF, close, for each file. */
static void naive_sample(char *buf, size_t cap)
{
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		int fd = open(files[i], O_RDONLY);

		if (fd < 0)
			continue;
		while (read(fd, buf, cap) > 0)
			;
		close(fd);
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(void)
{
	void *cpu = cpu_source_ops.init(""), *mem = mem_source_ops.init("");
	static double ours[ROUNDS], naive[ROUNDS];
	static char buf[1 << 16];
	double m_ours, m_naive;

	if (cpu == NULL || mem == NULL) {
		perror("bench_sample: init");
		return 1;
	}
	for (int i = 0; i < ROUNDS; i++) {
		double t0 = now_us();

		cpu_source_ops.sample(cpu);
		mem_source_ops.sample(mem);
		ours[i] = now_us() - t0;
		t0 = now_us();
		naive_sample(buf, sizeof(buf));
		naive[i] = now_us() - t0;
	}
	qsort(ours, ROUNDS, sizeof(double), cmp_double);
	qsort(naive, ROUNDS, sizeof(double), cmp_double);
	m_ours = ours[ROUNDS / 2];
	m_naive = naive[ROUNDS / 2];
	printf("cpu+mem sample: median %.1f us (p99 %.1f), open+read+close of the same files: "
	       "median %.1f us\n", m_ours, ours[ROUNDS * 99 / 100], m_naive);
	printf("ratio sample/naive: %.2f; at 100 Hz the sample costs %.2f%% of a core "
	       "(target: median <= 50 us, < 0.5%%)\n", m_ours / m_naive, m_ours * 100 / 1e4);
	cpu_source_ops.fini(cpu);
	mem_source_ops.fini(mem);
	snapshot_clear(cpu_source_ops.slot);
	snapshot_clear(mem_source_ops.slot);
	return m_ours <= 50.0 ? 0 : 3;
}
