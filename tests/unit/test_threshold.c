/* SPDX-License-Identifier: BSD-2-Clause */
/* test_threshold.c - every RMON alarm transition, startup, hysteresis, deltas. */
#include "core/threshold.h"
#include "tap.h"

static int events(struct threshold *t, const uint64_t *v, int n, enum threshold_event *out)
{
	int k = 0;

	for (int i = 0; i < n; i++) {
		enum threshold_event e = threshold_feed(t, v[i]);

		if (e != THRESHOLD_NONE)
			out[k++] = e;
	}
	return k;
}

int main(void)
{
	struct threshold t;
	enum threshold_event ev[32];
	int n;

	ok(threshold_init(&t, THRESHOLD_ABSOLUTE, STARTUP_BOTH, 10, 20) == -1,
	   "a falling level above the rising one is refused");

	threshold_init(&t, THRESHOLD_ABSOLUTE, STARTUP_BOTH, 80, 20);
	ok(threshold_feed(&t, 90) == THRESHOLD_ROSE, "startup both: a first sample above rising rises");
	threshold_init(&t, THRESHOLD_ABSOLUTE, STARTUP_BOTH, 80, 20);
	ok(threshold_feed(&t, 10) == THRESHOLD_FELL, "startup both: a first sample below falling falls");
	threshold_init(&t, THRESHOLD_ABSOLUTE, STARTUP_RISING, 80, 20);
	ok(threshold_feed(&t, 10) == THRESHOLD_NONE, "startup rising: a low first sample is quiet");
	threshold_init(&t, THRESHOLD_ABSOLUTE, STARTUP_FALLING, 80, 20);
	ok(threshold_feed(&t, 90) == THRESHOLD_NONE, "startup falling: a high first sample is quiet");
	ok(threshold_feed(&t, 95) == THRESHOLD_NONE, "and staying high is no crossing");
	ok(threshold_feed(&t, 50) == THRESHOLD_NONE && threshold_feed(&t, 85) == THRESHOLD_ROSE,
	   "going down and up again rises");

	threshold_init(&t, THRESHOLD_ABSOLUTE, STARTUP_RISING, 80, 20);
	{
		/* hovering around the rising level: one event, not a storm */
		const uint64_t v[] = { 50, 81, 79, 81, 79, 82, 78, 90, 30, 85 };

		n = events(&t, v, 10, ev);
		ok(n == 1 && ev[0] == THRESHOLD_ROSE, "hovering around rising: one event (%d)", n);
	}
	{
		const uint64_t v[] = { 19, 21, 19, 21, 15 };

		n = events(&t, v, 5, ev);
		ok(n == 1 && ev[0] == THRESHOLD_FELL, "down to falling: one falling event, hovering adds none (%d)", n);
	}
	{
		const uint64_t v[] = { 50, 80 };

		n = events(&t, v, 2, ev);
		ok(n == 1 && ev[0] == THRESHOLD_ROSE, "re-armed by the fall: rising again fires");
	}
	ok(threshold_feed(&t, 2) == THRESHOLD_FELL && threshold_feed(&t, 90) == THRESHOLD_ROSE,
	   "a jump straight across both levels fires each time");
	threshold_init(&t, THRESHOLD_ABSOLUTE, STARTUP_BOTH, UINT64_MAX, UINT64_MAX - 1);
	ok(threshold_feed(&t, UINT64_MAX - 5) == THRESHOLD_FELL &&
	   threshold_feed(&t, UINT64_MAX) == THRESHOLD_ROSE, "64-bit levels at the top of the range");

	/* Deltas fed every half interval: a burst of 120 straddling two whole
	 * intervals (60 in the second half of one, 60 in the first half of the
	 * next) is seen in the overlapping window. */
	threshold_init(&t, THRESHOLD_DELTA, STARTUP_RISING, 100, 10);
	{
		const uint64_t raw[] = { 1000, 1000, 1060, 1120, 1120, 1120 };

		n = events(&t, raw, 6, ev);
		ok(n == 2 && ev[0] == THRESHOLD_ROSE, "a straddling delta of 120 crosses 100 (%d events)", n);
		ok(n == 2 && ev[1] == THRESHOLD_FELL, "and falls once the burst has left the window");
		is_u64(t.value, 0, "the last whole-interval delta is 0 again");
	}
	threshold_init(&t, THRESHOLD_DELTA, STARTUP_BOTH, 100, 10);
	ok(threshold_feed(&t, 5) == THRESHOLD_NONE && threshold_feed(&t, 6) == THRESHOLD_NONE,
	   "no delta before a whole interval has passed");
	ok(threshold_feed(&t, 7) == THRESHOLD_FELL, "then the first delta (2) applies startup falling");
	{
		const uint64_t raw[] = { 500, 3, 4, 5 };

		n = events(&t, raw, 4, ev);
		ok(n == 2 && ev[0] == THRESHOLD_ROSE && ev[1] == THRESHOLD_FELL,
		   "a counter that restarts (500 -> 3) yields no huge delta: the jump rises, "
		   "the small deltas after the restart fall (%d events)", n);
	}
	return done_testing();
}
