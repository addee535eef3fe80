/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * threshold.h - RMON alarm semantics (RFC 2819) on 64-bit values.
 * Pure C: no OS, no SNMP; the caller feeds samples and sends notifications.
 *
 * A rising event fires when a sample reaches the rising level after the
 * previous one was below it, and only if armed; it disarms rising until a
 * sample reaches the falling level (hysteresis: one event per crossing, no
 * storm when a value hovers around one level). Falling mirrors it. The first
 * sample may fire according to the startup setting.
 *
 * Delta thresholds must not miss a change that straddles two intervals: the
 * caller feeds raw samples every half interval and the delta compared is the
 * change over the last whole interval (the last two half steps), so windows
 * overlap by half as RFC 2819 recommends.
 */
#ifndef CLUSTERMON_THRESHOLD_H
#define CLUSTERMON_THRESHOLD_H

#include <stdbool.h>
#include <stdint.h>

enum threshold_type { THRESHOLD_ABSOLUTE = 1, THRESHOLD_DELTA = 2 };
enum threshold_startup { STARTUP_RISING = 1, STARTUP_FALLING = 2, STARTUP_BOTH = 3 };
enum threshold_event { THRESHOLD_NONE = 0, THRESHOLD_ROSE, THRESHOLD_FELL };

struct threshold {
	enum threshold_type type;
	enum threshold_startup startup;
	uint64_t rising, falling;
	/* state */
	bool armed_rise, armed_fall;
	bool have_value;      /* a compared value exists */
	uint64_t value;       /* last compared value (the sample or the delta) */
	unsigned nraw;        /* raw samples seen, up to 3 (delta) */
	uint64_t raw[2];      /* raw[0] one half step ago, raw[1] two ago */
};

/* -1 when falling > rising (RFC 2819 leaves that meaningless; we refuse). */
int threshold_init(struct threshold *t, enum threshold_type type,
		   enum threshold_startup startup, uint64_t rising, uint64_t falling);
/*
 * Feeds one sample: for absolute thresholds once per interval (or more), for
 * delta ones every half interval. A counter that went backwards yields no
 * delta for the window it spoils (a discontinuity, not a crossing).
 */
enum threshold_event threshold_feed(struct threshold *t, uint64_t sample);

#endif
