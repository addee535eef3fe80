/* SPDX-License-Identifier: BSD-2-Clause */
/* test_counter.c - monotonic counters, utilisation and tick conversion. */
#include "core/counter.h"
#include "tap.h"

static void feeds(void)
{
	struct mono_counter c = { 0 };
	uint64_t d = 99;

	ok(mono_counter_feed(&c, 500, &d) == COUNTER_FIRST && c.value == 500 && d == 0,
	   "the first reading is served as is");
	ok(mono_counter_feed(&c, 700, &d) == COUNTER_FORWARD && c.value == 700 && d == 200,
	   "forward adds the delta");
	ok(mono_counter_feed(&c, 700, &d) == COUNTER_FORWARD && c.value == 700 && d == 0,
	   "an unchanged reading adds 0");
	/* A CPU goes offline and comes back with a smaller counter. */
	ok(mono_counter_feed(&c, 100, &d) == COUNTER_BACKWARD && c.value == 700 && d == 0,
	   "backwards: value stays, nothing added");
	ok(mono_counter_feed(&c, 150, &d) == COUNTER_FORWARD && c.value == 750 && d == 50,
	   "then continues from the new baseline");
	ok(mono_counter_feed(&c, 0, NULL) == COUNTER_BACKWARD && c.value == 750,
	   "back to 0 (a reopened perf fd), delta pointer NULL");
	ok(mono_counter_feed(&c, 10, NULL) == COUNTER_FORWARD && c.value == 760, "and on from 0");
}

static void offline_online(void)
{
	/* cpu2's idle ticks across an offline/online cycle: the kernel resets
	 * nothing today, but hot-plugged CPUs and reopened counters do. */
	const uint64_t raw[] = { 1000, 1100, 1200, 5, 50, 1300, 1300, 20, 40 };
	struct mono_counter c = { 0 };
	uint64_t last = 0;
	int never_down = 1;

	for (unsigned i = 0; i < sizeof(raw) / sizeof(raw[0]); i++) {
		mono_counter_feed(&c, raw[i], NULL);
		if (c.value < last)
			never_down = 0;
		last = c.value;
	}
	ok(never_down, "over an offline/online cycle the served value never decreases");
	/* 1000 +100 +100, 5 (back) +45, +1250, +0, 20 (back) +20 */
	is_u64(c.value, 2515, "and adds exactly the forward steps");
}

static void wraps(void)
{
	struct mono_counter c = { 0 };
	uint64_t d;

	mono_counter_feed(&c, UINT64_MAX - 5, NULL);
	ok(mono_counter_feed(&c, UINT64_MAX, &d) == COUNTER_FORWARD && d == 5 &&
	   c.value == UINT64_MAX,
	   "forward up to UINT64_MAX");
	ok(mono_counter_feed(&c, 3, &d) == COUNTER_BACKWARD && d == 0 && c.value == UINT64_MAX,
	   "a raw u64 wrap is a re-baseline, never a jump of 2^64 - 3");
	ok(mono_counter_feed(&c, 10, &d) == COUNTER_FORWARD && d == 7 && c.value == 6,
	   "the served value wraps modulo 2^64 like a Counter64 (RFC 2578)");
	c = (struct mono_counter){ 0 };
	mono_counter_feed(&c, (uint64_t)UINT32_MAX - 1, NULL);
	ok(mono_counter_feed(&c, 2, &d) == COUNTER_BACKWARD && c.value == (uint64_t)UINT32_MAX - 1,
	   "a u32 kernel field wrapping is a re-baseline too (one interval lost)");
}

static void widened(void)
{
	uint64_t v = widen_u32(0, 7);

	is_u64(v, 7, "a first u32 reading is itself");
	v = widen_u32(v, UINT32_MAX);
	is_u64(v, UINT32_MAX, "up to the top of the u32 range");
	v = widen_u32(v, 4);
	is_u64(v, (uint64_t)UINT32_MAX + 5, "a u32 wrap carries into bit 32");
	v = widen_u32(v, 4);
	is_u64(v, (uint64_t)UINT32_MAX + 5, "no change, no step");
	v = widen_u32((uint64_t)5 << 32 | 0xfffffff0u, 0x10);
	is_u64(v, (uint64_t)6 << 32 | 0x10, "the fifth wrap too");
}

