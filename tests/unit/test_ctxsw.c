/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_ctxsw.c - per-CPU context switches from the software perf counter.
 * Needs CAP_PERFMON, root or perf_event_paranoid <= 0: skipped, with the
 * reason, where the kernel refuses.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "collect/collect.h"
#include "tap.h"

#define SLEEPS 50
#define NTESTS 9

static uint64_t sum_all(const struct ctxsw *c, int *monotonic, uint64_t *per_cpu)
{
	uint64_t sum = 0;

	for (unsigned cpu = 0; cpu < c->cap; cpu++) {
		uint64_t v;

		if (ctxsw_read(c, cpu, &v) != 0)
			continue;
		if (v < per_cpu[cpu])
			*monotonic = 0;
		per_cpu[cpu] = v;
		sum += v;
	}
	return sum;
}

/* Each usleep switches to idle and back: at least one switch per sleep. */
static void sleep_a_lot(void)
{
	for (int i = 0; i < SLEEPS; i++)
		usleep(200);
}

/* The CPU this thread runs on, pinned there so its switches land on it. */
static int pin_here(void)
{
	int cpu = sched_getcpu();
	cpu_set_t set;

	if (cpu < 0)
		return -1;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) == 0 ? cpu : -1;
}

static void counts(struct ctxsw *c)
{
	static uint64_t per_cpu[CPU_SETSIZE];
	int monotonic = 1, cpu = pin_here();
	uint64_t before, after, mine0 = 0, mine1 = 0;

	before = sum_all(c, &monotonic, per_cpu);
	if (cpu >= 0)
		ctxsw_read(c, (unsigned)cpu, &mine0);
	sleep_a_lot();
	sched_yield();
	after = sum_all(c, &monotonic, per_cpu);
	if (cpu >= 0)
		ctxsw_read(c, (unsigned)cpu, &mine1);
	ok(monotonic, "no CPU's count went down between two reads");
	ok(after >= before + SLEEPS, "%d sleeps add at least %d switches (%llu -> %llu)", SLEEPS,
	   SLEEPS, (unsigned long long)before, (unsigned long long)after);
	ok(cpu >= 0 && mine1 >= mine0 + SLEEPS,
	   "they land on the CPU we are pinned to (cpu%d: %llu -> %llu)", cpu,
	   (unsigned long long)mine0, (unsigned long long)mine1);
}

/* The kernel or its settings forbid perf events: a reason to skip. */
static int refused(int err)
{
	return err == EACCES || err == EPERM || err == ENOENT || err == ENOSYS;
}

static void skip_rest(int from, const char *why)
{
	char reason[160];

	snprintf(reason, sizeof(reason), "no perf events: %s", why);
	for (int i = from; i < NTESTS; i++)
		skip(reason);
}

int main(void)
{
	struct ctxsw c, never = { 0 };
	long conf = sysconf(_SC_NPROCESSORS_CONF), onln = sysconf(_SC_NPROCESSORS_ONLN);
	uint64_t v;
	int opened;

	plan(NTESTS);
	ok(ctxsw_read(&never, 0, &v) == -1, "a never-opened set reads as absent");
	ok(ctxsw_open(&c, 0) == -1 && errno == EINVAL && c.fds == NULL, "0 CPUs: EINVAL");
	if (conf > CPU_SETSIZE)
		conf = CPU_SETSIZE;
	opened = ctxsw_open(&c, (unsigned)conf);
	if (opened < 0 && refused(errno)) {
		skip_rest(2, strerror(errno));
		return done_testing();
	}
	ok(opened == onln, "one counter per online CPU (%d of %ld configured, %ld online)", opened,
	   conf, onln);
	if (opened < 0) {
		diag("perf_event_open: %s", strerror(errno));
		skip_rest(3, strerror(errno));
		return done_testing();
	}
	counts(&c);
	ok(ctxsw_read(&c, (unsigned)conf, &v) == -1, "a CPU past the set is absent");
	ctxsw_close(&c);
	ok(c.cap == 0 && c.fds == NULL, "close releases everything");
	ctxsw_close(&c);
	ok(ctxsw_read(&c, 0, &v) == -1, "closed twice, and reads as absent");
	return done_testing();
}
