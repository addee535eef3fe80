/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * probes.c - the "probes" source (see probes.h): clustermon-kprobe's
 * probes and scheduler sensors, as counters that only go up.
 *
 * Every served counter is base + raw: raw is what the helper's current
 * attachment reports, base what earlier attachments had counted. A new
 * attachment (helper restart, row re-activated, a reading that went down)
 * moves raw into base first.
 */
#include "sources.h"
#include "dists.h"
#include "traces.h"

#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "../collect/helper.h"
#include "common/clock.h"
#include "../core/counter.h"
#include "../dist.h"

#define POLL_TIMEOUT_MS 1000
#define ADD_TIMEOUT_MS 5000

struct pstate {
	struct probe_want want;
	int oper;
	char error[PROBE_ERROR_MAX];
	bool failed;                /* want.line failed on this helper instance */
	struct mono_counter hits, sampled, lost;
	unsigned ncpu;
	struct mono_counter *cpu;
	struct log2hist hbase, hraw;
	unsigned dist;
};

struct drop_state {
	uint32_t reason;
	char name[48];
	struct mono_counter packets;
};

static struct {
	pthread_mutex_t lock;
	char socket[PATH_MAX];
	struct pstate *st;
	size_t n;
	int helper;
	char instance[64];
	unsigned ncpu;
	struct mono_counter *busy;
	struct log2hist rq_base, rq_raw;
	unsigned rq_dist;
	bool have_sensors;
	struct mono_counter retransmits, drops;
	size_t ndrop;
	struct drop_state *drop;    /* ascending reason */
} P = { .lock = PTHREAD_MUTEX_INITIALIZER, .socket = PROBES_DEFAULT_SOCKET,
	.helper = HELPER_ABSENT };

/* ------------------------------------------------------------ counters */

static void absorb_hist(struct log2hist *base, struct log2hist *raw, const struct log2hist *now)
{
	if (now->count < raw->count)
		log2hist_merge(base, raw);
	*raw = *now;
}

static void served_hist(const struct log2hist *base, const struct log2hist *raw,
			struct log2hist *out)
{
	*out = *base;
	log2hist_merge(out, raw);
}

static void rebase_probe(struct pstate *s)
{
	mono_counter_restart(&s->hits);
	mono_counter_restart(&s->sampled);
	mono_counter_restart(&s->lost);
	for (unsigned c = 0; c < s->ncpu; c++)
		mono_counter_restart(&s->cpu[c]);
	log2hist_merge(&s->hbase, &s->hraw);
	log2hist_init(&s->hraw, HELPER_HIST_BUCKETS);
}

static void reset_probe(struct pstate *s)
{
	memset(&s->hits, 0, sizeof(s->hits));
	memset(&s->sampled, 0, sizeof(s->sampled));
	memset(&s->lost, 0, sizeof(s->lost));
	free(s->cpu);
	s->cpu = NULL;
	s->ncpu = 0;
	log2hist_init(&s->hbase, HELPER_HIST_BUCKETS);
	log2hist_init(&s->hraw, HELPER_HIST_BUCKETS);
	s->failed = false;
	s->error[0] = '\0';
	s->oper = OPER_DOWN;
}

static void absorb_probe(struct pstate *s, const struct helper_probe *p)
{
	struct log2hist h;

	mono_counter_feed_zeroed(&s->hits, p->hits);
	mono_counter_feed_zeroed(&s->sampled, p->sampled);
	mono_counter_feed_zeroed(&s->lost, p->lost);
	if (s->cpu == NULL && p->ncpu > 0 && (s->cpu = calloc(p->ncpu, sizeof(*s->cpu))))
		s->ncpu = p->ncpu;
	for (unsigned c = 0; c < s->ncpu && c < p->ncpu; c++)
		mono_counter_feed_zeroed(&s->cpu[c], p->cpu_hits[c]);
	if (p->has_hist && s->dist != 0) {
		absorb_hist(&s->hbase, &s->hraw, &p->hist);
		served_hist(&s->hbase, &s->hraw, &h);
		dist_set(s->dist, &h);
	}
}

/* ------------------------------------------------------------ rows */

static struct pstate *find_state(uint32_t id)
{
	for (size_t i = 0; i < P.n; i++)
		if (P.st[i].want.id == id)
			return &P.st[i];
	return NULL;
}

