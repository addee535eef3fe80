/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * dists.c - distribution rows (see dists.h): the wishes of the SNMP thread,
 * carried out with the helper by the probes source's thread.
 *
 * Served counts are base + raw, as for probes: raw is what the helper's
 * current attachment reports, base what earlier ones counted. A new helper
 * instance or a fresh attachment moves raw into base first.
 */
#include "dists.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect/distlist.h"
#include "collect/helper.h"
#include "common/clock.h"
#include "core/counter.h"
#include "../runtime/dist.h"
#include "common/distspec.h"

_Static_assert(DIST_LINE_MAX >= DIST_SPEC_MAX_TEXT + DIST_CGROUP_MAX + 80, "room for a line");

#define ADD_TIMEOUT_MS 5000     /* loading a program: the verifier's time */
#define LIST_TIMEOUT_MS 1000
#define RING 10                 /* snapshots behind clusterMonDistRecentP99 */

struct snap {
	uint64_t t_ms;
	struct log2hist h;
};

struct dstate {
	struct dist_want want;
	struct dist_reading rd;
	bool attached;                 /* the helper holds held, held_filter for us */
	struct dist_spec held;
	struct dist_filter held_filter;
	bool failed;                   /* want was refused by this instance */
	bool gone;                     /* destroyed: drop once removed from the helper */
	struct mono_counter hits, sampled, misses;
	struct log2hist base, raw;
	struct snap ring[RING];
	unsigned nring, head;
};

static struct {
	pthread_mutex_t lock;
	struct dstate **st;
	size_t n;
	char instance[64];
} D = { .lock = PTHREAD_MUTEX_INITIALIZER };

static struct dstate *find(uint32_t id)
{
	for (size_t i = 0; i < D.n; i++)
		if (D.st[i]->want.id == id)
			return D.st[i];
	return NULL;
}

/* The distribution source dist.N exists exactly while the row is active. */
static void set_source(struct dstate *s)
{
	char name[32];
	bool want = s->want.active && !s->gone;

	if (want && s->rd.source == 0) {
		snprintf(name, sizeof(name), "dist.%u", s->want.id);
		s->rd.source = dist_register(name, s->want.unit, DISTLIST_SLOTS);
		log2hist_init(&s->base, DISTLIST_SLOTS);
		log2hist_init(&s->raw, DISTLIST_SLOTS);
		s->nring = s->head = 0;
	} else if (!want && s->rd.source != 0) {
		dist_unregister(s->rd.source);
		s->rd.source = 0;
	}
}

/* Counting starts again from zero: a new spec or filter. */
static void reset(struct dstate *s)
{
	memset(&s->hits, 0, sizeof(s->hits));
	memset(&s->sampled, 0, sizeof(s->sampled));
	memset(&s->misses, 0, sizeof(s->misses));
	s->rd.hits = s->rd.sampled = s->rd.misses = s->rd.recent_p99 = 0;
	log2hist_init(&s->base, DISTLIST_SLOTS);
	log2hist_init(&s->raw, DISTLIST_SLOTS);
	s->nring = s->head = 0;
	s->failed = false;
	s->rd.error[0] = '\0';
}

static struct dstate *adopt(const struct dist_want *w)
{
	struct dstate *s = find(w->id), **grown;

	if (s == NULL) {
		grown = realloc(D.st, (D.n + 1) * sizeof(*grown));
		if (grown == NULL || (s = calloc(1, sizeof(*s))) == NULL) {
			if (grown != NULL)
				D.st = grown;
			return NULL;
		}
		D.st = grown;
		D.st[D.n++] = s;
		s->want = *w;
		s->rd.id = w->id;
		s->rd.oper = DOPER_DOWN;
		reset(s);
	} else if (!dist_same(&s->want.spec, &s->want.filter, &w->spec, &w->filter) || s->gone) {
		s->want = *w;
		reset(s);
		if (s->rd.source != 0)
			dist_unregister(s->rd.source);
		s->rd.source = 0;
	}
	/* Activated again: a user asking for another attempt. */
	if (w->active && !s->want.active)
		s->failed = false;
	s->want.active = w->active;
	s->gone = false;
	if (!s->want.active && s->rd.oper == DOPER_UP)
		s->rd.oper = DOPER_DOWN;
	set_source(s);
	return s;
}

static void drop(size_t i)
{
	if (D.st[i]->rd.source != 0)
		dist_unregister(D.st[i]->rd.source);
	free(D.st[i]);
	D.st[i] = D.st[--D.n];
}

void dists_want(const struct dist_want *rows, size_t n)
{
	pthread_mutex_lock(&D.lock);
	for (size_t i = D.n; i-- > 0;) {
		size_t j = 0;

		while (j < n && rows[j].id != D.st[i]->want.id)
			j++;
		if (j < n)
			continue;
		D.st[i]->gone = true;
		set_source(D.st[i]);
		if (!D.st[i]->attached)
			drop(i);
	}
	for (size_t i = 0; i < n; i++)
		adopt(&rows[i]);
	pthread_mutex_unlock(&D.lock);
}

