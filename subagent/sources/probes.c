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
#include "probes.h"
#include "source_cmd.h"
#include "dists.h"
#include "traces.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "../collect/helper.h"
#include "common/clock.h"
#include "../core/counter.h"
#include "../runtime/dist.h"

static struct snapshot_slot probes_slot = SNAPSHOT_SLOT_INIT;

#define POLL_TIMEOUT_MS 1000
#define ADD_TIMEOUT_MS 5000

struct pstate {
	struct probe_want want;
	int oper;
	char error[PROBE_ERROR_MAX];
	bool failed;                /* want failed on this helper instance */
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

/* The source's state: its ctx, touched only on its own thread. */
struct probes_src {
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
	struct traces *traces;     /* the trace sessions (traces.h) */
};

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

static struct pstate *find_state(struct probes_src *p, uint32_t id)
{
	for (size_t i = 0; i < p->n; i++)
		if (p->st[i].want.id == id)
			return &p->st[i];
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

static bool same_want(const struct probe_want *a, const struct probe_want *b)
{
	return spec_same(&a->spec, &b->spec) && filter_same(&a->filter, &b->filter);
}

/* The state of a row, made or updated to w; a changed spec or filter is a
 * new probe, counting from zero. */
static struct pstate *adopt(struct probes_src *p, const struct probe_want *w)
{
	struct pstate *s = find_state(p, w->id), *grown;

