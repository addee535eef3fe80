/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * traces.c - trace sessions (see traces.h): the wishes of the SNMP thread,
 * carried out with the helper by the probes source's thread.
 */
#include "traces.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect/helper.h"
#include "collect/tracelist.h"
#include "core/grow.h"

#define START_TIMEOUT_MS 3000   /* loading a program: the verifier's time */
#define LIST_TIMEOUT_MS 1000

struct tstate {
	struct trace_want want;
	struct trace_reading rd;
	uint32_t started;       /* the generation a start was sent for; 0 none */
	bool stop_sent;
	bool gone;              /* the row was destroyed: drop once stopped */
};

struct action {
	uint32_t id, generation;
	bool start;
	struct wire_request req;
};

struct traces {
	struct tstate *st;
	size_t n, cap;
};

static struct tstate *find(struct traces *t, uint32_t id)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->st[i].want.id == id)
			return &t->st[i];
	return NULL;
}

static struct tstate *add_state(struct traces *t, const struct trace_want *w)
{
	struct tstate *s;

	if (!cm_grow(&t->st, &t->cap, t->n, sizeof(*t->st), 8))
		return NULL;
	s = &t->st[t->n++];
	memset(s, 0, sizeof(*s));
	s->want = *w;
	s->rd.id = w->id;
	s->rd.oper = TOPER_IDLE;
	return s;
}

static void drop_state(struct traces *t, size_t i)
{
	t->st[i] = t->st[--t->n];
}

static bool wanted(const struct trace_want *rows, size_t n, uint32_t id)
{
	for (size_t i = 0; i < n; i++)
		if (rows[i].id == id)
			return true;
	return false;
}

void traces_want(struct traces *t, const struct trace_want *rows, size_t n)
{
	for (size_t i = t->n; i-- > 0;) {
		if (wanted(rows, n, t->st[i].want.id))
			continue;
		if (t->st[i].rd.oper == TOPER_RUNNING)
			t->st[i].gone = true;   /* stopped at the next sync, then dropped */
		else
			drop_state(t, i);
	}
	for (size_t i = 0; i < n; i++) {
		struct tstate *s = find(t, rows[i].id);

		if (s == NULL && (s = add_state(t, &rows[i])) == NULL)
			continue;
		s->want = rows[i];
		s->gone = false;
		if (rows[i].active && s->started != rows[i].generation &&
		    s->rd.oper != TOPER_PENDING) {
			s->rd.oper = TOPER_PENDING;
			s->rd.error[0] = '\0';
		}
	}
}

static struct action stop_action(const struct tstate *s, uint32_t generation)
{
	return (struct action){ s->want.id, generation, false,
				{ .verb = WIRE_STOP, .id = s->want.id } };
}

/* What to tell the helper. */
static size_t plan(struct traces *t, struct action *a, size_t max)
{
	size_t k = 0;

	for (size_t i = 0; i < t->n && k < max; i++) {
		struct tstate *s = &t->st[i];

		if (s->want.active && !s->gone && s->started != s->want.generation) {
			/* Re-activated while the last session still runs: the
			 * helper refuses a running id, so stop it first. */
			if (s->rd.oper == TOPER_RUNNING && k + 1 < max) {
				a[k++] = stop_action(s, 0);
			}
			a[k] = (struct action){ s->want.id, s->want.generation, true, s->want.req };
			a[k++].req.id = s->want.id;
			s->started = s->want.generation;
			s->stop_sent = false;
		} else if ((!s->want.active || s->gone) && s->rd.oper == TOPER_RUNNING &&
			   !s->stop_sent) {
			a[k++] = stop_action(s, s->want.generation);
			s->stop_sent = true;
		}
	}
	return k;
}

/* The helper's answer to a start: the session runs, or why not. */
static void started(struct traces *t, const struct action *a, enum helper_result r,
		    const char *reply, const char *why)
{
	struct tstate *s = find(t, a->id);
	struct wire_reply w = { .kind = WIRE_R_OK };

	if (s == NULL || s->want.generation != a->generation)
		return;
	s->rd.generation = a->generation;
	s->rd.records = s->rd.lost = s->rd.bytes = 0;
	if (r == HELPER_DOWN) {
		s->started = 0;         /* pending: tried again at the next sync */
		snprintf(s->rd.error, sizeof(s->rd.error), "%s", why);
	} else if (helper_status(reply, &w) && w.kind == WIRE_R_STARTED) {
		s->rd.oper = TOPER_RUNNING;
		s->rd.error[0] = '\0';
		snprintf(s->rd.dir, sizeof(s->rd.dir), "%s", w.u.started);
	} else {
		/* The err's reason is what a user acts on. */
		s->rd.oper = TOPER_FAILED;
		snprintf(s->rd.error, sizeof(s->rd.error), "%s",
			 w.kind == WIRE_R_ERR ? w.u.err.reason : "clustermon-kprobe gave no answer");
	}
}

