/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * sampler.c - the sampler threads: one shared by the cheap sources and one
 * for each own_thread source, every source on its own interval.
 *
 * Deadlines are absolute (on common/clock.c's monotonic clock), so a slow
 * sample does not shift every later one; a source that falls more than a whole interval behind skips
 * ahead instead of bursting to catch up, and the miss is counted as late.
 */
#include "sampler.h"
#include "dist.h"
#include "snapshot.h"
#include "common/clock.h"
#include "../sources/sources.h"
#include "../sources/registry.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/resource.h>
#include <syslog.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* A configuration or command waiting for the source's thread. */
struct pending {
	struct pending *next;
	bool is_conf;
	max_align_t data[];     /* a struct sources_conf or a struct source_cmd */
};

/*
 * What the SNMP thread reads of a source is atomic, not under S.lock: that
 * thread runs at normal priority among every other process, and when it was
 * preempted holding S.lock (20 concurrent walks read the source table
 * hundreds of times a second) the 100 Hz cpu sampler waited for it and
 * started 12-17 ms late. The sampler threads never wait for the SNMP thread.
 */
struct source {
	const struct source_ops *ops;
	unsigned cost_dist;      /* distribution sample.cost.NAME, in us */
	void *ctx;
	_Atomic uint32_t interval_ms;
	_Atomic uint32_t last_cost_us;
	_Atomic uint64_t samples, late, errors;
	/* Demand (sampler.h): awake while demand_until_ns is ahead of the
	 * clock or the source is pinned to its timer; idle otherwise. Awake,
	 * it samples at a deadline only when something read it since its
	 * last sample (read) or a periodic reader keeps its cadence
	 * (cadence_until_ns); stale: a deadline passed without a sample, so
	 * what it published is older than an interval. */
	_Atomic uint64_t demand_until_ns;
	_Atomic uint64_t cadence_until_ns;
	_Atomic bool always;
	_Atomic bool idle;
	_Atomic bool read;
	_Atomic bool stale;
	_Atomic bool waited;     /* woken by a demand: tell on_sample after */
	uint64_t next_due_ns;    /* these two under S.lock */
	uint64_t last_start_ns;
	struct pending *queue;   /* under S.lock, oldest first */
};

/* Thread 0 runs every ordinary source; a source with own_thread gets thread
 * number == its index. */
#define SAMPLER_THREADS (SOURCE_LAST + 1)

static struct {
	pthread_mutex_t lock;
	pthread_cond_t wake;
	pthread_t thread[SAMPLER_THREADS];
	bool started[SAMPLER_THREADS];
	bool running;
	bool stop;
	void (*on_sample)(void);  /* after a sample that someone waited for */
	struct source src[SOURCE_LAST + 1];
} S = { .lock = PTHREAD_MUTEX_INITIALIZER };

int sampler_add(const struct source_ops *ops, const char *root)
{
	unsigned index = ops->index;
	struct source *s;
	char dist_name[64];

	if (index < 1 || index > SOURCE_LAST || S.running) {
		errno = EINVAL;
		return -1;
	}
	s = &S.src[index];
	s->ctx = ops->init(root);
	if (s->ctx == NULL)
		return -1;
	s->ops = ops;
	if (s->interval_ms == 0)
		s->interval_ms = ops->default_interval_ms;
	s->always = ops->pinned;
	snprintf(dist_name, sizeof(dist_name), "sample.cost.%s", ops->name);
	s->cost_dist = dist_register(dist_name, "us", 32);
	return 0;
}

int sampler_add_all(const char *root)
{
	for (size_t i = 0; source_registry[i] != NULL; i++)
		if (sampler_add(source_registry[i], root) != 0)
			return -1;
	return 0;
}

bool sampler_has(unsigned index)
{
	return index >= 1 && index <= SOURCE_LAST && S.src[index].ops != NULL;
}

unsigned sampler_next(unsigned after)
{
	for (unsigned i = after + 1; i <= SOURCE_LAST; i++)
		if (S.src[i].ops != NULL)
			return i;
	return 0;
}

int sampler_set_interval(unsigned index, uint32_t ms)
{
	struct source *s;
	uint64_t soonest;

	if (!sampler_has(index)) {
		errno = ENOENT;
		return -1;
	}
	if (ms < SOURCE_INTERVAL_MIN_MS || ms > SOURCE_INTERVAL_MAX_MS) {
		errno = EINVAL;
		return -1;
	}
	pthread_mutex_lock(&S.lock);
	s = &S.src[index];
	s->interval_ms = ms;
	/* A shorter interval takes effect now, not after the old deadline. */
	soonest = cm_clock_ns() + (uint64_t)ms * 1000000u;
	if (s->next_due_ns > soonest)
		s->next_due_ns = soonest;
	if (S.running)
		pthread_cond_broadcast(&S.wake);
	pthread_mutex_unlock(&S.lock);
	return 0;
}

uint32_t sampler_interval(unsigned index)
{
	return sampler_has(index) ? atomic_load(&S.src[index].interval_ms) : 0;
}

uint32_t sampler_default_interval(unsigned index)
{
	return sampler_has(index) ? S.src[index].ops->default_interval_ms : 0;
}

int sampler_stats(unsigned index, struct source_stats *out)
{
	const struct source *s;

	if (!sampler_has(index))
		return -1;
	s = &S.src[index];
	out->name = s->ops->name;
	out->interval_ms = atomic_load_explicit(&s->interval_ms, memory_order_relaxed);
	out->last_cost_us = atomic_load_explicit(&s->last_cost_us, memory_order_relaxed);
	out->samples = atomic_load_explicit(&s->samples, memory_order_relaxed);
	out->late = atomic_load_explicit(&s->late, memory_order_relaxed);
	out->errors = atomic_load_explicit(&s->errors, memory_order_relaxed);
	out->state = atomic_load(&s->always) ? SOURCE_STATE_TIMER
		     : atomic_load(&s->idle) ? SOURCE_STATE_IDLE : SOURCE_STATE_DEMAND;
	out->stale = out->state == SOURCE_STATE_DEMAND && atomic_load(&s->stale);
	return 0;
}

static uint64_t fresh_until(struct source *s)
{
	uint64_t until, interval_ns, cadence;

	if (atomic_load(&s->always))
		return UINT64_MAX;
	if (atomic_load(&s->idle) || atomic_load(&s->stale))
		return 0;
	interval_ns = (uint64_t)atomic_load(&s->interval_ms) * 1000000u;
	cadence = atomic_load(&s->cadence_until_ns);
	pthread_mutex_lock(&S.lock);
	until = s->next_due_ns;
	pthread_mutex_unlock(&S.lock);
	/* That deadline samples: its sample keeps the next one fresh. */
	if (atomic_load(&s->read) || cadence > until)
		until += interval_ns;
	return cadence > until ? cadence : until;
}

uint64_t sampler_fresh_until(unsigned mask)
{
	uint64_t until = UINT64_MAX;

	for (unsigned i = 1; i <= SOURCE_LAST; i++)
		if ((mask & (1u << i)) && sampler_has(i)) {
			uint64_t u = fresh_until(&S.src[i]);

			until = u < until ? u : until;
		}
	return until;
}

/* ------------------------------------------------------------ demand */

/* How long one read keeps a source sampling. */
static uint64_t hold_ns(const struct source *s, uint64_t at_least_ns)
{
	uint64_t n = (uint64_t)atomic_load(&s->interval_ms) * 1000000u * SOURCE_DEMAND_INTERVALS;

	if (n < (uint64_t)SOURCE_DEMAND_MIN_MS * 1000000u)
		n = (uint64_t)SOURCE_DEMAND_MIN_MS * 1000000u;
	return n > at_least_ns ? n : at_least_ns;
}

/* The SNMP thread takes S.lock only here, when an idle or stale source
 * wakes: at most once an interval, never on a read of a fresh one. The
 * sample it asks for is announced (on_sample), for the reader waits. */
static void wake_now(struct source *s, uint64_t now)
{
	pthread_mutex_lock(&S.lock);
	if (atomic_load(&s->idle) || atomic_load(&s->stale)) {
		if (atomic_load(&s->idle))
			s->last_start_ns = 0; /* an idle spell is no late sample */
		atomic_store(&s->idle, false);
		atomic_store(&s->waited, true);
		s->next_due_ns = now;
		if (S.running)
			pthread_cond_broadcast(&S.wake);
	}
	pthread_mutex_unlock(&S.lock);
}

static void extend(_Atomic uint64_t *until_ns, uint64_t until)
{
	uint64_t old = atomic_load_explicit(until_ns, memory_order_relaxed);

	while (old < until && !atomic_compare_exchange_weak(until_ns, &old, until))
		;
}

/*
 * read is stored before stale is loaded, and the sampler stores stale
 * before it takes read (wants_sample): either this read sees the deadline
 * that passed without a sample, or that deadline sees this read.
 */
unsigned sampler_demand(unsigned mask, uint64_t at_least_ns)
{
	uint64_t now = cm_clock_ns();
	unsigned woken = 0;

	for (unsigned i = 1; i <= SOURCE_LAST; i++) {
		struct source *s = &S.src[i];
		uint64_t until;

		if (!(mask & (1u << i)) || s->ops == NULL)
			continue;
		until = now + hold_ns(s, at_least_ns);
		extend(&s->demand_until_ns, until);
		if (at_least_ns != 0)
			extend(&s->cadence_until_ns, until);
		atomic_store(&s->read, true);
		if (atomic_load(&s->idle) || atomic_load(&s->stale)) {
			wake_now(s, now);
			woken |= 1u << i;
		} else if (atomic_load(&s->waited)) {
			/* Woken by an earlier read and not sampled yet: what it
			 * holds is as old as the idle spell, so wait too. */
			woken |= 1u << i;
		}
	}
	return woken;
}

void sampler_set_always(unsigned index, bool always)
{
	if (!sampler_has(index))
		return;
	atomic_store(&S.src[index].always, always);
	if (always && atomic_load(&S.src[index].idle))
		wake_now(&S.src[index], cm_clock_ns());
}

uint64_t sampler_samples(unsigned index)
{
	return sampler_has(index) ? atomic_load(&S.src[index].samples) : 0;
}

void sampler_on_sample(void (*fn)(void))
{
	S.on_sample = fn;
}

/* With the lock held: nobody wants s now, so it stops until someone does. */
static bool goes_idle_locked(struct source *s, uint64_t now)
{
	if (atomic_load(&s->always) || atomic_load(&s->demand_until_ns) > now)
		return false;
	atomic_store(&s->idle, true);
	return s->ops->sample_idle == NULL;
}

/* With the lock held, at a deadline of an awake source: whether it takes
 * a full sample. Held by a read alone, only when something read it since
 * its last sample: a poller that reads once buys one sample, not one an
 * interval for the whole hold. */
static bool wants_sample(struct source *s, uint64_t now)
{
	if (atomic_load(&s->always) || atomic_load(&s->cadence_until_ns) > now ||
	    atomic_load(&s->read))
		return true;
	atomic_store(&s->stale, true);
	return atomic_load(&s->read); /* a read that came meanwhile */
}

/* ------------------------------------------------------------ the entrance */

static void run_pending(struct source *s, struct pending *p)
{
	while (p != NULL) {
		struct pending *next = p->next;

		if (p->is_conf)
			s->ops->configure(s->ctx, (const struct sources_conf *)p->data);
		else
			s->ops->command(s->ctx, (const struct source_cmd *)p->data);
		free(p);
		p = next;
	}
}

/* Queues p for s's thread and wakes it (drain_locked makes the source due);
 * before the sampler starts there is no other thread, and it runs at once.
 * The SNMP thread holds S.lock here for a few instructions, on SETs and
 * reloads only (as sampler_set_interval does), never on a read. */
static void enqueue(struct source *s, struct pending *p)
{
	struct pending **end;

	if (!S.running) {
		run_pending(s, p);
		return;
	}
	pthread_mutex_lock(&S.lock);
	for (end = &s->queue; *end != NULL; end = &(*end)->next)
		;
	*end = p;
	pthread_cond_broadcast(&S.wake);
	pthread_mutex_unlock(&S.lock);
}

static struct pending *pending_new(bool is_conf, const void *data, size_t len)
{
	struct pending *p = malloc(sizeof(*p) + len);

	if (p != NULL) {
		p->next = NULL;
		p->is_conf = is_conf;
		memcpy(p->data, data, len);
	}
	return p;
}

static void configure_one(unsigned i, const struct sources_conf *c)
{
	struct pending *p;
	uint32_t ms = c->interval_ms[i];

	sampler_set_interval(i, ms != 0 ? ms : S.src[i].ops->default_interval_ms);
	sampler_set_always(i, c->always[i] || S.src[i].ops->pinned);
	if (S.src[i].ops->configure == NULL)
		return;
	p = pending_new(true, c, sizeof(*c));
	if (p == NULL)
		syslog(LOG_ERR, "clustermond: out of memory: source %s keeps its configuration",
		       S.src[i].ops->name);
	else
		enqueue(&S.src[i], p);
}

void sampler_configure(const struct sources_conf *c)
{
	for (unsigned i = 1; i <= SOURCE_LAST; i++)
		if (sampler_has(i))
			configure_one(i, c);
}

int sampler_post(unsigned index, const struct source_cmd *cmd, size_t len)
{
	struct pending *p;

	if (!sampler_has(index) || S.src[index].ops->command == NULL) {
		errno = ENOENT;
		return -1;
	}
	p = pending_new(false, cmd, len);
	if (p == NULL) {
		errno = ENOMEM;
		return -1;
	}
	enqueue(&S.src[index], p);
	return 0;
}

/* With the lock held: the deadline at start is done with (sampled or
 * skipped); true when it came more than an interval late. */
static bool advance_locked(struct source *s, uint64_t start)
{
	uint64_t interval_ns = (uint64_t)s->interval_ms * 1000000u;
	bool late = s->last_start_ns != 0 && start - s->last_start_ns > 2 * interval_ns;

	s->last_start_ns = start;
	s->next_due_ns += interval_ns;
	if (s->next_due_ns <= start)
		s->next_due_ns = start + interval_ns;
	return late;
}

/* Runs one source without the lock held; the deadlines take it. The cost
 * distribution is fed outside it: its lock is shared with the SNMP thread.
 * A source with an always-on part runs only that part while idle
 * (sample_idle) and at a deadline nobody read it for, and that is not
 * counted as one of its samples. */
static void run_source(struct source *s, uint64_t start, bool full)
{
	int rc;
	uint64_t cost_ns;
	bool late;

	/* Cleared before the sample: a read while it runs asks for the next. */
	if (full)
		atomic_store(&s->read, false);
	rc = full ? s->ops->sample(s->ctx) : s->ops->sample_idle(s->ctx);
	cost_ns = cm_clock_ns() - start;
	atomic_store_explicit(&s->last_cost_us, (uint32_t)(cost_ns / 1000u), memory_order_relaxed);
	if (full) {
		atomic_store(&s->stale, false);
		atomic_fetch_add_explicit(&s->samples, 1, memory_order_relaxed);
	}
	if (rc != 0)
		atomic_fetch_add_explicit(&s->errors, 1, memory_order_relaxed);
	pthread_mutex_lock(&S.lock);
	late = advance_locked(s, start);
	pthread_mutex_unlock(&S.lock);
	if (late && full)
		atomic_fetch_add_explicit(&s->late, 1, memory_order_relaxed);
	dist_add(s->cost_dist, cost_ns / 1000u);
	if (full && atomic_exchange(&s->waited, false) && S.on_sample != NULL)
		S.on_sample();
}

static unsigned thread_of(unsigned index)
{
	return S.src[index].ops->own_thread ? index : 0;
}

/* Idle with nothing to do on a timer: only a demand wakes it. */
static bool unscheduled(const struct source *s)
{
	return atomic_load(&s->idle) && s->ops->sample_idle == NULL;
}

/* With the lock held: this thread's source due first. */
static struct source *earliest_locked(unsigned thread)
{
	struct source *best = NULL;

	for (unsigned i = 1; i <= SOURCE_LAST; i++) {
		struct source *s = &S.src[i];

		if (s->ops != NULL && thread_of(i) == thread && !unscheduled(s) &&
		    (best == NULL || s->next_due_ns < best->next_due_ns))
			best = s;
	}
	return best;
}

/*
 * Sampling deadlines matter more than request latency: a burst of walks must
 * not make a 10 ms sample late. Raise the sampler threads' priority while we
 * may (root, before the privilege drop has taken CAP_SYS_NICE); failure only
 * means the default priority.
 */
static void prefer_sampling(void)
{
	if (setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), -10) != 0) {
		/* not permitted: keep the default */
	}
}

