/* SPDX-License-Identifier: BSD-2-Clause */
/* clock.c - CLOCK_MONOTONIC and CLOCK_BOOTTIME, each behind a replaceable
 * function. */
#include "clock.h"

#include <stddef.h>
#include <time.h>

static uint64_t read_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t monotonic_ns(void)
{
	return read_ns(CLOCK_MONOTONIC);
}

static uint64_t boottime_ns(void)
{
	return read_ns(CLOCK_BOOTTIME);
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

static cm_clock_fn boot_fn = boottime_ns;

uint64_t cm_boottime_ns(void)
{
	return boot_fn();
}

void cm_boottime_set(cm_clock_fn fn)
{
	boot_fn = fn != NULL ? fn : boottime_ns;
}