static void carry_out(struct traces *t, const char *path, const struct action *a, size_t k)
{
	char why[256], *reply;

	for (size_t i = 0; i < k; i++) {
		enum helper_result r = helper_send(path, &a[i].req, a[i].start ?
						   START_TIMEOUT_MS : LIST_TIMEOUT_MS, &reply, why,
						   sizeof(why));

		if (r != HELPER_OK)
			reply = NULL;
		if (a[i].start) {
			started(t, &a[i], r == HELPER_OK ? HELPER_OK : HELPER_DOWN,
				reply ? reply : "", why);
		}
		free(reply);
	}
}

static void absorb_entry(struct tstate *s, const struct tracelist_entry *e)
{
	static const int oper[] = { TOPER_RUNNING, TOPER_FINISHED, TOPER_FAILED };

	s->rd.oper = oper[e->state];
	s->rd.records = e->records;
	s->rd.lost = e->lost;
	s->rd.bytes = e->bytes;
	snprintf(s->rd.dir, sizeof(s->rd.dir), "%s", e->dir);
	snprintf(s->rd.error, sizeof(s->rd.error), "%s", e->state == TRACELIST_RUNNING ? "" :
		 e->reason);
}

/* The helper's list into the sessions it started for us. */
static void absorb(struct traces *t, const struct tracelist_entry *e, size_t n)
{
	for (size_t i = t->n; i-- > 0;) {
		struct tstate *s = &t->st[i];
		size_t j;

		if (s->started == 0 || s->rd.oper == TOPER_PENDING)
			continue;
		for (j = 0; j < n && e[j].id != s->want.id; j++)
			;
		if (j < n && s->rd.oper != TOPER_FAILED)
			absorb_entry(s, &e[j]);
		else if (j == n && s->rd.oper == TOPER_RUNNING) {
			s->rd.oper = TOPER_FAILED;
			snprintf(s->rd.error, sizeof(s->rd.error),
				 "the helper restarted: the session ended with it");
		}
		if (s->gone && s->rd.oper != TOPER_RUNNING)
			drop_state(t, i);
	}
}

void traces_sync(struct traces *t, const char *path, bool helper_up)
{
	struct action a[64];
	struct tracelist_entry *e;
	char why[256], *reply;
	size_t k, n;

	if (!helper_up)
		return;
	k = plan(t, a, sizeof(a) / sizeof(a[0]));
	carry_out(t, path, a, k);
	if (helper_ask(path, HELPER_ASK_TRACES, LIST_TIMEOUT_MS, &reply, why, sizeof(why)) !=
	    HELPER_OK)
		return;
	if (tracelist_parse(reply, &e, &n, why, sizeof(why)) == 0) {
		absorb(t, e, n);
		free(e);
	}
	free(reply);
}

static int by_id(const void *a, const void *b)
{
	const struct trace_reading *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

/* A copy of the sessions for the probes source's snapshot. */
struct traces_view *traces_view_make(const struct traces *t)
{
	struct traces_view *v = calloc(1, sizeof(*v));

	if (v == NULL)
		return NULL;
	v->rows = calloc(t->n ? t->n : 1, sizeof(*v->rows));
	if (v->rows == NULL) {
		free(v);
		return NULL;
	}
	for (size_t i = 0; i < t->n; i++)
		if (!t->st[i].gone)
			v->rows[v->n++] = t->st[i].rd;
	qsort(v->rows, v->n, sizeof(*v->rows), by_id);
	return v;
}

void traces_view_destroy(struct traces_view *v)
{
	if (v != NULL)
		free(v->rows);
	free(v);
}

struct traces *traces_new(void)
{
	return calloc(1, sizeof(struct traces));
}

void traces_free(struct traces *t)
{
	if (t != NULL)
		free(t->st);
	free(t);
}
