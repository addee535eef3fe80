/* SPDX-License-Identifier: BSD-2-Clause */
/* clock.c - CLOCK_MONOTONIC behind one replaceable function. */
#include "clock.h"

#include <stddef.h>
#include <time.h>

static uint64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static cm_clock_fn now_fn = monotonic_ns;

uint64_t cm_clock_ns(void)
{
	return now_fn();
}

uint64_t cm_clock_ms(void)
{
	return now_fn() / 1000000u;
}

void cm_clock_set(cm_clock_fn fn)
{
	now_fn = fn != NULL ? fn : monotonic_ns;
}
