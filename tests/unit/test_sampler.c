/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_sampler.c - the sampler's deadlines and lateness rules on a fake clock
 * (common/clock.h), without threads: sampler_prime and sampler_run_due are the
 * steps its threads take. Deadlines stay absolute whatever a sample costs, a
 * source more than two intervals behind is late and skips ahead once instead
 * of bursting, and an interval change takes effect as sampler.h promises.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/sampler.h"
#include "runtime/snapshot.h"
#include "fake_clock.h"
#include "tap.h"

#define MS FAKE_MS
#define T0 (1000 * MS)   /* not 0: the sampler reads 0 as "never ran" */

struct fake {
	unsigned runs, finis;
	uint64_t cost_ns, last_at;
	int rc;
};

static struct fake cpu, mem, proc;
static struct snapshot_slot mem_slot = SNAPSHOT_SLOT_INIT;
static unsigned destroyed;

static int fake_sample(void *ctx)
{
	struct fake *f = ctx;

	f->runs++;
	f->last_at = fake_now;
	fake_now += f->cost_ns; /* the sample "takes" this long */
	return f->rc;
}

static void fake_fini(void *ctx)
{
	((struct fake *)ctx)->finis++;
}

static void destroy(struct snapshot *s)
{
	destroyed++;
	free(s);
}

static void *init_cpu(const char *root) { (void)root; return &cpu; }
static void *init_mem(const char *root) { (void)root; return &mem; }
static void *init_proc(const char *root) { (void)root; return &proc; }

static const struct source_ops cpu_ops = {
	.index = SOURCE_CPU, .name = "cpu", .default_interval_ms = 10, .own_thread = false, .pinned = true,
	.init = init_cpu, .sample = fake_sample, .fini = fake_fini,
};
static const struct source_ops mem_ops = {
	.index = SOURCE_MEM, .name = "mem", .slot = &mem_slot,
	.default_interval_ms = 25, .own_thread = false, .pinned = true,
	.init = init_mem, .sample = fake_sample, .fini = fake_fini,
};
static const struct source_ops proc_ops = {
	.index = SOURCE_PROC, .name = "proc", .default_interval_ms = 100, .own_thread = true, .pinned = true,
	.init = init_proc, .sample = fake_sample, .fini = fake_fini,
};

static struct source_stats stats(unsigned index)
{
	struct source_stats st;

	memset(&st, 0, sizeof(st));
	sampler_stats(index, &st);
	return st;
}

/* Sets the clock to T0 + ms and runs the shared thread's due sources. */
static uint64_t run_at(uint64_t ms)
{
	fake_now = T0 + ms * MS;
	return sampler_run_due(0);
}

static void scheduling(void)
{
	ok(run_at(5) == T0 + 10 * MS && cpu.runs == 1 && mem.runs == 1,
	   "before any deadline nothing runs; next deadline is cpu's at +10 ms");
	ok(run_at(10) == T0 + 20 * MS && cpu.runs == 2 && mem.runs == 1,
	   "at +10 ms only cpu runs; its next deadline +20 ms");
	ok(proc.runs == 1, "the shared thread never runs an own_thread source");
	ok(sampler_run_due(SOURCE_PROC) == T0 + 100 * MS && proc.runs == 1,
	   "proc's own thread: not due before +100 ms");

	cpu.cost_ns = 3 * MS;
	ok(run_at(20) == T0 + 25 * MS && cpu.runs == 3, "a 3 ms sample at +20 ms; mem due next");
	ok(stats(SOURCE_CPU).last_cost_us == 3000, "its cost is measured on the clock: 3000 us");
	cpu.cost_ns = 0;
	ok(run_at(25) == T0 + 30 * MS && mem.runs == 2,
	   "cpu's next deadline stayed +30 ms: a slow sample does not shift the schedule");
}

