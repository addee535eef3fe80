/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * range.h - Monitoring Plugins threshold ranges (the -w/-c syntax of every
 * check_* plugin) and the status line. Pure C: no SNMP.
 *
 *   10      alert outside 0..10         10:     alert below 10
 *   ~:10    alert above 10              10:20   alert outside 10..20
 *   @10:20  alert inside 10..20 (ends included)
 */
#ifndef CLUSTERMON_RANGE_H
#define CLUSTERMON_RANGE_H

#include <stdbool.h>
#include <stddef.h>

enum plugin_state { STATE_OK, STATE_WARNING, STATE_CRITICAL, STATE_UNKNOWN };

struct range {
	bool set;            /* a range was given */
	bool low_inf;        /* no lower end (~) */
	bool high_inf;       /* no upper end */
	double low, high;
	bool inside;         /* @: alert inside */
	char text[64];       /* as given, for perfdata */
};

/* 0, or -1 when text is not a range (why says how). */
int range_parse(const char *text, struct range *r, char *why, size_t whylen);
/* Whether value makes this range alert. An unset range never alerts. */
bool range_alerts(const struct range *r, double value);
/* CRITICAL if c alerts, else WARNING if w alerts, else OK. */
enum plugin_state range_state(const struct range *w, const struct range *c, double value);
const char *state_name(enum plugin_state s);

#endif
