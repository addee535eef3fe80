/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_demand.c - sampling that follows demand (sampler.h), on a fake clock
 * without threads: a source nobody reads goes idle after its hold (two
 * intervals, at least SOURCE_DEMAND_MIN_MS) and takes no samples; a demand
 * wakes it at once and says so; held, it samples only when read since its
 * last sample, and a read after an unread deadline waits for a fresh one;
 * a reader that comes back every N ms keeps its cadence for 2N; "always"
 * pins it; a source with an idle part keeps running that part, uncounted;
 * the sample someone waited for is announced.
 */
#include <string.h>

#include "runtime/sampler.h"
#include "fake_clock.h"
#include "tap.h"

#define MS FAKE_MS
#define T0 (1000 * MS)

static unsigned cpu_runs, tcp_runs, tcp_idle_runs, announced;

static int cpu_sample(void *ctx) { (void)ctx; cpu_runs++; return 0; }
static int tcp_sample(void *ctx) { (void)ctx; tcp_runs++; return 0; }
static int tcp_idle(void *ctx) { (void)ctx; tcp_idle_runs++; return 0; }
static void *init(const char *root) { (void)root; return &cpu_runs; }
static void fini(void *ctx) { (void)ctx; }
static void announce(void) { announced++; }

static const struct source_ops cpu_ops = {
	.index = SOURCE_CPU, .name = "cpu", .default_interval_ms = 100,
	.init = init, .sample = cpu_sample, .fini = fini,
};
static const struct source_ops tcp_ops = {
	.index = SOURCE_TCP, .name = "tcp", .default_interval_ms = 1000,
	.init = init, .sample = tcp_sample, .sample_idle = tcp_idle, .fini = fini,
};

static enum source_state state(unsigned index)
{
	struct source_stats st;

	memset(&st, 0, sizeof(st));
	sampler_stats(index, &st);
	return st.state;
}

/* Runs both threads' due sources at T0 + ms. */
static void run_at(uint64_t ms)
{
	fake_now = T0 + ms * MS;
	sampler_run_due(0);
}

/* Every 100 ms from `from` to `to`: what a running sampler thread does. */
static void run_span(uint64_t from, uint64_t to)
{
	for (uint64_t t = from; t <= to; t += 100)
		run_at(t);
}

static void idles_and_wakes(void)
{
	run_span(0, 500);
	ok(state(SOURCE_CPU) == SOURCE_STATE_IDLE && cpu_runs == 1,
	   "unread after the prime: cpu idle at its first deadline, no sample but the prime's");
	ok(sampler_samples(SOURCE_CPU) == 1, "its samples counter stands at 1");
	ok(sampler_demand(1u << SOURCE_CPU, 0) == 1u << SOURCE_CPU,
	   "a read of it wakes it, and says so");
	ok(state(SOURCE_CPU) == SOURCE_STATE_DEMAND, "onDemand at once");
	ok(sampler_demand(1u << SOURCE_CPU, 0) == 1u << SOURCE_CPU,
	   "a second read before that sample waits for it too (the snapshot is the idle spell's)");
	run_at(550);
	ok(cpu_runs == 2 && announced == 1,
	   "it samples once, at once, and the sample is announced once");
	{
		struct source_stats st;

		sampler_stats(SOURCE_CPU, &st);
		ok(st.late == 0, "the idle spell before it is not a late sample");
	}
	run_span(650, 3450);
	ok(cpu_runs == 2 && state(SOURCE_CPU) == SOURCE_STATE_DEMAND,
	   "held 3 s (the floor over 2 x 100 ms) but unread: awake, no sample after the wake's");
	run_span(3550, 6000);
	ok(state(SOURCE_CPU) == SOURCE_STATE_IDLE && cpu_runs == 2,
	   "past the hold: idle, not one sample more");
	ok(announced == 1, "samples nobody waited for are not announced");
}

/* Awake, a source samples at a deadline only when read since its last
 * sample; a read that comes after a deadline passed unread finds the
 * snapshot older than an interval, and gets a sample at once. */