/* With the lock held: runs what was queued for this thread's sources,
 * without the lock, and makes each due now, so what they were told shows
 * in a snapshot at once. (Only this thread moves its sources' deadlines
 * after a sample: set by the poster, the deadline could be overwritten by
 * a sample finishing meanwhile.) */
static void drain_locked(unsigned thread)
{
	for (unsigned i = 1; i <= SOURCE_LAST; i++) {
		struct source *s = &S.src[i];
		struct pending *p = s->queue;

		if (p == NULL || s->ops == NULL || thread_of(i) != thread)
			continue;
		s->queue = NULL;
		pthread_mutex_unlock(&S.lock);
		run_pending(s, p);
		pthread_mutex_lock(&S.lock);
		s->next_due_ns = cm_clock_ns();
	}
}

/*
 * With the lock held: runs what was queued, then this thread's sources that
 * are due by the clock, one at a time, each without the lock. Returns the
 * next deadline, or UINT64_MAX when the thread has nothing left to do (no
 * source, or stopping).
 */
static uint64_t run_due_locked(unsigned thread)
{
	for (;;) {
		struct source *s;
		uint64_t now;
		bool full;

		if (S.stop)
			return UINT64_MAX;
		drain_locked(thread);
		s = earliest_locked(thread);
		if (s == NULL)
			return UINT64_MAX;
		now = cm_clock_ns();
		if (s->next_due_ns > now)
			return s->next_due_ns;
		if (goes_idle_locked(s, now))
			continue;
		full = !atomic_load(&s->idle) && wants_sample(s, now);
		if (!full && s->ops->sample_idle == NULL) {
			advance_locked(s, now); /* unread since its last sample */
			continue;
		}
		pthread_mutex_unlock(&S.lock);
		run_source(s, now, full);
		pthread_mutex_lock(&S.lock);
	}
}