static void set_dist(struct pstate *s)
{
	char name[64];

	if (s->want.latency && s->dist == 0) {
		snprintf(name, sizeof(name), "probe.%u.latency", s->want.id);
		s->dist = dist_register(name, "ns", HELPER_HIST_BUCKETS);
	} else if (!s->want.latency && s->dist != 0) {
		dist_unregister(s->dist);
		s->dist = 0;
	}
}

/* The state of a row, made or updated to w; a changed spec or filter is a
 * new probe, counting from zero. */
static bool same_want(const struct probe_want *a, const struct probe_want *b)
{
	return spec_same(&a->spec, &b->spec) && filter_same(&a->filter, &b->filter);
}

static struct pstate *adopt(const struct probe_want *w)
{
	struct pstate *s = find_state(w->id), *grown;

	if (s == NULL) {
		grown = realloc(P.st, (P.n + 1) * sizeof(*grown));
		if (grown == NULL)
			return NULL;
		P.st = grown;
		s = &P.st[P.n++];
		memset(s, 0, sizeof(*s));
		s->want = *w;
		s->oper = OPER_DOWN;
		reset_probe(s);
	} else if (!same_want(&s->want, w)) {
		s->want = *w;
		reset_probe(s);
		if (s->dist != 0)
			dist_set(s->dist, &s->hbase);
	}
	s->want.active = w->active;
	s->want.latency = w->latency;
	set_dist(s);
	return s;
}

static void drop_state(struct pstate *s)
{
	if (s->dist != 0)
		dist_unregister(s->dist);
	free(s->cpu);
	*s = P.st[--P.n];
}

static bool listed(const union source_cmd_row *rows, size_t n, uint32_t id)
{
	for (size_t i = 0; i < n; i++)
		if (rows[i].probe.id == id)
			return true;
	return false;
}

/* Every row of the probe table, from the SNMP thread's last change. A row
 * (re)activated is tried again even where its spec failed before: that is
 * how a user asks for another attempt. */
static void want_rows(const union source_cmd_row *rows, size_t n)
{
	pthread_mutex_lock(&P.lock);
	for (size_t i = P.n; i-- > 0;)
		if (!listed(rows, n, P.st[i].want.id))
			drop_state(&P.st[i]);
	for (size_t i = 0; i < n; i++) {
		struct pstate *old = find_state(rows[i].probe.id);
		bool was_active = old != NULL && old->want.active;
		struct pstate *s = adopt(&rows[i].probe);

		if (s == NULL)
			continue;
		if (s->want.active && !was_active)
			s->failed = false;
		if (!s->want.active && s->oper == OPER_UP)
			s->oper = OPER_DOWN;
	}
	pthread_mutex_unlock(&P.lock);
}

static void want_traces(const union source_cmd_row *rows, size_t n)
{
	struct trace_want *w = calloc(n ? n : 1, sizeof(*w));

	if (w == NULL) {
		syslog(LOG_ERR, "clustermond: out of memory: trace rows not taken");
		return;
	}
	for (size_t i = 0; i < n; i++)
		w[i] = rows[i].trace;
	traces_want(w, n);
	free(w);
}

static void want_dists(const union source_cmd_row *rows, size_t n)
{
	struct dist_want *w = calloc(n ? n : 1, sizeof(*w));

	if (w == NULL) {
		syslog(LOG_ERR, "clustermond: out of memory: distribution rows not taken");
		return;
	}
	for (size_t i = 0; i < n; i++)
		w[i] = rows[i].dist;
	dists_want(w, n);
	free(w);
}

static void probes_command(void *ctx, const struct source_cmd *cmd)
{
	(void)ctx;
	if (cmd->kind == SOURCE_CMD_DIST_ROWS)
		want_dists(cmd->rows, cmd->nrows);
	else if (cmd->kind == SOURCE_CMD_PROBE_ROWS)
		want_rows(cmd->rows, cmd->nrows);
	else if (cmd->kind == SOURCE_CMD_TRACE_ROWS)
		want_traces(cmd->rows, cmd->nrows);
}

static void probes_configure(void *ctx, const struct sources_conf *c)
{
	(void)ctx;
	pthread_mutex_lock(&P.lock);
	snprintf(P.socket, sizeof(P.socket), "%s",
		 c->helper_socket[0] ? c->helper_socket : PROBES_DEFAULT_SOCKET);
	pthread_mutex_unlock(&P.lock);
}