static void lateness(void)
{
	ok(run_at(38) == T0 + 40 * MS && cpu.runs == 4 && cpu.last_at == T0 + 38 * MS,
	   "8 ms behind: one run, and the next deadline keeps its phase (+40 ms)");
	ok(stats(SOURCE_CPU).late == 0, "18 ms between starts is not late (limit: 2 intervals)");

	ok(run_at(75) == T0 + 85 * MS && cpu.runs == 5,
	   "37 ms behind: one run, no burst; the schedule skips ahead to now + interval");
	ok(stats(SOURCE_CPU).late == 1, "37 ms between starts of a 10 ms source counts as late");
	ok(mem.runs == 3 && stats(SOURCE_MEM).late == 0,
	   "mem, 50 ms between starts of a 25 ms source: exactly 2 intervals is not late");
}

static void interval_changes(void)
{
	ok(sampler_set_interval(SOURCE_MEM, 10) == 0 && sampler_interval(SOURCE_MEM) == 10,
	   "mem's interval shortened to 10 ms at +75 ms");
	ok(run_at(85) == T0 + 95 * MS && mem.runs == 4 && cpu.runs == 6,
	   "a shorter interval takes effect now: mem runs at +85 ms, not at its old +100 ms");

	ok(sampler_set_interval(SOURCE_CPU, 1000) == 0, "cpu's interval lengthened to 1 s");
	ok(run_at(95) == T0 + 105 * MS && cpu.runs == 7 && mem.runs == 5,
	   "a longer interval keeps the deadline already set (+95 ms)");
	ok(run_at(105) == T0 + 115 * MS && cpu.runs == 7 && mem.runs == 6,
	   "then cpu waits its new second; mem keeps its 10 ms");
	ok(run_at(1095) == T0 + 1105 * MS && cpu.runs == 8, "cpu runs again 1 s later");
	ok(stats(SOURCE_CPU).late == 1, "a lengthened interval is not counted late");

	ok(sampler_set_interval(SOURCE_CPU, 9) == -1 && errno == EINVAL, "9 ms refused (EINVAL)");
	ok(sampler_set_interval(SOURCE_TCP, 100) == -1 && errno == ENOENT,
	   "a source not added refused (ENOENT)");
	ok(sampler_interval(SOURCE_CPU) == 1000, "a refused change leaves the interval");
}

static void errors(void)
{
	struct source_stats before = stats(SOURCE_MEM), after;

	mem.rc = -1;
	run_at(1105);
	after = stats(SOURCE_MEM);
	ok(after.samples == before.samples + 1 && after.errors == before.errors + 1,
	   "a failed sample is counted as a sample and as an error");
	mem.rc = 0;
	ok(stats(SOURCE_CPU).samples == cpu.runs && stats(SOURCE_CPU).errors == 0,
	   "samples counted = runs");
}

int main(void)
{
	fake_clock_start(T0);
	ok(sampler_add(&cpu_ops, "") == 0 && sampler_add(&mem_ops, "") == 0 &&
	   sampler_add(&proc_ops, "") == 0, "three fake sources added");
	ok(sampler_interval(SOURCE_CPU) == 10 && sampler_default_interval(SOURCE_MEM) == 25,
	   "intervals start at the defaults");
	sampler_prime();
	ok(cpu.runs == 1 && mem.runs == 1 && proc.runs == 1 && cpu.last_at == T0,
	   "prime samples every source once, at the clock's now");
	scheduling();
	lateness();
	interval_changes();
	errors();
	ok(strcmp(stats(SOURCE_PROC).name, "proc") == 0, "a source's name is its ops' name");
	{
		struct snapshot *s = calloc(1, sizeof(*s));

		s->refs = 1;
		s->destroy = destroy;
		snapshot_publish(&mem_slot, s);
	}
	sampler_stop();
	ok(cpu.finis == 1 && mem.finis == 1 && proc.finis == 1 && !sampler_has(SOURCE_CPU),
	   "stop finishes every source");
	ok(mem_slot.current == NULL && destroyed == 1, "stop clears a source's slot");
	fake_clock_stop();
	return done_testing();
}
