/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * clock.h - the one monotonic clock of the daemon. Every deadline, rate
 * limit and cost measure reads it here, so a test can replace it and drive
 * time by hand (the sampler's lateness rules, a source's refresh interval).
 * Beside it, the boot-time clock that processes' ages are measured on.
 */
#ifndef CLUSTERMON_CLOCK_H
#define CLUSTERMON_CLOCK_H

#include <stdint.h>

/* Returns nanoseconds on CLOCK_MONOTONIC, or a test's idea of them. */
typedef uint64_t (*cm_clock_fn)(void);

uint64_t cm_clock_ns(void);
/* Milliseconds of the same clock. */
uint64_t cm_clock_ms(void);
/* Replaces the clock (NULL restores CLOCK_MONOTONIC). Tests only: set it
 * before any thread that reads the clock starts. */
void cm_clock_set(cm_clock_fn fn);

/* Nanoseconds on CLOCK_BOOTTIME, the clock /proc/PID/stat's start times
 * count on (suspended time included), or a test's idea of them; set as
 * cm_clock_set's. */
uint64_t cm_boottime_ns(void);
void cm_boottime_set(cm_clock_fn fn);

#endif