static void read_then_stale(void)
{
	struct source_stats st;

	fake_now = T0 + 6000 * MS;
	sampler_demand(1u << SOURCE_CPU, 0);
	run_at(6000);
	ok(cpu_runs == 3, "woken at +6 s: one sample");
	fake_now = T0 + 6050 * MS;
	ok(sampler_demand(1u << SOURCE_CPU, 0) == 0,
	   "a read 50 ms after it finds the snapshot fresh: nothing to wait for");
	ok(sampler_fresh_until(1u << SOURCE_CPU) == T0 + 6200 * MS,
	   "fresh until the deadline after the next (the next one samples)");
	run_at(6100);
	ok(cpu_runs == 4, "that read buys the next deadline's sample");
	ok(sampler_fresh_until(1u << SOURCE_CPU) == T0 + 6200 * MS,
	   "unread since: fresh until the next deadline only");
	run_at(6200);
	ok(cpu_runs == 4, "unread since: the deadline after passes without one");
	ok(sampler_fresh_until(1u << SOURCE_CPU) == 0, "and it is stale: a read must wait");
	fake_now = T0 + 6250 * MS;
	ok(sampler_demand(1u << SOURCE_CPU, 0) == 1u << SOURCE_CPU,
	   "a read after that deadline finds it stale, and waits (the same as a wake)");
	ok(state(SOURCE_CPU) == SOURCE_STATE_DEMAND, "still onDemand, not idle");
	run_at(6250);
	ok(cpu_runs == 5 && announced == 3, "it samples at once, announced for the reader");
	sampler_stats(SOURCE_CPU, &st);
	ok(st.late == 0, "skipped deadlines are no late samples");
	run_span(6350, 9200);
	ok(cpu_runs == 5 && state(SOURCE_CPU) == SOURCE_STATE_DEMAND,
	   "held 3 s from that read, unread: no more samples");
	run_span(9300, 9500);
	ok(state(SOURCE_CPU) == SOURCE_STATE_IDLE, "then idle");
}

static void held_by_a_reader(void)
{
	unsigned before = cpu_runs;
	uint64_t t;

	fake_now = T0 + 10000 * MS;
	ok(sampler_demand(1u << SOURCE_CPU, (2ull * 5000 + 1000) * MS) == 1u << SOURCE_CPU,
	   "a threshold's read wakes it");
	for (t = 10000; t <= 20900; t += 100)
		run_at(t);
	fake_now = T0 + 20950 * MS;
	ok(sampler_fresh_until(1u << SOURCE_CPU) == T0 + 21000 * MS,
	   "held by the threshold, fresh until the deadline after its cadence");
	ok(state(SOURCE_CPU) == SOURCE_STATE_DEMAND && cpu_runs - before == 110,
	   "a threshold every 5 s keeps its cadence 11 s, unread between: %u samples",
	   cpu_runs - before);
	for (; t <= 22000; t += 100)
		run_at(t);
	ok(state(SOURCE_CPU) == SOURCE_STATE_IDLE && cpu_runs - before == 110,
	   "and at +21 s it is idle");
}

static void held_idle_part(void)
{
	unsigned full = tcp_runs, part = tcp_idle_runs;

	fake_now = T0 + 23000 * MS;
	sampler_demand(1u << SOURCE_TCP, 0);
	run_at(23000);
	ok(tcp_runs == full + 1, "tcp woken: one full sample");
	run_span(23100, 25900);
	ok(state(SOURCE_TCP) == SOURCE_STATE_DEMAND && tcp_runs == full + 1,
	   "held unread: no full sample at +24 s and +25 s");
	ok(tcp_idle_runs == part + 2, "but its idle part runs at those deadlines");
	run_span(26000, 26000);
	ok(state(SOURCE_TCP) == SOURCE_STATE_IDLE, "idle when the hold ends");
}

static void idle_part(void)
{
	unsigned full = tcp_runs;

	run_span(27000, 30000);
	ok(state(SOURCE_TCP) == SOURCE_STATE_IDLE && tcp_runs == full,
	   "tcp unread: idle, no full sample");
	ok(tcp_idle_runs >= 3, "but its idle part runs on the timer (once a second)");
	ok(sampler_samples(SOURCE_TCP) == full, "and is not counted as a sample");
}

static void pinned(void)
{
	unsigned before = cpu_runs;

	fake_now = T0 + 31000 * MS;
	sampler_set_always(SOURCE_CPU, true);
	ok(state(SOURCE_CPU) == SOURCE_STATE_TIMER, "always: timer");
	ok(sampler_fresh_until(1u << SOURCE_CPU) == UINT64_MAX, "pinned: always fresh");
	run_span(31000, 41000);
	ok(cpu_runs - before >= 99, "pinned, it samples unread: %u in 10 s", cpu_runs - before);
	sampler_set_always(SOURCE_CPU, false);
	run_span(41100, 45000);
	ok(state(SOURCE_CPU) == SOURCE_STATE_IDLE, "unpinned and unread: idle");
}

int main(void)
{
	fake_clock_start(T0);
	ok(sampler_add(&cpu_ops, "") == 0 && sampler_add(&tcp_ops, "") == 0, "two sources");
	sampler_on_sample(announce);
	sampler_prime();
	idles_and_wakes();
	read_then_stale();
	held_by_a_reader();
	held_idle_part();
	idle_part();
	pinned();
	sampler_stop();
	fake_clock_stop();
	return done_testing();
}
