/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * defer.c - reads that wait for an idle source's next sample.
 *
 * A source nobody reads stops sampling (sampler.h). The read that wakes it
 * must not be answered from a sample taken before the idle spell, and the
 * SNMP thread must not wait for /proc or netlink either: the request is
 * delegated (net-snmp keeps the session open and goes on with other
 * requests) and answered when every source it woke has sampled again, or
 * after MIB_DEFER_MAX_MS with what there is (a source that keeps failing).
 */
#include "defer.h"
#include "runtime/sampler.h"
#include "common/clock.h"

#include <stdlib.h>

struct deferred {
	struct deferred *next;
	mib_answer_fn answer;
	const void *ctx;
	netsnmp_delegated_cache *cache;
	unsigned woken;
	uint64_t samples[SOURCE_LAST + 1]; /* each woken source's count at the read */
	uint64_t deadline_ns;
};

static struct deferred *waiting;
static unsigned alarm_id;

static void on_alarm(unsigned id, void *arg)
{
	(void)arg;
	if (id == alarm_id)
		alarm_id = 0;
	mib_defer_poll();
}

/* One timer for the earliest deadline: a source that never samples again
 * still gets its readers answered. */
static void arm(void)
{
	struct timeval tv = { .tv_sec = MIB_DEFER_MAX_MS / 1000u,
			      .tv_usec = (MIB_DEFER_MAX_MS % 1000u) * 1000 };

	if (alarm_id == 0 && waiting != NULL)
		alarm_id = snmp_alarm_register_hr(tv, 0, on_alarm, NULL);
}

int mib_defer(mib_answer_fn answer, const void *ctx, netsnmp_mib_handler *handler,
	      netsnmp_handler_registration *reg, netsnmp_agent_request_info *reqinfo,
	      netsnmp_request_info *requests, unsigned woken)
{
	struct deferred *d = calloc(1, sizeof(*d));

	if (d == NULL)
		return -1;
	d->cache = netsnmp_create_delegated_cache(handler, reg, reqinfo, requests, NULL);
	if (d->cache == NULL) {
		free(d);
		return -1;
	}
	d->answer = answer;
	d->ctx = ctx;
	d->woken = woken;
	for (unsigned i = 1; i <= SOURCE_LAST; i++)
		if (woken & (1u << i))
			d->samples[i] = sampler_samples(i);
	d->deadline_ns = cm_clock_ns() + (uint64_t)MIB_DEFER_MAX_MS * 1000000u;
	for (netsnmp_request_info *r = requests; r != NULL; r = r->next)
		r->delegated = 1;
	d->next = waiting;
	waiting = d;
	arm();
	return 0;
}

static bool ready(const struct deferred *d, uint64_t now)
{
	if (now >= d->deadline_ns)
		return true;
	for (unsigned i = 1; i <= SOURCE_LAST; i++)
		if ((d->woken & (1u << i)) && sampler_samples(i) == d->samples[i])
			return false;
	return true;
}

/* Answers one: its session may have gone meanwhile (check_cache says). */
static void complete(struct deferred *d)
{
	netsnmp_delegated_cache *c = netsnmp_handler_check_cache(d->cache);

	if (c != NULL) {
		for (netsnmp_request_info *r = c->requests; r != NULL; r = r->next)
			r->delegated = 0;
		d->answer(d->ctx, c->reqinfo, c->requests);
		netsnmp_free_delegated_cache(c);
	}
	free(d);
}

void mib_defer_poll(void)
{
	uint64_t now = cm_clock_ns();
	struct deferred **p = &waiting;
	bool done = false;

	while (*p != NULL) {
		struct deferred *d = *p;

		if (!ready(d, now)) {
			p = &d->next;
			continue;
		}
		*p = d->next;
		complete(d);
		done = true;
	}
	if (done)
		netsnmp_check_outstanding_agent_requests();
	arm();
}
