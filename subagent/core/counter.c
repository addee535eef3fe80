/* counter.c - monotonic served counters and utilisation arithmetic. */
#include "counter.h"

#include <stddef.h>

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
		/* Went backwards (CPU hot-plug, a reopened source, a narrow kernel
		 * field wrapping): we cannot know how much happened in between,
		 * so add nothing and continue from the new reading. */
		step = COUNTER_BACKWARD;
	}
	c->last_raw = raw;
	if (delta != NULL)
		*delta = d;
	return step;
}

uint32_t util_hundredths(uint64_t busy_delta, uint64_t total_delta)
{
	if (total_delta == 0)
		return 0;
	if (busy_delta >= total_delta)
		return 10000;
	/* busy < total, so busy * 10000 overflows only for deltas above 2^50
	 * ticks; divide first in that case (precision is irrelevant there). */
	if (busy_delta > UINT64_MAX / 10000)
		return (uint32_t)(busy_delta / (total_delta / 10000));
	return (uint32_t)((busy_delta * 10000 + total_delta / 2) / total_delta);
}

uint64_t ticks_to_ms(uint64_t ticks, unsigned hz)
{
	if (hz == 0)
		return 0;
	/* Split so that neither part overflows for any u64 tick count. */
	return (ticks / hz) * 1000 + (ticks % hz) * 1000 / hz;
}