/* Records the outcome of an add for s (lock held). */
static void record_add(struct pstate *s, enum helper_result r, bool fresh, const char *cls,
		       const char *why)
{
	if (r == HELPER_OK) {
		if (fresh)
			rebase_probe(s);
		s->oper = OPER_UP;
		s->failed = false;
		return;
	}
	snprintf(s->error, sizeof(s->error), "%s", why);
	s->oper = r == HELPER_DOWN ? OPER_DOWN :
		  strcmp(cls, "unsupported") == 0 ? OPER_UNSUPPORTED : OPER_FAILED;
	s->failed = r == HELPER_REFUSED;
}

/* ------------------------------------------------------------ sampling */

struct action {
	bool add;
	struct probe_want want;
};

struct plan {
	size_t n;
	struct action *a;
};

static void plan_push(struct plan *pl, bool add, const struct probe_want *w)
{
	struct action *grown = realloc(pl->a, (pl->n + 1) * sizeof(*grown));

	if (grown == NULL)
		return;
	pl->a = grown;
	pl->a[pl->n].add = add;
	pl->a[pl->n].want = *w;
	pl->n++;
}

/* Reads one wanted row's probe, or plans what it needs (lock held). */
static void reconcile_row(struct pstate *s, const struct helper_reading *rd, struct plan *pl)
{
	const struct helper_probe *p = helper_find_probe(rd, s->want.id);
	bool matches = p != NULL && p->listed && spec_same(&p->spec, &s->want.spec) &&
		       filter_same(&p->filter, &s->want.filter);

	if (!s->want.active) {
		if (p != NULL)
			plan_push(pl, false, &s->want);
		/* A failed activation keeps saying why (failed, unsupported). */
		if (s->oper == OPER_UP)
			s->oper = OPER_DOWN;
		return;
	}
	if (matches) {
		absorb_probe(s, p);
		s->oper = OPER_UP;
	} else if (!s->failed) {
		plan_push(pl, true, &s->want);
	}
}

static void reconcile(const struct helper_reading *rd, struct plan *pl)
{
	for (size_t i = 0; i < P.n; i++)
		reconcile_row(&P.st[i], rd, pl);
	/* Probes nobody wants: left by an earlier run of the subagent. */
	for (size_t i = 0; i < rd->nprobes; i++) {
		struct probe_want gone = { .id = rd->probes[i].id };

		if (find_state(gone.id) == NULL)
			plan_push(pl, false, &gone);
	}
}

/* A helper we have not seen before (or that restarted): its counts start
 * from zero, and specs that failed on the old one may work now. */
static void new_instance(const char *instance)
{
	snprintf(P.instance, sizeof(P.instance), "%s", instance);
	for (size_t i = 0; i < P.n; i++) {
		rebase_probe(&P.st[i]);
		P.st[i].failed = false;
	}
	for (unsigned c = 0; c < P.ncpu; c++)
		mono_counter_restart(&P.busy[c]);
	mono_counter_restart(&P.retransmits);
	mono_counter_restart(&P.drops);
	for (size_t i = 0; i < P.ndrop; i++)
		mono_counter_restart(&P.drop[i].packets);
	log2hist_merge(&P.rq_base, &P.rq_raw);
	log2hist_init(&P.rq_raw, HELPER_HIST_BUCKETS);
}

static struct drop_state *reason_state(const struct helper_drop *d)
{
	struct drop_state *grown;
	size_t i = 0;

	while (i < P.ndrop && P.drop[i].reason < d->reason)
		i++;
	if (i < P.ndrop && P.drop[i].reason == d->reason)
		return &P.drop[i];
	grown = realloc(P.drop, (P.ndrop + 1) * sizeof(*grown));
	if (grown == NULL)
		return NULL;
	P.drop = grown;
	memmove(&P.drop[i + 1], &P.drop[i], (P.ndrop - i) * sizeof(*P.drop));
	P.ndrop++;
	memset(&P.drop[i], 0, sizeof(P.drop[i]));
	P.drop[i].reason = d->reason;
	snprintf(P.drop[i].name, sizeof(P.drop[i].name), "%s", d->name);
	return &P.drop[i];
}

