/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * traces.c - trace sessions (see traces.h): the wishes of the SNMP thread,
 * carried out with the helper by the probes source's thread.
 */
#include "traces.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect/helper.h"

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

static struct {
	pthread_mutex_t lock;
	struct tstate *st;
	size_t n, cap;
} T = { .lock = PTHREAD_MUTEX_INITIALIZER };

static struct tstate *find(uint32_t id)
{
	for (size_t i = 0; i < T.n; i++)
		if (T.st[i].want.id == id)
			return &T.st[i];
	return NULL;
}

static struct tstate *add_state(const struct trace_want *w)
{
	struct tstate *s;

	if (T.n == T.cap) {
		size_t cap = T.cap ? T.cap * 2 : 8;
		struct tstate *grown = realloc(T.st, cap * sizeof(*grown));

		if (grown == NULL)
			return NULL;
		T.st = grown;
		T.cap = cap;
	}
	s = &T.st[T.n++];
	memset(s, 0, sizeof(*s));
	s->want = *w;
	s->rd.id = w->id;
	s->rd.oper = TOPER_IDLE;
	return s;
}

static void drop_state(size_t i)
{
	T.st[i] = T.st[--T.n];
}

static bool wanted(const struct trace_want *rows, size_t n, uint32_t id)
{
	for (size_t i = 0; i < n; i++)
		if (rows[i].id == id)
			return true;
	return false;
}

void traces_want(const struct trace_want *rows, size_t n)
{
	pthread_mutex_lock(&T.lock);
	for (size_t i = T.n; i-- > 0;) {
		if (wanted(rows, n, T.st[i].want.id))
			continue;
		if (T.st[i].rd.oper == TOPER_RUNNING)
			T.st[i].gone = true;   /* stopped at the next sync, then dropped */
		else
			drop_state(i);
	}
	for (size_t i = 0; i < n; i++) {
		struct tstate *s = find(rows[i].id);

		if (s == NULL && (s = add_state(&rows[i])) == NULL)
			continue;
		s->want = rows[i];
		s->gone = false;
		if (rows[i].active && s->started != rows[i].generation &&
		    s->rd.oper != TOPER_PENDING) {
			s->rd.oper = TOPER_PENDING;
			s->rd.error[0] = '\0';
		}
	}
	pthread_mutex_unlock(&T.lock);
}

static struct action stop_action(const struct tstate *s, uint32_t generation)
{
	return (struct action){ s->want.id, generation, false,
				{ .verb = WIRE_STOP, .id = s->want.id } };
}

/* What to tell the helper, decided under the lock. */
static size_t plan(struct action *a, size_t max)
{
	size_t k = 0;

	for (size_t i = 0; i < T.n && k < max; i++) {
		struct tstate *s = &T.st[i];

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
static void started(const struct action *a, enum helper_result r, const char *reply,
		    const char *why)
{
	struct tstate *s = find(a->id);
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

static void carry_out(const char *path, const struct action *a, size_t k)
{
	char why[256], *reply;

	for (size_t i = 0; i < k; i++) {
		enum helper_result r = helper_send(path, &a[i].req, a[i].start ?
						   START_TIMEOUT_MS : LIST_TIMEOUT_MS, &reply, why,
						   sizeof(why));

		if (r != HELPER_OK)
			reply = NULL;
		if (a[i].start) {
			pthread_mutex_lock(&T.lock);
			started(&a[i], r == HELPER_OK ? HELPER_OK : HELPER_DOWN,
				reply ? reply : "", why);
			pthread_mutex_unlock(&T.lock);
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
static void absorb(const struct tracelist_entry *e, size_t n)
{
	for (size_t i = T.n; i-- > 0;) {
		struct tstate *s = &T.st[i];
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
			drop_state(i);
	}
}

void traces_sync(const char *path, bool helper_up)
{
	struct action a[64];
	struct tracelist_entry *e;
	char why[256], *reply;
	size_t k, n;

	if (!helper_up)
		return;
	pthread_mutex_lock(&T.lock);
	k = plan(a, sizeof(a) / sizeof(a[0]));
	pthread_mutex_unlock(&T.lock);
	carry_out(path, a, k);
	if (helper_ask(path, HELPER_ASK_TRACES, LIST_TIMEOUT_MS, &reply, why, sizeof(why)) !=
	    HELPER_OK)
		return;
	if (tracelist_parse(reply, &e, &n, why, sizeof(why)) == 0) {
		pthread_mutex_lock(&T.lock);
		absorb(e, n);
		pthread_mutex_unlock(&T.lock);
		free(e);
	}
	free(reply);
}

static int by_id(const void *a, const void *b)
{
	const struct trace_reading *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

struct traces_view *traces_view_take(void)
{
	struct traces_view *v = calloc(1, sizeof(*v));

	if (v == NULL)
		return NULL;
	pthread_mutex_lock(&T.lock);
	v->rows = calloc(T.n ? T.n : 1, sizeof(*v->rows));
	for (size_t i = 0; v->rows != NULL && i < T.n; i++)
		if (!T.st[i].gone)
			v->rows[v->n++] = T.st[i].rd;
	pthread_mutex_unlock(&T.lock);
	if (v->rows == NULL) {
		free(v);
		return NULL;
	}
	qsort(v->rows, v->n, sizeof(*v->rows), by_id);
	return v;
}

void traces_view_free(struct traces_view *v)
{
	if (v != NULL)
		free(v->rows);
	free(v);
}

void traces_clear(void)
{
	pthread_mutex_lock(&T.lock);
	free(T.st);
	T.st = NULL;
	T.n = T.cap = 0;
	pthread_mutex_unlock(&T.lock);
}
