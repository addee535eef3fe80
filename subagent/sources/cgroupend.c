// SPDX-License-Identifier: BSD-2-Clause
/* cgroupend.c - removed cgroups' last rows (cgroupend.h). */
#include "cgroupend.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

uint64_t cgend_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static size_t limit_of(const struct exit_conf *c)
{
	uint32_t n = c->entries ? c->entries : EXITLOG_DEFAULT_ENTRIES;

	return n > EXITLOG_MAX_ENTRIES ? EXITLOG_MAX_ENTRIES : n;
}

static void drop_oldest(struct cgend_log *l)
{
	cgroup_row_put(l->v[l->head].row);
	l->head = (l->head + 1) % l->cap;
	l->n--;
	l->changed = true;
}

/* Room for one more (the ring grown, or the oldest dropped): 0, or -1. */
static int make_room(struct cgend_log *l, size_t limit)
{
	struct cgroup_end *v;
	size_t cap;

	while (l->n >= limit && l->n > 0)
		drop_oldest(l);
	if (l->n < l->cap)
		return 0;
	cap = l->cap ? l->cap * 2 : 16;
	if ((v = malloc(cap * sizeof(*v))) == NULL)
		return -1;
	for (size_t i = 0; i < l->n; i++)
		v[i] = l->v[(l->head + i) % l->cap];
	free(l->v);
	l->v = v;
	l->cap = cap;
	l->head = 0;
	return 0;
}

void cgend_add(struct cgend_log *l, const struct exit_conf *c, struct cgroup_row *row,
	       uint64_t start_ms, uint64_t now_ns)
{
	struct cgroup_end *e;

	if (make_room(l, limit_of(c)) != 0)
		return;
	e = &l->v[(l->head + l->n++) % l->cap];
	if (l->next_index == 0)
		l->next_index = 1;
	e->index = l->next_index++;
	e->start_ms = start_ms;
	e->end_ms = cgend_now_ms();
	e->logged_ns = now_ns;
	e->row = row;
	atomic_fetch_add_explicit(&row->refs, 1, memory_order_relaxed);
	l->logged++;
	l->changed = true;
}

void cgend_expire(struct cgend_log *l, const struct exit_conf *c, uint64_t now_ns)
{
	uint64_t age = (uint64_t)(c->age_s ? c->age_s : EXITLOG_DEFAULT_AGE_S) * 1000000000ull;

	while (l->n > limit_of(c))
		drop_oldest(l);
	while (l->n > 0 && now_ns > l->v[l->head].logged_ns &&
	       now_ns - l->v[l->head].logged_ns > age)
		drop_oldest(l);
}

void cgroup_ends_drop(struct cgroup_ends *v)
{
	if (v == NULL || atomic_fetch_sub_explicit(&v->refs, 1, memory_order_acq_rel) != 1)
		return;
	for (size_t i = 0; i < v->n; i++)
		cgroup_row_put(v->e[i].row);
	free(v);
}

static struct cgroup_ends *make_view(const struct cgend_log *l)
{
	struct cgroup_ends *v = malloc(sizeof(*v) + l->n * sizeof(v->e[0]));

	if (v == NULL)
		return NULL;
	atomic_init(&v->refs, 1);
	v->n = l->n;
	v->logged = l->logged;
	for (size_t i = 0; i < l->n; i++) {
		v->e[i] = l->v[(l->head + i) % l->cap];
		atomic_fetch_add_explicit(&v->e[i].row->refs, 1, memory_order_relaxed);
	}
	return v;
}

struct cgroup_ends *cgend_view(struct cgend_log *l)
{
	if (l->view == NULL || l->changed) {
		struct cgroup_ends *v = make_view(l);

		if (v != NULL) {
			cgroup_ends_drop(l->view);
			l->view = v;
			l->changed = false;
		}
	}
	if (l->view != NULL)
		atomic_fetch_add_explicit(&l->view->refs, 1, memory_order_relaxed);
	return l->view;
}

void cgend_free(struct cgend_log *l)
{
	while (l->n > 0)
		drop_oldest(l);
	cgroup_ends_drop(l->view);
	free(l->v);
	memset(l, 0, sizeof(*l));
}
