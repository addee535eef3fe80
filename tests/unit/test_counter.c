/* test_counter.c - monotonic counters, utilisation and tick conversion. */
#include "core/counter.h"
#include "tap.h"

int main(void)
{
	struct mono_counter c = { 0 };
	uint64_t d;

	ok(mono_counter_feed(&c, 500, &d) == COUNTER_FIRST && c.value == 500 && d == 0,
	   "the first reading is served as is");
	ok(mono_counter_feed(&c, 700, &d) == COUNTER_FORWARD && c.value == 700 && d == 200,
	   "forward adds the delta");
	/* A CPU goes offline and comes back with a smaller counter. */
	ok(mono_counter_feed(&c, 100, &d) == COUNTER_BACKWARD && c.value == 700 && d == 0,
	   "backwards: value stays, nothing added");
	ok(mono_counter_feed(&c, 150, &d) == COUNTER_FORWARD && c.value == 750,
	   "then continues from the new baseline");
	c = (struct mono_counter){ 0 };
	mono_counter_feed(&c, UINT64_MAX - 5, NULL);
	ok(mono_counter_feed(&c, 3, &d) == COUNTER_BACKWARD && c.value == UINT64_MAX - 5,
	   "a raw u64 wrap is a re-baseline, never a huge jump");
	c = (struct mono_counter){ 0 };
	mono_counter_feed(&c, 10, NULL);
	mono_counter_feed(&c, 10, &d);
	ok(c.value == 10 && d == 0, "an unchanged reading adds 0");

	is_u64(util_hundredths(0, 0), 0, "no time passed: 0");
	is_u64(util_hundredths(10, 10), 10000, "all busy: 10000");
	is_u64(util_hundredths(11, 10), 10000, "busy above total is clamped");
	is_u64(util_hundredths(1, 3), 3333, "1/3 rounds to 3333");
	is_u64(util_hundredths(2, 3), 6667, "2/3 rounds to 6667");
	is_u64(util_hundredths(UINT64_MAX / 2, UINT64_MAX), 5000, "huge deltas do not overflow");

	is_u64(ticks_to_ms(1, 100), 10, "1 tick at 100 Hz = 10 ms");
	is_u64(ticks_to_ms(3, 250), 12, "3 ticks at 250 Hz = 12 ms");
	is_u64(ticks_to_ms(1234, 1000), 1234, "1000 Hz is identity");
	is_u64(ticks_to_ms(UINT64_MAX / 10, 100), (UINT64_MAX / 10 / 100) * 1000 + (UINT64_MAX / 10 % 100) * 10,
	       "huge tick counts do not overflow");
	is_u64(ticks_to_ms(5, 0), 0, "hz 0 is refused as 0");
	return done_testing();
}
