/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * sampler.h - the sampling core: every source runs on its own interval on a
 * sampler thread apart from the SNMP thread (dproc: capture kept apart from
 * inspection): the shared thread for the cheap sources, one of its own for
 * each own_thread source. Sources publish snapshots; the MIB reads only
 * those.
 */
#ifndef CLUSTERMON_SAMPLER_H
#define CLUSTERMON_SAMPLER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../sources/source_ops.h"

/* clusterMonSourceState: sampling on its timer whatever happens (pinned
 * with sampleInterval's "always"), awake because someone read it lately
 * (it samples at a deadline only when read since its last sample, or
 * every interval for a threshold or history row), or idle: nobody did,
 * and it takes no samples until someone does. */
enum source_state { SOURCE_STATE_TIMER = 1, SOURCE_STATE_DEMAND = 2, SOURCE_STATE_IDLE = 3 };

/* A read keeps a source sampling for this many of its intervals, and no
 * less than SOURCE_DEMAND_MIN_MS: long enough for the fast path's demand,
 * reported once a second, to arrive before the source stops. */
#define SOURCE_DEMAND_INTERVALS 2u
#define SOURCE_DEMAND_MIN_MS 3000u

struct source_stats {
	const char *name;
	enum source_state state;
	uint32_t interval_ms;
	uint32_t last_cost_us;
	uint64_t samples;
	uint64_t late;
	uint64_t errors;
	bool stale;  /* onDemand, and a deadline passed unread since its last sample */
};

/* Adds a source at ops->index (before sampler_start). Fatal errors are the
 * caller's. */
int sampler_add(const struct source_ops *ops, const char *root);
/* Every source of sources/registry.c, reading kernel files under root
 * ("" = live): 0, or -1 with errno from the first that failed. */
int sampler_add_all(const char *root);
bool sampler_has(unsigned index);
/* Next available index after `after` (0 = first), 0 at the end. */
unsigned sampler_next(unsigned after);
/* -1 with errno EINVAL (out of 10..3600000) or ENOENT (no such source). */
int sampler_set_interval(unsigned index, uint32_t ms);
uint32_t sampler_interval(unsigned index);
uint32_t sampler_default_interval(unsigned index);
int sampler_stats(unsigned index, struct source_stats *out);
/* Samples taken so far (clusterMonSourceSamples). */
uint64_t sampler_samples(unsigned index);

/*
 * Demand: a source samples while someone reads what it publishes. Any
 * thread may call sampler_demand with the sources (a bit per enum
 * source_index) a read needs; each stays awake for its hold (see above)
 * or at_least_ns, whichever is longer, and takes its next sample at its
 * next deadline: awake, a source samples only when read since its last
 * sample. A reader that comes back (at_least_ns > 0: threshold and
 * history rows) keeps it sampling every interval for that long instead.
 * Returns the sources whose snapshots are older than one interval (idle,
 * or awake but unread at a deadline): each samples at once, and after
 * that sample the sampler calls the function given to sampler_on_sample
 * (from a sampler thread: it must only wake someone).
 */
unsigned sampler_demand(unsigned mask, uint64_t at_least_ns);
/* Until when (clock ns) the last samples of the sources of mask all stay
 * less than an interval old with no read besides those they had: for each,
 * its next deadline, or the one after when that deadline will sample (a
 * read since the last sample, or a cadence held past it); UINT64_MAX when
 * every one is pinned to its timer (or there is none), 0 when one is idle
 * or stale (a read now gets a fresh sample by waking it). From any thread
 * but the SNMP one: it takes the sampler's lock. */
uint64_t sampler_fresh_until(unsigned mask);
void sampler_on_sample(void (*fn)(void));
/* Pins a source to its timer (sampleInterval's "always"), or not. */
void sampler_set_always(unsigned index, bool always);

/*
 * The one way into the sources (the two types: sources/sources.h's
 * struct sources_conf and sources/source_cmd.h's struct source_cmd).
 * Both only queue: the source's thread runs the configuration or command
 * before its next sample, which it takes at once, and the caller (the SNMP
 * thread) never waits for a helper, netlink or /proc. Outcomes come back
 * the way everything from a source does: in what it publishes.
 */
/* Hands a (re)load's configuration to every source and sets the
 * intervals it names (0: the default). c is copied. */
void sampler_configure(const struct sources_conf *c);
/* Queues a command of len bytes (copied) for source index: 0, or -1 with
 * errno ENOENT (no such source, or it takes no commands) or ENOMEM. */
int sampler_post(unsigned index, const struct source_cmd *cmd, size_t len);

/* Takes one sample of every source synchronously, so the first GET after
 * start-up already has data; then starts the threads. */
int sampler_start(void);
void sampler_stop(void);

/*
 * The scheduling steps sampler_start and its threads are made of, public so
 * tests can run them on a fake clock (common/clock.h) without threads.
 * sampler_prime: one synchronous sample of every source, deadlines from now.
 * sampler_run_due: runs the sources of one thread (0 = the shared one, else
 * the index of an own_thread source) that are due by the clock; returns the
 * next deadline in clock ns, UINT64_MAX if that thread has no source.
 */
void sampler_prime(void);
uint64_t sampler_run_due(unsigned thread);

#endif