static void absorb_drops(const struct helper_reading *rd)
{
	if (!rd->has_sensors)
		return;
	P.have_sensors = true;
	mono_counter_feed_zeroed(&P.retransmits, rd->tcp_retransmits);
	mono_counter_feed_zeroed(&P.drops, rd->skb_drops);
	for (size_t i = 0; i < rd->ndrops; i++) {
		struct drop_state *d = reason_state(&rd->drops[i]);

		if (d != NULL)
			mono_counter_feed_zeroed(&d->packets, rd->drops[i].count);
	}
}

static void absorb_sensors(const struct helper_reading *rd)
{
	struct log2hist h;

	absorb_drops(rd);
	if (!rd->has_sched)
		return;
	if (P.busy == NULL && (P.busy = calloc(rd->ncpu, sizeof(*P.busy))) != NULL)
		P.ncpu = rd->ncpu;
	for (unsigned c = 0; c < P.ncpu && c < rd->ncpu; c++)
		mono_counter_feed_zeroed(&P.busy[c], rd->busy_ns[c]);
	if (P.rq_dist == 0)
		P.rq_dist = dist_register("sched.runqlat", "ns", HELPER_HIST_BUCKETS);
	absorb_hist(&P.rq_base, &P.rq_raw, &rd->runqlat);
	served_hist(&P.rq_base, &P.rq_raw, &h);
	dist_set(P.rq_dist, &h);
}

static void helper_gone(void)
{
	pthread_mutex_lock(&P.lock);
	if (P.helper == HELPER_RUNNING)
		P.helper = HELPER_FAILED;
	for (size_t i = 0; i < P.n; i++)
		if (P.st[i].oper == OPER_UP)
			P.st[i].oper = OPER_DOWN;
	pthread_mutex_unlock(&P.lock);
}

static void carry_out(const char *path, struct plan *pl)
{
	char cls[32], why[PROBE_ERROR_MAX], *reply;
	bool fresh;

	for (size_t i = 0; i < pl->n; i++) {
		const struct probe_want *w = &pl->a[i].want;
		struct wire_request req = { .verb = pl->a[i].add ? WIRE_ADD : WIRE_DEL, .id = w->id,
					    .spec = w->spec, .filter = w->filter };
		enum helper_result r;
		struct pstate *s;

		if (!pl->a[i].add) {
			if (helper_send(path, &req, POLL_TIMEOUT_MS, &reply, why, sizeof(why)) ==
			    HELPER_OK)
				free(reply);
			continue;
		}
		fresh = false;
		r = helper_add(path, &req, ADD_TIMEOUT_MS, &fresh, cls, sizeof(cls), why,
			       sizeof(why));
		pthread_mutex_lock(&P.lock);
		s = find_state(w->id);
		if (s != NULL && same_want(&s->want, w))
			record_add(s, r, fresh, cls, why);
		pthread_mutex_unlock(&P.lock);
	}
	free(pl->a);
}

static int probes_sample(void *ctx)
{
	char path[PATH_MAX], why[256], *reply = NULL, instance[sizeof(P.instance)];
	struct helper_reading rd;
	struct plan pl = { 0 };
	bool was_running;

	(void)ctx;
	pthread_mutex_lock(&P.lock);
	memcpy(path, P.socket, sizeof(path));
	was_running = P.helper == HELPER_RUNNING;
	pthread_mutex_unlock(&P.lock);
	if (helper_ask(path, HELPER_ASK_POLL, POLL_TIMEOUT_MS, &reply, why, sizeof(why)) !=
		    HELPER_OK ||
	    helper_parse_poll(reply, &rd, why, sizeof(why)) != 0) {
		free(reply);
		helper_gone();
		dists_sync(path, NULL);
		/* No helper at all is a normal set-up, not a sampling error. */
		return was_running ? -1 : 0;
	}
	free(reply);
	pthread_mutex_lock(&P.lock);
	if (strcmp(P.instance, rd.instance) != 0)
		new_instance(rd.instance);
	P.helper = HELPER_RUNNING;
	reconcile(&rd, &pl);
	absorb_sensors(&rd);
	memcpy(instance, P.instance, sizeof(instance));
	pthread_mutex_unlock(&P.lock);
	helper_reading_free(&rd);
	carry_out(path, &pl);
	traces_sync(path, true);   /* trace sessions share this thread (traces.h) */
	dists_sync(path, instance);   /* and distribution rows (dists.h) */
	return 0;
}