	if (s == NULL) {
		grown = realloc(p->st, (p->n + 1) * sizeof(*grown));
		if (grown == NULL)
			return NULL;
		p->st = grown;
		s = &p->st[p->n++];
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

static void drop_state(struct probes_src *p, struct pstate *s)
{
	if (s->dist != 0)
		dist_unregister(s->dist);
	free(s->cpu);
	*s = p->st[--p->n];
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
static void want_rows(struct probes_src *p, const union source_cmd_row *rows, size_t n)
{
	for (size_t i = p->n; i-- > 0;)
		if (!listed(rows, n, p->st[i].want.id))
			drop_state(p, &p->st[i]);
	for (size_t i = 0; i < n; i++) {
		struct pstate *old = find_state(p, rows[i].probe.id);
		bool was_active = old != NULL && old->want.active;
		struct pstate *s = adopt(p, &rows[i].probe);

		if (s == NULL)
			continue;
		if (s->want.active && !was_active)
			s->failed = false;
		if (!s->want.active && s->oper == OPER_UP)
			s->oper = OPER_DOWN;
	}
}

static void want_traces(struct probes_src *p, const union source_cmd_row *rows, size_t n)
{
	struct trace_want *w = calloc(n ? n : 1, sizeof(*w));

	if (w == NULL) {
		syslog(LOG_ERR, "clustermond: out of memory: trace rows not taken");
		return;
	}
	for (size_t i = 0; i < n; i++)
		w[i] = rows[i].trace;
	traces_want(p->traces, w, n);
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

static void probes_configure(void *ctx, const struct sources_conf *c)
{
	struct probes_src *p = ctx;

	snprintf(p->socket, sizeof(p->socket), "%s",
		 c->helper_socket[0] ? c->helper_socket : PROBES_DEFAULT_SOCKET);
}

/* Records the outcome of an add for s. */
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

/* Reads one wanted row's probe, or plans what it needs. */
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

static void reconcile(struct probes_src *p, const struct helper_reading *rd, struct plan *pl)
{
	for (size_t i = 0; i < p->n; i++)
		reconcile_row(&p->st[i], rd, pl);
	/* Probes nobody wants: left by an earlier run of the subagent. */
	for (size_t i = 0; i < rd->nprobes; i++) {
		struct probe_want gone = { .id = rd->probes[i].id };

		if (find_state(p, gone.id) == NULL)
			plan_push(pl, false, &gone);
	}
}

/* A helper we have not seen before (or that restarted): its counts start
 * from zero, and specs that failed on the old one may work now. */
static void new_instance(struct probes_src *p, const char *instance)
{
	snprintf(p->instance, sizeof(((struct probes_src *)0)->instance), "%s", instance);
	for (size_t i = 0; i < p->n; i++) {
		rebase_probe(&p->st[i]);
		p->st[i].failed = false;
	}
	for (unsigned c = 0; c < p->ncpu; c++)
		mono_counter_restart(&p->busy[c]);
	mono_counter_restart(&p->retransmits);
	mono_counter_restart(&p->drops);
	for (size_t i = 0; i < p->ndrop; i++)
		mono_counter_restart(&p->drop[i].packets);
	log2hist_merge(&p->rq_base, &p->rq_raw);
	log2hist_init(&p->rq_raw, HELPER_HIST_BUCKETS);
}

static struct drop_state *reason_state(struct probes_src *p, const struct helper_drop *d)
{
	struct drop_state *grown;
	size_t i = 0;

	while (i < p->ndrop && p->drop[i].reason < d->reason)
		i++;
	if (i < p->ndrop && p->drop[i].reason == d->reason)
		return &p->drop[i];
	grown = realloc(p->drop, (p->ndrop + 1) * sizeof(*grown));
	if (grown == NULL)
		return NULL;
	p->drop = grown;
	memmove(&p->drop[i + 1], &p->drop[i], (p->ndrop - i) * sizeof(*p->drop));
	p->ndrop++;
	memset(&p->drop[i], 0, sizeof(p->drop[i]));
	p->drop[i].reason = d->reason;
	snprintf(p->drop[i].name, sizeof(p->drop[i].name), "%s", d->name);
	return &p->drop[i];
}

static void absorb_drops(struct probes_src *p, const struct helper_reading *rd)
{
	if (!rd->has_sensors)
		return;
	p->have_sensors = true;
	mono_counter_feed_zeroed(&p->retransmits, rd->tcp_retransmits);
	mono_counter_feed_zeroed(&p->drops, rd->skb_drops);
	for (size_t i = 0; i < rd->ndrops; i++) {
		struct drop_state *d = reason_state(p, &rd->drops[i]);

		if (d != NULL)
			mono_counter_feed_zeroed(&d->packets, rd->drops[i].count);
	}
}

static void absorb_sensors(struct probes_src *p, const struct helper_reading *rd)
{
	struct log2hist h;

	absorb_drops(p, rd);
	if (!rd->has_sched)
		return;
	if (p->busy == NULL && (p->busy = calloc(rd->ncpu, sizeof(*p->busy))) != NULL)
		p->ncpu = rd->ncpu;
	for (unsigned c = 0; c < p->ncpu && c < rd->ncpu; c++)
		mono_counter_feed_zeroed(&p->busy[c], rd->busy_ns[c]);
	if (!rd->has_runqlat)
		return;
	if (p->rq_dist == 0)
		p->rq_dist = dist_register("sched.runqlat", "ns", HELPER_HIST_BUCKETS);
	absorb_hist(&p->rq_base, &p->rq_raw, &rd->runqlat);
	served_hist(&p->rq_base, &p->rq_raw, &h);
	dist_set(p->rq_dist, &h);
}

static void helper_gone(struct probes_src *p)
{
	if (p->helper == HELPER_RUNNING)
		p->helper = HELPER_FAILED;
	for (size_t i = 0; i < p->n; i++)
		if (p->st[i].oper == OPER_UP)
			p->st[i].oper = OPER_DOWN;
}

static void carry_out(struct probes_src *p, const char *path, struct plan *pl)
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
		s = find_state(p, w->id);
		if (s != NULL && same_want(&s->want, w))
			record_add(s, r, fresh, cls, why);
	}
	free(pl->a);
}

static int poll_helper(struct probes_src *p)
{
	char path[PATH_MAX], why[256], *reply = NULL, instance[sizeof(((struct probes_src *)0)->instance)];
	struct helper_reading rd;
	struct plan pl = { 0 };
	bool was_running;

	memcpy(path, p->socket, sizeof(path));
	was_running = p->helper == HELPER_RUNNING;
	if (helper_ask(path, HELPER_ASK_POLL, POLL_TIMEOUT_MS, &reply, why, sizeof(why)) !=
		    HELPER_OK ||
	    helper_parse_poll(reply, &rd, why, sizeof(why)) != 0) {
		free(reply);
		helper_gone(p);
		dists_sync(path, NULL);
		/* No helper at all is a normal set-up, not a sampling error. */
		return was_running ? -1 : 0;
	}
	free(reply);
	if (strcmp(p->instance, rd.instance) != 0)
		new_instance(p, rd.instance);
	p->helper = HELPER_RUNNING;
	reconcile(p, &rd, &pl);
	absorb_sensors(p, &rd);
	memcpy(instance, p->instance, sizeof(instance));
	helper_reading_free(&rd);
	carry_out(p, path, &pl);
	traces_sync(p->traces, path, true);   /* trace sessions share this thread (traces.h) */
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

/* The sensor counters, served only while the helper runs. */
static void fill_drops(const struct probes_src *p, struct probes_view *v,
		       struct drop_reading *drops)
{
	v->have_sensors = p->have_sensors && p->helper == HELPER_RUNNING;
	v->tcp_retransmits = p->retransmits.value;
	v->skb_drops = p->drops.value;
	v->ndrops = v->have_sensors ? p->ndrop : 0;
	v->drops = drops;
	for (size_t i = 0; i < v->ndrops; i++) {
		drops[i].reason = p->drop[i].reason;
		memcpy(drops[i].name, p->drop[i].name, sizeof(drops[i].name));
		drops[i].packets = p->drop[i].packets.value;
	}
}

/* One block: the view, its rows, every per-CPU array, the drop reasons.
 * (uint64_t arrays end on an 8-byte boundary, so the drops that follow
 * are aligned.) */
static struct probes_view *make_view(const struct probes_src *p)
{
	struct probes_view *v;
	size_t ncounts = p->ncpu;
	uint64_t *cpu;

	for (size_t i = 0; i < p->n; i++)
		ncounts += p->st[i].ncpu;
	v = malloc(sizeof(*v) + p->n * sizeof(v->rows[0]) + ncounts * sizeof(uint64_t) +
		   p->ndrop * sizeof(v->drops[0]));
	if (v == NULL)
		return NULL;
	fill_drops(p, v, (struct drop_reading *)((char *)(v + 1) +
		   p->n * sizeof(v->rows[0]) + ncounts * sizeof(uint64_t)));
	v->helper = p->helper;
	v->n = p->n;
	v->rows = (struct probe_reading *)(v + 1);
	cpu = (uint64_t *)(v->rows + p->n);
	for (size_t i = 0; i < p->n; i++) {
		fill_reading(&v->rows[i], &p->st[i], cpu);
		cpu += p->st[i].ncpu;
	}
	v->ncpu = p->helper == HELPER_RUNNING ? p->ncpu : 0;
	v->busy_ns = cpu;
	for (unsigned c = 0; c < p->ncpu; c++)
		cpu[c] = p->busy[c].value;
	if (v->n > 1)
		qsort(v->rows, v->n, sizeof(v->rows[0]), by_id);
	return v;
}

/* ------------------------------------------------------------ publishing */

static void destroy_snapshot(struct snapshot *s)
{
	struct probes_snapshot *snap = (struct probes_snapshot *)s;

	free(snap->probes);
	traces_view_destroy(snap->traces);
	free(snap);
}

/* After every sample and command, so what is served is as fresh as the
 * source's own state. Out of memory keeps the last one served. */
static void publish(struct probes_src *p)
{
	struct probes_snapshot *snap = calloc(1, sizeof(*snap));

	if (snap == NULL)
		return;
	snap->hdr.refs = 1;
	snap->hdr.destroy = destroy_snapshot;
	snap->helper = p->helper;
	snap->probes = make_view(p);
	snap->traces = traces_view_make(p->traces);
	if (snap->probes == NULL || snap->traces == NULL) {
		destroy_snapshot(&snap->hdr);
		return;
	}
	snap->probes->owner = &snap->hdr;
	snap->traces->owner = &snap->hdr;
	snapshot_publish(&probes_slot, &snap->hdr);
}

struct probes_view *probes_view_take(void)
{
	struct snapshot *s = snapshot_acquire(&probes_slot);

	return s != NULL ? ((struct probes_snapshot *)s)->probes : NULL;
}

void probes_view_free(struct probes_view *v)
{
	if (v != NULL)
		snapshot_release(&probes_slot, v->owner);
}

struct traces_view *traces_view_take(void)
{
	struct snapshot *s = snapshot_acquire(&probes_slot);

	return s != NULL ? ((struct probes_snapshot *)s)->traces : NULL;
}

void traces_view_free(struct traces_view *v)
{
	if (v != NULL)
		snapshot_release(&probes_slot, v->owner);
}

/* ------------------------------------------------------------ the source */

static void probes_command(void *ctx, const struct source_cmd *cmd)
{
	struct probes_src *p = ctx;

	if (cmd->kind == SOURCE_CMD_DIST_ROWS)
		want_dists(cmd->rows, cmd->nrows);
	else if (cmd->kind == SOURCE_CMD_PROBE_ROWS)
		want_rows(p, cmd->rows, cmd->nrows);
	else if (cmd->kind == SOURCE_CMD_TRACE_ROWS)
		want_traces(p, cmd->rows, cmd->nrows);
	publish(p);
}

static int probes_sample(void *ctx)
{
	struct probes_src *p = ctx;
	int rc = poll_helper(p);

	publish(p);
	return rc;
}

static void *probes_init(const char *root)
{
	struct probes_src *p = calloc(1, sizeof(*p));

	(void)root;
	if (p == NULL || (p->traces = traces_new()) == NULL) {
		free(p);
		return NULL;
	}
	snprintf(p->socket, sizeof(p->socket), "%s", PROBES_DEFAULT_SOCKET);
	p->helper = HELPER_ABSENT;
	log2hist_init(&p->rq_base, HELPER_HIST_BUCKETS);
	log2hist_init(&p->rq_raw, HELPER_HIST_BUCKETS);
	return p;
}

static void probes_fini(void *ctx)
{
	struct probes_src *p = ctx;

	while (p->n > 0)
		drop_state(p, &p->st[p->n - 1]);
	free(p->st);
	free(p->busy);
	free(p->drop);
	traces_free(p->traces);
	free(p);
	dists_clear();
}

const struct source_ops probes_source_ops = {
	.index = SOURCE_PROBES,
	.name = "probes",
	.slot = &probes_slot,
	.default_interval_ms = 1000,
	.pinned = true,
	/* A stopped helper may hold an exchange for up to its timeout. */
	.own_thread = true,
	.init = probes_init,
	.sample = probes_sample,
	.fini = probes_fini,
	.configure = probes_configure,
	.command = probes_command,
};
