/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * counter.h - monotonic counters and rates from raw kernel samples.
 * Pure C: no OS, no SNMP.
 */
#ifndef CLUSTERMON_COUNTER_H
#define CLUSTERMON_COUNTER_H

#include <stdbool.h>
#include <stdint.h>

/*
 * A served Counter64 built from raw kernel readings. The kernel's numbers can
 * go backwards (a CPU going offline and back, a u32 field wrapping, a perf fd
 * reopened): we add only forward deltas, so what we serve never decreases.
 * A backward step re-baselines and is reported so the caller can note it.
 */
struct mono_counter {
	uint64_t last_raw;
	uint64_t value;
	bool primed;
};

enum counter_step { COUNTER_FIRST, COUNTER_FORWARD, COUNTER_BACKWARD };

/* Feeds one raw reading; *delta (may be NULL) gets what was added. The first
 * reading sets value = raw so counters start at the kernel's figure. */
enum counter_step mono_counter_feed(struct mono_counter *c, uint64_t raw, uint64_t *delta);

/*
 * For a counter whose producer restarts it at zero (the helper's BPF maps,
 * recreated when a probe is attached again): a backward step means "counted
 * from zero since", so the new reading is added in full instead of nothing.
 */
enum counter_step mono_counter_feed_zeroed(struct mono_counter *c, uint64_t raw);
/* The producer starts again from zero now (a new helper instance): its next
 * reading is added in full. The served value stays. */
void mono_counter_restart(struct mono_counter *c);

/*
 * A kernel u32 counter that only moves forward for the life of its object
 * (a socket's tcpi_segs_out, say), widened to 64 bits: the next value after
 * `last` whose low 32 bits are `raw`. Exact as long as fewer than 2^32
 * events happen between two readings; the first reading is just `raw`.
 */
uint64_t widen_u32(uint64_t last, uint32_t raw);

/* Busy share in hundredths of a percent (0..10000) from tick deltas: busy is
 * everything but idle and iowait. 0 when total_delta is 0. */
uint32_t util_hundredths(uint64_t busy_delta, uint64_t total_delta);

/* Ticks (USER_HZ) to milliseconds without overflow for any u64 tick count. */
uint64_t ticks_to_ms(uint64_t ticks, unsigned hz);

#endif
