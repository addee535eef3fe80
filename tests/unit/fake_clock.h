/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fake_clock.h - a clock the test moves by hand, put in place of the
 * daemon's monotonic one (common/clock.h) so deadlines and refresh intervals
 * are exact (unit tests only).
 */
#ifndef CLUSTERMON_FAKE_CLOCK_H
#define CLUSTERMON_FAKE_CLOCK_H

#include <stdint.h>

#include "common/clock.h"

#define FAKE_MS 1000000ull
#define FAKE_SEC 1000000000ull

/* Nanoseconds; the test sets and advances it. */
static uint64_t fake_now;

static uint64_t fake_clock(void)
{
	return fake_now;
}

/* From now on the daemon's clock reads fake_now, starting at ns (not 0:
 * the sampler reads a start of 0 as "never ran"). */
static inline void fake_clock_start(uint64_t ns)
{
	fake_now = ns;
	cm_clock_set(fake_clock);
}

static inline void fake_clock_stop(void)
{
	cm_clock_set(NULL);
}

#endif
