/* SPDX-License-Identifier: BSD-2-Clause */
/* watch.c - the SNMP thread's sampling timer for thresholds and histories. */
#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>
#include <net-snmp/agent/net-snmp-agent-includes.h>

#include <time.h>

#include "watch.h"
#include "common/clock.h"

#define MAX_TICKS 4

static watch_tick_fn ticks[MAX_TICKS];
static unsigned nticks;
static unsigned alarm_id;

uint64_t watch_now_ms(void)
{
	return cm_clock_ms();
}

uint64_t watch_next_due(uint64_t now_ms, uint32_t period_ms)
{
	return (now_ms / period_ms + 1) * period_ms;
}

uint32_t watch_timestamp(uint64_t at_ms)
{
	uint64_t now = watch_now_ms();
	uint64_t up = (uint64_t)netsnmp_get_agent_uptime();
	uint64_t back = now > at_ms ? (now - at_ms) / 10 : 0;

	return back < up ? (uint32_t)(up - back) : 0;
}

static void on_alarm(unsigned id, void *arg)
{
	(void)id, (void)arg;
	alarm_id = 0;
	watch_reschedule();
}

void watch_reschedule(void)
{
	uint64_t now = watch_now_ms(), next = WATCH_NEVER, wait_ms;
	struct timeval tv;

	for (unsigned i = 0; i < nticks; i++) {
		uint64_t due = ticks[i](now);

		if (due < next)
			next = due;
	}
	if (alarm_id != 0) {
		snmp_alarm_unregister(alarm_id);
		alarm_id = 0;
	}
	if (next == WATCH_NEVER)
		return;
	/* Due times are on the millisecond clock: wake just past them. */
	wait_ms = next > now ? next - now : 0;
	tv.tv_sec = (time_t)(wait_ms / 1000);
	tv.tv_usec = (suseconds_t)(wait_ms % 1000) * 1000 + 500;
	alarm_id = snmp_alarm_register_hr(tv, 0, on_alarm, NULL);
}

void watch_register(watch_tick_fn tick)
{
	if (nticks < MAX_TICKS)
		ticks[nticks++] = tick;
}
