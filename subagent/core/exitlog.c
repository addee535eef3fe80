// SPDX-License-Identifier: BSD-2-Clause
/* exitlog.c - the exit log in shared, append-only chunks (exitlog.h). */
#include "exitlog.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "pathglob.h"

bool exitlog_passes_unnamed(const struct exit_conf *c, const struct exit_entry *e)
{
	uint64_t life_ms = e->end_ms > e->start_ms ? e->end_ms - e->start_ms : 0;

	if (life_ms < c->min_life_ms || e->cpu_ns / 1000000u < c->min_cpu_ms)
		return false;
	return c->name[0] == '\0' || fnmatch(c->name, e->comm, 0) == 0;
}

bool exitlog_passes(const struct exit_conf *c, const struct exit_entry *e)
{
	if (!exitlog_passes_unnamed(c, e))
		return false;
	return c->cgroup[0] == '\0' || path_glob_match(c->cgroup, e->cgroup);
}

static uint32_t limit_of(const struct exit_conf *c)
{
	uint32_t n = c->entries ? c->entries : EXITLOG_DEFAULT_ENTRIES;

	return n > EXITLOG_MAX_ENTRIES ? EXITLOG_MAX_ENTRIES : n;
}

static uint64_t age_ns_of(const struct exit_conf *c)
{
	return (uint64_t)(c->age_s ? c->age_s : EXITLOG_DEFAULT_AGE_S) * 1000000000ull;
}

void exitlog_init(struct exitlog *l)
{
	memset(l, 0, sizeof(*l));
	l->first_index = 1;
}

static void chunk_drop(struct exit_chunk *c)
{
	if (c != NULL && atomic_fetch_sub_explicit(&c->refs, 1, memory_order_acq_rel) == 1)
		free(c);
}

void exitlog_free(struct exitlog *l)
{
	for (size_t i = 0; i < l->nchunks; i++)
		chunk_drop(l->chunk[i]);
	free(l->chunk);
	exitlog_init(l);
}

/* The oldest entry goes; its chunk with it once every entry of it went. */
static void drop_oldest(struct exitlog *l)
{
	l->n--;
	l->first_index++;
	l->bumped++;
	l->changed = true;
	/* A chunk goes once its last slot went; one emptied before that
	 * keeps its free slots for the next entries. */
	if (++l->off < EXIT_CHUNK)
		return;
	chunk_drop(l->chunk[0]);
	memmove(l->chunk, l->chunk + 1, (l->nchunks - 1) * sizeof(*l->chunk));
	l->nchunks--;
	l->off = 0;
}

/* A slot for the next entry: the last chunk's next one, or a new chunk. */
static struct exit_entry *next_slot(struct exitlog *l)
{
	size_t used = l->off + l->n;
	struct exit_chunk *c;

	if (used < l->nchunks * EXIT_CHUNK)
		return &l->chunk[used / EXIT_CHUNK]->e[used % EXIT_CHUNK];
	if (l->nchunks == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 4;
		struct exit_chunk **v = realloc(l->chunk, cap * sizeof(*v));

		if (v == NULL)
			return NULL;
		l->chunk = v;
		l->cap = cap;
	}
	if ((c = malloc(sizeof(*c))) == NULL)
		return NULL;
	atomic_init(&c->refs, 1);
	l->chunk[l->nchunks++] = c;
	return &c->e[0];
}

int exitlog_add(struct exitlog *l, const struct exit_conf *c, struct exit_entry *e,
		uint64_t now_ns)
{
	struct exit_entry *slot;

	if (!exitlog_passes(c, e)) {
		l->filtered++;
		return 0;
	}
	if (l->n >= limit_of(c))
		drop_oldest(l);
	if ((slot = next_slot(l)) == NULL)
		return -1;
	e->index = l->first_index + (uint32_t)l->n;
	e->logged_ns = now_ns;
	*slot = *e;
	l->n++;
	l->logged++;
	l->changed = true;
	return 1;
}

static const struct exit_entry *log_at(const struct exitlog *l, size_t i)
{
	size_t at = l->off + i;

	return &l->chunk[at / EXIT_CHUNK]->e[at % EXIT_CHUNK];
}

void exitlog_expire(struct exitlog *l, const struct exit_conf *c, uint64_t now_ns)
{
	uint64_t age = age_ns_of(c);

	while (l->n > limit_of(c))
		drop_oldest(l);
	while (l->n > 0 && now_ns > log_at(l, 0)->logged_ns &&
	       now_ns - log_at(l, 0)->logged_ns > age)
		drop_oldest(l);
}

struct exit_view *exitlog_view(struct exitlog *l)
{
	struct exit_view *v = malloc(sizeof(*v) + l->nchunks * sizeof(v->chunk[0]));

	if (v == NULL)
		return NULL;
	atomic_init(&v->refs, 1);
	v->n = l->n;
	v->off = l->off;
	v->nchunks = l->nchunks;
	v->first_index = l->first_index;
	v->logged = l->logged;
	v->bumped = l->bumped;
	v->filtered = l->filtered;
	v->lost = 0;
	for (size_t i = 0; i < l->nchunks; i++) {
		atomic_fetch_add_explicit(&l->chunk[i]->refs, 1, memory_order_relaxed);
		v->chunk[i] = l->chunk[i];
	}
	l->changed = false;
	return v;
}

struct exit_view *exit_view_ref(struct exit_view *v)
{
	if (v != NULL)
		atomic_fetch_add_explicit(&v->refs, 1, memory_order_relaxed);
	return v;
}

void exit_view_drop(struct exit_view *v)
{
	if (v == NULL || atomic_fetch_sub_explicit(&v->refs, 1, memory_order_acq_rel) != 1)
		return;
	for (size_t i = 0; i < v->nchunks; i++)
		chunk_drop(v->chunk[i]);
	free(v);
}

const struct exit_entry *exit_view_at(const struct exit_view *v, size_t i)
{
	size_t at = v->off + i;

	return &v->chunk[at / EXIT_CHUNK]->e[at % EXIT_CHUNK];
}

size_t exit_view_find(const struct exit_view *v, uint32_t index)
{
	if (index < v->first_index || (uint64_t)index - v->first_index >= v->n)
		return v->n;
	return index - v->first_index;
}
