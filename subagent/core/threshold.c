/* SPDX-License-Identifier: BSD-2-Clause */
/* threshold.c - the RMON alarm state machine with hysteresis. */
#include "threshold.h"

int threshold_init(struct threshold *t, enum threshold_type type,
		   enum threshold_startup startup, uint64_t rising, uint64_t falling)
{
	if (falling > rising)
		return -1;
	*t = (struct threshold){
		.type = type, .startup = startup, .rising = rising, .falling = falling,
		.armed_rise = true, .armed_fall = true,
	};
	return 0;
}

/* The delta over the last whole interval, or false while there is none. */
static bool delta_value(struct threshold *t, uint64_t sample, uint64_t *delta)
{
	bool ok = false;

	if (t->nraw >= 2 && sample >= t->raw[1]) {
		*delta = sample - t->raw[1];
		ok = true;
	}
	if (t->nraw >= 1 && sample < t->raw[0])
		t->nraw = 0; /* went backwards: start over from this sample */
	t->raw[1] = t->raw[0];
	t->raw[0] = sample;
	if (t->nraw < 2)
		t->nraw++;
	return ok;
}

static enum threshold_event first_value(struct threshold *t, uint64_t v)
{
	if (v >= t->rising && t->startup != STARTUP_FALLING) {
		t->armed_rise = false;
		return THRESHOLD_ROSE;
	}
	if (v <= t->falling && t->startup != STARTUP_RISING) {
		t->armed_fall = false;
		return THRESHOLD_FELL;
	}
	return THRESHOLD_NONE;
}

static enum threshold_event next_value(struct threshold *t, uint64_t prev, uint64_t v)
{
	enum threshold_event ev = THRESHOLD_NONE;

	if (v >= t->rising && prev < t->rising && t->armed_rise) {
		t->armed_rise = false;
		ev = THRESHOLD_ROSE;
	} else if (v <= t->falling && prev > t->falling && t->armed_fall) {
		t->armed_fall = false;
		ev = THRESHOLD_FELL;
	}
	/* Reaching one level re-arms the other. */
	if (v <= t->falling)
		t->armed_rise = true;
	if (v >= t->rising)
		t->armed_fall = true;
	return ev;
}

enum threshold_event threshold_feed(struct threshold *t, uint64_t sample)
{
	enum threshold_event ev;
	uint64_t v = sample;

	if (t->type == THRESHOLD_DELTA && !delta_value(t, sample, &v))
		return THRESHOLD_NONE;
	ev = t->have_value ? next_value(t, t->value, v) : first_value(t, v);
	t->value = v;
	t->have_value = true;
	return ev;
}
