/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * defer.c - reads that wait for a source's next sample.
 *
 * A source nobody reads stops sampling, and one read lately samples only
 * when read again (sampler.h). The read that finds its snapshot older than
 * an interval (idle, or a deadline passed unread) must not be answered
 * from it, and the SNMP thread must not wait for /proc or netlink either:
 * the request is delegated (net-snmp keeps the session open and goes on
 * with other requests) and answered when every source it woke has sampled
 * again, or after MIB_DEFER_MAX_MS with what there is (a source that keeps
 * failing).
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
	struct mib_samples before; /* each woken source's count before the read */
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

void mib_samples_now(unsigned mask, struct mib_samples *out)
{
	for (unsigned i = 1; i <= SOURCE_LAST; i++)
		out->n[i] = mask & (1u << i) ? sampler_samples(i) : 0;
}

/* Every source of woken sampled since before. */
static bool sampled_since(unsigned woken, const struct mib_samples *before)
{
	for (unsigned i = 1; i <= SOURCE_LAST; i++)
		if ((woken & (1u << i)) && sampler_samples(i) == before->n[i])
			return false;
	return true;
}

int mib_defer(mib_answer_fn answer, const void *ctx, netsnmp_mib_handler *handler,
	      netsnmp_handler_registration *reg, netsnmp_agent_request_info *reqinfo,
	      netsnmp_request_info *requests, unsigned woken, const struct mib_samples *before)
{
	struct deferred *d;

	if (sampled_since(woken, before))
		return -1; /* the sample came already: answer now */
	d = calloc(1, sizeof(*d));
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
	d->before = *before;
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
	return now >= d->deadline_ns || sampled_since(d->woken, &d->before);
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