/* ------------------------------------------------------------ the view */

static int by_id(const void *a, const void *b)
{
	const struct probe_reading *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

static void fill_reading(struct probe_reading *r, const struct pstate *s, uint64_t *cpu)
{
	r->id = s->want.id;
	r->oper = s->oper;
	memcpy(r->error, s->error, sizeof(r->error));
	r->hits = s->hits.value;
	r->sampled = s->sampled.value;
	r->lost = s->lost.value;
	r->ncpu = s->ncpu;
	r->cpu_hits = cpu;
	for (unsigned c = 0; c < s->ncpu; c++)
		cpu[c] = s->cpu[c].value;
}

/* The sensor counters, served only while the helper runs (lock held). */
static void fill_drops(struct probes_view *v, struct drop_reading *drops)
{
	v->have_sensors = P.have_sensors && P.helper == HELPER_RUNNING;
	v->tcp_retransmits = P.retransmits.value;
	v->skb_drops = P.drops.value;
	v->ndrops = v->have_sensors ? P.ndrop : 0;
	v->drops = drops;
	for (size_t i = 0; i < v->ndrops; i++) {
		drops[i].reason = P.drop[i].reason;
		memcpy(drops[i].name, P.drop[i].name, sizeof(drops[i].name));
		drops[i].packets = P.drop[i].packets.value;
	}
}

/* One block: the view, its rows, every per-CPU array, the drop reasons.
 * (uint64_t arrays end on an 8-byte boundary, so the drops that follow
 * are aligned.) */
struct probes_view *probes_view_take(void)
{
	struct probes_view *v;
	size_t ncounts;
	uint64_t *cpu;

	pthread_mutex_lock(&P.lock);
	ncounts = P.ncpu;
	for (size_t i = 0; i < P.n; i++)
		ncounts += P.st[i].ncpu;
	v = malloc(sizeof(*v) + P.n * sizeof(v->rows[0]) + ncounts * sizeof(uint64_t) +
		   P.ndrop * sizeof(v->drops[0]));
	if (v != NULL) {
		fill_drops(v, (struct drop_reading *)((char *)(v + 1) +
			   P.n * sizeof(v->rows[0]) + ncounts * sizeof(uint64_t)));
		v->helper = P.helper;
		v->n = P.n;
		v->rows = (struct probe_reading *)(v + 1);
		cpu = (uint64_t *)(v->rows + P.n);
		for (size_t i = 0; i < P.n; i++) {
			fill_reading(&v->rows[i], &P.st[i], cpu);
			cpu += P.st[i].ncpu;
		}
		v->ncpu = P.helper == HELPER_RUNNING ? P.ncpu : 0;
		v->busy_ns = cpu;
		for (unsigned c = 0; c < P.ncpu; c++)
			cpu[c] = P.busy[c].value;
	}
	pthread_mutex_unlock(&P.lock);
	if (v != NULL && v->n > 1)
		qsort(v->rows, v->n, sizeof(v->rows[0]), by_id);
	return v;
}

void probes_view_free(struct probes_view *v)
{
	free(v);
}

int probes_helper_state(void)
{
	int state;

	pthread_mutex_lock(&P.lock);
	state = P.helper;
	pthread_mutex_unlock(&P.lock);
	return state;
}

static void *probes_init(const char *root)
{
	(void)root;
	log2hist_init(&P.rq_base, HELPER_HIST_BUCKETS);
	log2hist_init(&P.rq_raw, HELPER_HIST_BUCKETS);
	return &P;
}

static void probes_fini(void *ctx)
{
	(void)ctx;
	pthread_mutex_lock(&P.lock);
	while (P.n > 0)
		drop_state(&P.st[P.n - 1]);
	free(P.st);
	free(P.busy);
	free(P.drop);
	P.st = NULL;
	P.busy = NULL;
	P.drop = NULL;
	P.ndrop = 0;
	P.ncpu = 0;
	pthread_mutex_unlock(&P.lock);
	traces_clear();
	dists_clear();
}

const struct source_ops probes_source_ops = {
	.name = "probes",
	.default_interval_ms = 1000,
	/* A stopped helper may hold an exchange for up to its timeout. */
	.own_thread = true,
	.init = probes_init,
	.sample = probes_sample,
	.fini = probes_fini,
	.configure = probes_configure,
	.command = probes_command,
};
