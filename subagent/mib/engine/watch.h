/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * watch.h - one timer on the SNMP thread for everything that samples MIB
 * values on its own schedule (threshold and history rows).
 *
 * Each user registers a tick function that does what is due at now_ms and
 * returns when it next has something due; the timer sleeps until the
 * earliest of those. Due times are multiples of each row's period, so rows
 * with the same period are served by one wake-up.
 */
#ifndef CLUSTERMON_MIB_WATCH_H
#define CLUSTERMON_MIB_WATCH_H

#include <stdint.h>

#define WATCH_NEVER UINT64_MAX

typedef uint64_t (*watch_tick_fn)(uint64_t now_ms);

uint64_t watch_now_ms(void);
void watch_register(watch_tick_fn tick);
/* Rows changed: run every tick now and sleep until the earliest due time. */
void watch_reschedule(void);
/* The first due time after now for a period (aligned to multiples of it). */
uint64_t watch_next_due(uint64_t now_ms, uint32_t period_ms);
/* sysUpTime-relative TimeTicks of a moment on watch_now_ms's clock. */
uint32_t watch_timestamp(uint64_t at_ms);

#endif