uint64_t sampler_run_due(unsigned thread)
{
	uint64_t next;

	pthread_mutex_lock(&S.lock);
	next = run_due_locked(thread);
	pthread_mutex_unlock(&S.lock);
	return next;
}

static void *sampler_main(void *arg)
{
	unsigned thread = (unsigned)(uintptr_t)arg;
	uint64_t due;

	prefer_sampling();
	pthread_mutex_lock(&S.lock);
	while (!S.stop) {
		struct timespec until;

		due = run_due_locked(thread);
		if (S.stop)
			break;
		if (due == UINT64_MAX) { /* every source of the thread idle */
			pthread_cond_wait(&S.wake, &S.lock);
			continue;
		}
		until.tv_sec = (time_t)(due / 1000000000u);
		until.tv_nsec = (long)(due % 1000000000u);
		pthread_cond_timedwait(&S.wake, &S.lock, &until);
	}
	pthread_mutex_unlock(&S.lock);
	return NULL;
}

static int init_wake_condition(void)
{
	pthread_condattr_t attr;
	int rc;

	pthread_condattr_init(&attr);
	/* The clock common/clock.c reads when no test has replaced it; tests
	 * with a fake clock never start the threads (sampler_run_due). */
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	rc = pthread_cond_init(&S.wake, &attr);
	pthread_condattr_destroy(&attr);
	return rc;
}

