/* SPDX-License-Identifier: BSD-2-Clause */
/* counter.c - monotonic served counters and utilisation arithmetic. */
#include "counter.h"

#include <stddef.h>

/*
 * Only forward steps add. A raw reading below the last one means the source
 * restarted or wrapped (CPU offline and back, a perf fd reopened, a narrow
 * kernel field wrapping, or a u64 wrapping near UINT64_MAX): we cannot tell
 * how much happened in between, so we add nothing and continue from the new
 * reading. Guessing a wrap instead would turn a restart into a jump of up to
 * 2^64 in what we serve.
 *
 * The served value itself wraps modulo 2^64 once it passes UINT64_MAX,
 * which is what an SNMP Counter64 does (RFC 2578, 7.1.10): a manager taking
 * deltas modulo 2^64 still sees the right rate.
 */
enum counter_step mono_counter_feed(struct mono_counter *c, uint64_t raw, uint64_t *delta)
{
	uint64_t d = 0;
	enum counter_step step;

	if (!c->primed) {
		c->value = raw;
		c->primed = true;
		step = COUNTER_FIRST;
	} else if (raw >= c->last_raw) {
		d = raw - c->last_raw;
		c->value += d;
		step = COUNTER_FORWARD;
	} else {
		step = COUNTER_BACKWARD;
	}
	c->last_raw = raw;
	if (delta != NULL)
		*delta = d;
	return step;
}

enum counter_step mono_counter_feed_zeroed(struct mono_counter *c, uint64_t raw)
{
	enum counter_step step = mono_counter_feed(c, raw, NULL);

	if (step == COUNTER_BACKWARD)
		c->value += raw;
	return step;
}

void mono_counter_restart(struct mono_counter *c)
{
	c->last_raw = 0;
	c->primed = true;
}

/*
 * round(busy * 10000 / total) for busy < total, exact for any u64, without
 * a 128-bit type: long division one decimal digit at a time. The remainder
 * r stays below total, and r * 10 is built by ten additions that subtract
 * total whenever they would reach it, so nothing overflows.
 */
static uint32_t ratio_10000_slow(uint64_t busy, uint64_t total)
{
	uint64_t r = busy;
	uint32_t q = 0;

	for (int digit = 0; digit < 4; digit++) {
		uint64_t acc = 0;
		uint32_t d = 0;

		for (int k = 0; k < 10; k++) {
			if (acc >= total - r) {
				acc -= total - r;
				d++;
			} else {
				acc += r;
			}
		}
		q = q * 10 + d;
		r = acc;
	}
	/* Round half up: the remainder is at least half of total. */
	return r >= total - r ? q + 1 : q;
}

uint32_t util_hundredths(uint64_t busy_delta, uint64_t total_delta)
{
	if (total_delta == 0)
		return 0;
	if (busy_delta >= total_delta)
		return 10000;
	/* busy * 10000 + total / 2 < total * 10001 fits: every real delta
	 * (2^50 ticks is 350,000 years at 100 Hz) takes this path, and the
	 * slow one only keeps absurd inputs exact. */
	if (total_delta <= UINT64_MAX / 10001)
		return (uint32_t)((busy_delta * 10000 + total_delta / 2) / total_delta);
	return ratio_10000_slow(busy_delta, total_delta);
}

/* Unsigned arithmetic gives the forward distance modulo 2^32, wrap included. */
uint64_t widen_u32(uint64_t last, uint32_t raw)
{
	return last + (uint32_t)(raw - (uint32_t)last);
}

/*
 * Whole seconds and the remainder separately, so neither part overflows.
 * Exact (rounded down) whenever the answer fits in 64 bits; above that,
 * which only a tick count near 2^64 at under 1000 Hz reaches, it saturates
 * at UINT64_MAX rather than wrap, so the result never decreases as ticks
 * grow. hz 0 gives 0.
 */
uint64_t ticks_to_ms(uint64_t ticks, unsigned hz)
{
	uint64_t secs, frac_ms;

	if (hz == 0)
		return 0;
	secs = ticks / hz;
	frac_ms = ticks % hz * 1000 / hz;
	if (secs > (UINT64_MAX - frac_ms) / 1000)
		return UINT64_MAX;
	return secs * 1000 + frac_ms;
}