/* ------------------------------------------------------------ the helper */

struct action {
	uint32_t id;
	bool add;
	struct wire_request req;     /* for an add: the spec and filter it asks for */
};

/* A helper we have not seen before: its rows start from zero, and specs it
 * refused may work on this one. */
static void new_instance(const char *instance)
{
	snprintf(D.instance, sizeof(D.instance), "%s", instance);
	for (size_t i = 0; i < D.n; i++) {
		struct dstate *s = D.st[i];

		s->attached = false;
		s->failed = false;
		mono_counter_restart(&s->hits);
		mono_counter_restart(&s->sampled);
		mono_counter_restart(&s->misses);
		log2hist_merge(&s->base, &s->raw);
		log2hist_init(&s->raw, DISTLIST_SLOTS);
	}
}

/* What to tell the helper (lock held); removed rows that it no longer
 * holds are dropped here. */
static size_t plan(struct action *a, size_t max)
{
	size_t k = 0;

	for (size_t i = D.n; i-- > 0 && k < max;) {
		struct dstate *s = D.st[i];
		bool want = s->want.active && !s->gone;

		if (want && !s->failed &&
		    !(s->attached && dist_same(&s->held, &s->held_filter, &s->want.spec, &s->want.filter))) {
			a[k] = (struct action){ .id = s->want.id, .add = true };
			a[k].req = (struct wire_request){ .verb = WIRE_DIST, .id = s->want.id,
							  .dist = s->want.spec,
							  .dfilter = s->want.filter };
			k++;
		} else if (!want && s->attached) {
			a[k] = (struct action){ .id = s->want.id, .add = false };
			a[k++].req = (struct wire_request){ .verb = WIRE_UNDIST, .id = s->want.id };
			s->attached = false;
		}
		if (s->gone && !s->attached)
			drop(i);
	}
	return k;
}

/* The outcome of an add (lock held). */
static void added(const struct action *a, enum helper_result r, bool fresh, const char *why)
{
	struct dstate *s = find(a->id);

	if (s == NULL || !dist_same(&s->want.spec, &s->want.filter, &a->req.dist, &a->req.dfilter))
		return;
	if (r == HELPER_OK) {
		if (fresh) {
			mono_counter_restart(&s->hits);
			mono_counter_restart(&s->sampled);
			mono_counter_restart(&s->misses);
			log2hist_merge(&s->base, &s->raw);
			log2hist_init(&s->raw, DISTLIST_SLOTS);
		}
		s->attached = true;
		s->held = a->req.dist;
		s->held_filter = a->req.dfilter;
		s->rd.oper = s->want.active ? DOPER_UP : DOPER_DOWN;
		s->rd.error[0] = '\0';
		return;
	}
	snprintf(s->rd.error, sizeof(s->rd.error), "%s", why);
	if (r == HELPER_REFUSED) {
		s->failed = true;
		s->rd.oper = DOPER_FAILED;
	}
}

static void carry_out(const char *path, const struct action *a, size_t k)
{
	char cls[32], why[DIST_ERROR_MAX], *reply;
	enum helper_result r;
	bool fresh;

	for (size_t i = 0; i < k; i++) {
		if (!a[i].add) {
			if (helper_send(path, &a[i].req, LIST_TIMEOUT_MS, &reply, why,
					sizeof(why)) == HELPER_OK)
				free(reply);
			continue;
		}
		fresh = false;
		r = helper_add(path, &a[i].req, ADD_TIMEOUT_MS, &fresh, cls, sizeof(cls), why,
			       sizeof(why));
		pthread_mutex_lock(&D.lock);
		added(&a[i], r, fresh, why);
		pthread_mutex_unlock(&D.lock);
	}
}

/* ------------------------------------------------------------ readings */

/* The served histogram's snapshots, one per eighth of the window at most;
 * recent p99 is that of the values recorded since the newest snapshot at
 * least DIST_RECENT_MS old (the oldest while the row is younger). A window
 * without values reads 0. */
static void recent(struct dstate *s, const struct log2hist *now, uint64_t t_ms)
{
	const struct snap *from = NULL;
	struct log2hist d;
	unsigned last = (s->head + RING - 1) % RING;

	if (s->nring == 0 || t_ms - s->ring[last].t_ms >= DIST_RECENT_MS / 8) {
		s->ring[s->head] = (struct snap){ .t_ms = t_ms, .h = *now };
		s->head = (s->head + 1) % RING;
		if (s->nring < RING)
			s->nring++;
	}
	for (unsigned i = 0; i < s->nring; i++) {
		const struct snap *p = &s->ring[(s->head + RING - 1 - i) % RING];

		from = p;
		if (t_ms - p->t_ms >= DIST_RECENT_MS)
			break;
	}
	d = *now;
	d.count = d.sum = 0;
	for (unsigned b = 0; b < d.nbuckets; b++) {
		d.bucket[b] -= from->h.bucket[b] <= d.bucket[b] ? from->h.bucket[b] : d.bucket[b];
		d.count += d.bucket[b];
	}
	s->rd.recent_p99 = log2hist_percentile(&d, 990);
}