void sampler_prime(void)
{
	for (unsigned i = 1; i <= SOURCE_LAST; i++) {
		struct source *s = &S.src[i];

		if (s->ops == NULL)
			continue;
		s->next_due_ns = cm_clock_ns();
		run_source(s, s->next_due_ns, true);
	}
}

/* "cm-sampler", or "cm-NAME" for a source's own thread: benchmarks and
 * top -H tell each source's CPU apart. */
static void name_thread(pthread_t th, unsigned t)
{
	char name[16];

	snprintf(name, sizeof(name), "cm-%s", t == 0 ? "sampler" : S.src[t].ops->name);
	pthread_setname_np(th, name);
}

int sampler_start(void)
{
	sigset_t all, old;
	int rc;

	sampler_prime();
	if (init_wake_condition() != 0)
		return -1;
	/* Signals belong to the SNMP thread, whose loop handles them. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	S.stop = false;
	S.running = true;
	rc = 0;
	for (unsigned i = 1; i <= SOURCE_LAST && rc == 0; i++) {
		unsigned t;

		if (S.src[i].ops == NULL || S.started[t = thread_of(i)])
			continue;
		rc = pthread_create(&S.thread[t], NULL, sampler_main, (void *)(uintptr_t)t);
		S.started[t] = rc == 0;
		if (rc == 0)
			name_thread(S.thread[t], t);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0) {
		sampler_stop();
		errno = rc;
		return -1;
	}
	return 0;
}

void sampler_stop(void)
{
	if (S.running) {
		pthread_mutex_lock(&S.lock);
		S.stop = true;
		pthread_cond_broadcast(&S.wake);
		pthread_mutex_unlock(&S.lock);
		for (unsigned t = 0; t < SAMPLER_THREADS; t++)
			if (S.started[t])
				pthread_join(S.thread[t], NULL);
		memset(S.started, 0, sizeof(S.started));
		S.running = false;
		pthread_cond_destroy(&S.wake);
	}
	for (unsigned i = 1; i <= SOURCE_LAST; i++) {
		struct source *s = &S.src[i];

		if (s->ops != NULL) {
			while (s->queue != NULL) {
				struct pending *p = s->queue;

				s->queue = p->next;
				free(p);
			}
			s->ops->fini(s->ctx);
			if (s->ops->slot != NULL)
				snapshot_clear(s->ops->slot);
			memset(s, 0, sizeof(*s));
		}
	}
}