/* round(busy * 10000 / total) by 128-bit arithmetic, as a reference. */
static int util_matches_reference(uint64_t busy, uint64_t total)
{
#ifdef __SIZEOF_INT128__
	unsigned __int128 b = busy, t = total, want = (b * 20000 + t) / (t * 2);

	return util_hundredths(busy, total) == (uint32_t)want;
#else
	(void)busy;
	(void)total;
	return 1;
#endif
}

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void utilisation(void)
{
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	int all = 1;

	is_u64(util_hundredths(0, 0), 0, "no time passed: 0");
	is_u64(util_hundredths(5, 0), 0, "busy but no total: 0, not a division by zero");
	is_u64(util_hundredths(0, 100), 0, "idle: 0");
	is_u64(util_hundredths(10, 10), 10000, "all busy: 10000");
	is_u64(util_hundredths(11, 10), 10000, "busy above total is clamped");
	is_u64(util_hundredths(UINT64_MAX, 1), 10000, "busy far above total is clamped");
	is_u64(util_hundredths(1, 3), 3333, "1/3 rounds down to 3333");
	is_u64(util_hundredths(2, 3), 6667, "2/3 rounds up to 6667");
	is_u64(util_hundredths(1, 20000), 1, "0.005% rounds half up to 1");
	is_u64(util_hundredths(1, 20001), 0, "just under half rounds to 0");
	is_u64(util_hundredths(19999, 20000), 10000, "99.995% rounds up to 10000");
	is_u64(util_hundredths(UINT64_MAX / 2, UINT64_MAX), 5000, "huge deltas do not overflow");
	is_u64(util_hundredths(UINT64_MAX - 1, UINT64_MAX), 10000, "huge, almost all busy");
	is_u64(util_hundredths(1, UINT64_MAX), 0, "huge, almost idle");
	is_u64(util_hundredths(UINT64_MAX / 10001, UINT64_MAX / 10001 + 1), 10000,
	       "just past the fast path's bound");
	for (int i = 0; i < 100000; i++) {
		uint64_t total = xorshift(&seed) >> (xorshift(&seed) % 64);
		uint64_t busy = total ? xorshift(&seed) % total : 0;

		if (total && !util_matches_reference(busy, total)) {
			diag("busy %llu total %llu", (unsigned long long)busy,
			     (unsigned long long)total);
			all = 0;
			break;
		}
	}
	ok(all, "100000 random (busy, total) pairs of every size round like 128-bit arithmetic");
}

static void milliseconds(void)
{
	uint64_t prev = 0;
	int monotonic = 1;

	is_u64(ticks_to_ms(0, 100), 0, "0 ticks");
	is_u64(ticks_to_ms(1, 100), 10, "1 tick at 100 Hz = 10 ms");
	is_u64(ticks_to_ms(12345, 100), 123450, "12345 ticks at 100 Hz");
	is_u64(ticks_to_ms(1, 250), 4, "1 tick at 250 Hz = 4 ms");
	is_u64(ticks_to_ms(3, 250), 12, "3 ticks at 250 Hz = 12 ms");
	is_u64(ticks_to_ms(1234, 1000), 1234, "1000 Hz is identity");
	is_u64(ticks_to_ms(1, 1024), 0, "1 tick at 1024 Hz (alpha) rounds down to 0 ms");
	is_u64(ticks_to_ms(1025, 1024), 1000, "1025 ticks at 1024 Hz = 1000.98 ms, rounded down");
	is_u64(ticks_to_ms(UINT64_MAX, 1000), UINT64_MAX, "u64 max at 1000 Hz is exact");
	is_u64(ticks_to_ms(UINT64_MAX, 1024),
	       UINT64_MAX / 1024 * 1000 + UINT64_MAX % 1024 * 1000 / 1024,
	       "u64 max at 1024 Hz is exact");
	is_u64(ticks_to_ms(UINT64_MAX / 10, 100), 18446744073709551610ull,
	       "UINT64_MAX / 10 ticks at 100 Hz: the largest exact answer near the top");
	is_u64(ticks_to_ms(UINT64_MAX / 100 * 4, 250), UINT64_MAX / 100 * 16,
	       "huge tick counts at 250 Hz stay exact");
	is_u64(ticks_to_ms(UINT64_MAX / 10 + 1, 100), UINT64_MAX,
	       "an answer past 2^64 saturates instead of wrapping");
	is_u64(ticks_to_ms(UINT64_MAX, 100), UINT64_MAX, "u64 max at 100 Hz saturates");
	is_u64(ticks_to_ms(5, 0), 0, "hz 0 is refused as 0");
	for (uint64_t t = UINT64_MAX / 10 - 1000; t < UINT64_MAX / 10 + 1000; t++) {
		uint64_t ms = ticks_to_ms(t, 100);

		if (ms < prev)
			monotonic = 0;
		prev = ms;
	}
	ok(monotonic, "never decreases as ticks grow, across the saturation point");
}

/* The helper's counters: restarted at zero by a re-attach or a new helper. */
static void zeroed(void)
{
	struct mono_counter c = { 0 };

	mono_counter_feed_zeroed(&c, 40);
	is_u64(c.value, 40, "zeroed: the first reading is the value");
	mono_counter_feed_zeroed(&c, 50);
	is_u64(c.value, 50, "zeroed: forward steps add");
	ok(mono_counter_feed_zeroed(&c, 7) == COUNTER_BACKWARD, "zeroed: a step back is reported");
	is_u64(c.value, 57, "zeroed: after a step back the new reading counts in full");
	mono_counter_restart(&c);
	mono_counter_feed_zeroed(&c, 5);
	is_u64(c.value, 62, "restart: the new producer's first reading counts in full");

	c = (struct mono_counter){ 0 };
	mono_counter_restart(&c);
	mono_counter_feed_zeroed(&c, 9);
	is_u64(c.value, 9, "restart before any reading: value = first reading");
}

int main(void)
{
	feeds();
	zeroed();
	offline_online();
	wraps();
	widened();
	utilisation();
	milliseconds();
	return done_testing();
}