static void absorb_entry(struct dstate *s, const struct distlist_entry *e, uint64_t t_ms)
{
	struct log2hist h;

	mono_counter_feed_zeroed(&s->hits, e->hits);
	mono_counter_feed_zeroed(&s->sampled, e->sampled);
	mono_counter_feed_zeroed(&s->misses, e->misses);
	s->rd.hits = s->hits.value;
	s->rd.sampled = s->sampled.value;
	s->rd.misses = s->misses.value;
	if (e->hist.count < s->raw.count)
		log2hist_merge(&s->base, &s->raw);
	s->raw = e->hist;
	h = s->base;
	log2hist_merge(&h, &s->raw);
	if (s->rd.source != 0)
		dist_set(s->rd.source, &h);
	recent(s, &h, t_ms);
}

/* The helper's rows into ours; ids = the rows it holds that nobody wants
 * (left by an earlier run of clustermond), *nids of them. */
static void absorb(const struct distlist_entry *e, size_t n, uint32_t *ids, size_t *nids)
{
	uint64_t t_ms = cm_clock_ms();

	*nids = 0;
	for (size_t j = 0; j < n; j++) {
		struct dstate *s = find(e[j].id);

		if (s == NULL || s->gone || !s->attached)
			ids[(*nids)++] = e[j].id;
		else
			absorb_entry(s, &e[j], t_ms);
	}
	/* Attached rows the helper no longer holds are added again. */
	for (size_t i = 0; i < D.n; i++) {
		size_t j = 0;

		while (j < n && e[j].id != D.st[i]->want.id)
			j++;
		if (j == n)
			D.st[i]->attached = false;
	}
}

static void remove_strays(const char *path, const uint32_t *ids, size_t n)
{
	char why[DIST_ERROR_MAX], *reply;

	for (size_t i = 0; i < n; i++) {
		struct wire_request req = { .verb = WIRE_UNDIST, .id = ids[i] };

		if (helper_send(path, &req, LIST_TIMEOUT_MS, &reply, why, sizeof(why)) == HELPER_OK)
			free(reply);
	}
}

static void helper_down(void)
{
	for (size_t i = 0; i < D.n; i++)
		if (D.st[i]->rd.oper == DOPER_UP)
			D.st[i]->rd.oper = DOPER_DOWN;
}

void dists_sync(const char *path, const char *instance)
{
	struct action a[DIST_MAX_ROWS];
	struct distlist_entry *e;
	char why[DIST_ERROR_MAX], *reply;
	uint32_t *ids;
	size_t k, n, nids = 0;

	pthread_mutex_lock(&D.lock);
	if (instance == NULL) {
		helper_down();
		pthread_mutex_unlock(&D.lock);
		return;
	}
	if (strcmp(D.instance, instance) != 0)
		new_instance(instance);
	k = plan(a, sizeof(a) / sizeof(a[0]));
	pthread_mutex_unlock(&D.lock);
	carry_out(path, a, k);
	if (helper_ask(path, HELPER_ASK_DISTS, LIST_TIMEOUT_MS, &reply, why, sizeof(why)) !=
	    HELPER_OK)
		return;
	if (distlist_parse(reply, &e, &n, why, sizeof(why)) == 0) {
		if ((ids = calloc(n ? n : 1, sizeof(*ids))) != NULL) {
			pthread_mutex_lock(&D.lock);
			absorb(e, n, ids, &nids);
			pthread_mutex_unlock(&D.lock);
			remove_strays(path, ids, nids);
			free(ids);
		}
		free(e);
	}
	free(reply);
}

/* ------------------------------------------------------------ the view */

static int by_id(const void *a, const void *b)
{
	const struct dist_reading *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

struct dists_view *dists_view_take(void)
{
	struct dists_view *v;

	pthread_mutex_lock(&D.lock);
	v = malloc(sizeof(*v) + D.n * sizeof(v->rows[0]));
	if (v != NULL) {
		v->rows = (struct dist_reading *)(v + 1);
		v->n = 0;
		for (size_t i = 0; i < D.n; i++)
			if (!D.st[i]->gone)
				v->rows[v->n++] = D.st[i]->rd;
	}
	pthread_mutex_unlock(&D.lock);
	if (v != NULL && v->n > 1)
		qsort(v->rows, v->n, sizeof(v->rows[0]), by_id);
	return v;
}

void dists_view_free(struct dists_view *v)
{
	free(v);
}

void dists_clear(void)
{
	pthread_mutex_lock(&D.lock);
	while (D.n > 0)
		drop(D.n - 1);
	free(D.st);
	D.st = NULL;
	D.instance[0] = '\0';
	pthread_mutex_unlock(&D.lock);
}
