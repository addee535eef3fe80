/* SPDX-License-Identifier: BSD-2-Clause */
/* proctab.c - chunked copy-on-write process rows (see proctab.h). */
#include "proctab.h"

#include <stdlib.h>
#include <string.h>

void proctab_init(struct proctab *t)
{
	memset(t, 0, sizeof(*t));
	t->gen = 1;
}

static void chunk_put(struct proc_chunk *c)
{
	if (atomic_fetch_sub_explicit(&c->refs, 1, memory_order_acq_rel) == 1)
		free(c);
}

void proctab_free(struct proctab *t)
{
	for (size_t i = 0; i < t->n; i++)
		chunk_put(t->chunk[i]);
	free(t->chunk);
	memset(t, 0, sizeof(*t));
}

/* The first chunk whose last pid is >= pid (t->n when none). */
static size_t chunk_for(const struct proctab *t, int32_t pid)
{
	size_t lo = 0, hi = t->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct proc_chunk *c = t->chunk[mid];

		if (c->rows[c->n - 1].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The first row of c whose pid is >= pid. */
static uint32_t row_for(const struct proc_chunk *c, int32_t pid)
{
	uint32_t lo = 0, hi = c->n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (c->rows[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

const struct proc_row *proctab_find(const struct proctab *t, int32_t pid)
{
	size_t ci = chunk_for(t, pid);
	uint32_t ri;

	if (ci == t->n)
		return NULL;
	ri = row_for(t->chunk[ci], pid);
	return ri < t->chunk[ci]->n && t->chunk[ci]->rows[ri].pid == pid ?
		       &t->chunk[ci]->rows[ri] : NULL;
}

static struct proc_chunk *chunk_new(const struct proctab *t)
{
	struct proc_chunk *c = malloc(sizeof(*c));

	if (c == NULL)
		return NULL;
	atomic_init(&c->refs, 1);
	c->made = t->gen;
	c->n = 0;
	return c;
}

/* Chunk ci made writable: copied first if a snapshot may hold it. */
static struct proc_chunk *writable(struct proctab *t, size_t ci)
{
	struct proc_chunk *c = t->chunk[ci], *copy;

	if (c->made == t->gen)
		return c;
	if ((copy = chunk_new(t)) == NULL)
		return NULL;
	copy->n = c->n;
	memcpy(copy->rows, c->rows, c->n * sizeof(c->rows[0]));
	t->chunk[ci] = copy;
	chunk_put(c);
	return copy;
}

static int insert_chunk(struct proctab *t, size_t at, struct proc_chunk *c)
{
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64;
		struct proc_chunk **grown = realloc(t->chunk, cap * sizeof(*grown));

		if (grown == NULL)
			return -1;
		t->chunk = grown;
		t->cap = cap;
	}
	memmove(&t->chunk[at + 1], &t->chunk[at], (t->n - at) * sizeof(*t->chunk));
	t->chunk[at] = c;
	t->n++;
	return 0;
}

/* A full (writable) chunk ci split in two halves. */
static int split(struct proctab *t, size_t ci)
{
	struct proc_chunk *c = t->chunk[ci], *hi = chunk_new(t);
	uint32_t half = c->n / 2;

	if (hi == NULL)
		return -1;
	hi->n = c->n - half;
	memcpy(hi->rows, &c->rows[half], hi->n * sizeof(c->rows[0]));
	if (insert_chunk(t, ci + 1, hi) != 0) {
		free(hi);
		return -1;
	}
	c->n = half;
	return 0;
}

/* Same values, generation aside. */
static bool same_row(const struct proc_row *a, const struct proc_row *b)
{
	return a->pid == b->pid && a->state == b->state && a->uid == b->uid &&
	       a->threads == b->threads && a->util == b->util &&
	       a->system_share == b->system_share && a->user_ms == b->user_ms &&
	       a->system_ms == b->system_ms && a->have_schedstat == b->have_schedstat &&
	       a->cpu_ns == b->cpu_ns && a->run_delay_ns == b->run_delay_ns &&
	       a->rss_kb == b->rss_kb && a->minflt == b->minflt && a->majflt == b->majflt &&
	       a->vol_ctxsw == b->vol_ctxsw && a->invol_ctxsw == b->invol_ctxsw &&
	       a->start_time == b->start_time && strcmp(a->comm, b->comm) == 0 &&
	       strcmp(a->cmdline, b->cmdline) == 0;
}

static int add_row(struct proctab *t, size_t ci, const struct proc_row *r)
{
	struct proc_chunk *c;
	uint32_t ri;

	if (t->n == 0) {
		if ((c = chunk_new(t)) == NULL || insert_chunk(t, 0, c) != 0) {
			free(c);
			return -1;
		}
	}
	if (ci == t->n)
		ci--; /* beyond every pid: the last chunk */
	if ((c = writable(t, ci)) == NULL)
		return -1;
	if (c->n == PROC_CHUNK_ROWS) {
		if (split(t, ci) != 0)
			return -1;
		if (r->pid > t->chunk[ci]->rows[t->chunk[ci]->n - 1].pid)
			ci++;
		c = t->chunk[ci];
	}
	ri = row_for(c, r->pid);
	memmove(&c->rows[ri + 1], &c->rows[ri], (c->n - ri) * sizeof(c->rows[0]));
	c->rows[ri] = *r;
	c->rows[ri].gen = t->gen;
	c->n++;
	t->nrows++;
	return 1;
}

int proctab_put(struct proctab *t, const struct proc_row *r)
{
	size_t ci = chunk_for(t, r->pid);
	struct proc_chunk *c;
	uint32_t ri;

	if (ci < t->n) {
		ri = row_for(t->chunk[ci], r->pid);
		if (ri < t->chunk[ci]->n && t->chunk[ci]->rows[ri].pid == r->pid) {
			if (same_row(r, &t->chunk[ci]->rows[ri]))
				return 0;
			if ((c = writable(t, ci)) == NULL)
				return -1;
			c->rows[ri] = *r;
			c->rows[ri].gen = t->gen;
			return 1;
		}
	}
	return add_row(t, ci, r);
}

int proctab_del(struct proctab *t, int32_t pid)
{
	size_t ci = chunk_for(t, pid);
	struct proc_chunk *c;
	uint32_t ri;

	if (ci == t->n)
		return 0;
	ri = row_for(t->chunk[ci], pid);
	if (ri == t->chunk[ci]->n || t->chunk[ci]->rows[ri].pid != pid)
		return 0;
	if (t->chunk[ci]->n == 1) {
		chunk_put(t->chunk[ci]);
		memmove(&t->chunk[ci], &t->chunk[ci + 1], (t->n - ci - 1) * sizeof(*t->chunk));
		t->n--;
	} else {
		if ((c = writable(t, ci)) == NULL)
			return -1;
		memmove(&c->rows[ri], &c->rows[ri + 1], (c->n - ri - 1) * sizeof(c->rows[0]));
		c->n--;
	}
	t->nrows--;
	return 1;
}

static struct proc_rank_key key_of(const struct proc_row *r)
{
	return (struct proc_rank_key){ .util = r->util, .pid = r->pid, .rss_kb = r->rss_kb };
}

int proc_row_busier(const struct proc_row *a, const struct proc_row *b)
{
	struct proc_rank_key x = key_of(a), y = key_of(b);

	return proc_key_busier(&x, &y);
}

/* Each chunk changed since the last publish keeps its busiest row's key
 * beside its count, so a ranking reads one line of each chunk to find the
 * few chunks that can hold the top rows. */
static void find_busiest(struct proc_chunk *c)
{
	c->best = c->n ? key_of(&c->rows[0]) : (struct proc_rank_key){ 0 };
	for (uint32_t i = 1; i < c->n; i++) {
		struct proc_rank_key k = key_of(&c->rows[i]);

		if (proc_key_busier(&k, &c->best) < 0)
			c->best = k;
	}
}

static void snapshot_destroy(struct snapshot *s)
{
	struct proc_snapshot *p = (struct proc_snapshot *)s;

	for (size_t i = 0; i < p->nchunks; i++)
		chunk_put(p->chunks[i]);
	free(p->view);
	free(p);
}

struct proc_snapshot *proctab_publish(struct proctab *t)
{
	struct proc_snapshot *s;
	size_t at = 0;

	/* One allocation: the header, the chunks' busiest keys (read by the
	 * ranking in one pass, without touching the chunks), the chunk
	 * pointers, their first rows. */
	s = calloc(1, sizeof(*s) + t->n * (sizeof(*s->best) + sizeof(*s->chunks) +
					   sizeof(*s->first)));
	if (s == NULL)
		return NULL;
	s->hdr.refs = 1;
	s->hdr.destroy = snapshot_destroy;
	s->gen = t->gen;
	s->nchunks = t->n;
	s->best = (struct proc_rank_key *)(s + 1);
	s->chunks = (struct proc_chunk **)(s->best + t->n);
	s->first = (size_t *)(s->chunks + t->n);
	for (size_t i = 0; i < t->n; i++) {
		if (t->chunk[i]->made == t->gen)
			find_busiest(t->chunk[i]);
		atomic_fetch_add_explicit(&t->chunk[i]->refs, 1, memory_order_relaxed);
		s->chunks[i] = t->chunk[i];
		s->best[i] = t->chunk[i]->best;
		s->first[i] = at;
		at += t->chunk[i]->n;
	}
	s->nall = at;
	s->nrows = at;
	t->gen++;
	return s;
}

/* Where the last lookup on this thread landed: walks (GETNEXT, the image
 * writer) ask for row after row, so the next one is in the same chunk or
 * the one after, without a search. */
static _Thread_local const struct proc_snapshot *cursor_snap;
static _Thread_local size_t cursor_chunk;

static bool in_chunk(const struct proc_snapshot *s, size_t c, size_t i)
{
	return c < s->nchunks && s->first[c] <= i && i < s->first[c] + s->chunks[c]->n;
}

/* The chunk that holds row i (< s->nall) of every row. */
static size_t chunk_at(const struct proc_snapshot *s, size_t i)
{
	size_t lo = 0, hi = s->nchunks;

	if (cursor_snap == s && in_chunk(s, cursor_chunk, i))
		lo = cursor_chunk;
	else if (cursor_snap == s && in_chunk(s, cursor_chunk + 1, i))
		lo = cursor_chunk + 1;
	else /* the last chunk whose first row is <= i */
		while (hi - lo > 1) {
			size_t mid = lo + (hi - lo) / 2;

			if (s->first[mid] <= i)
				lo = mid;
			else
				hi = mid;
		}
	cursor_snap = s;
	cursor_chunk = lo;
	return lo;
}

const struct proc_row *proc_snapshot_row(const struct proc_snapshot *s, size_t i)
{
	size_t c;

	if (s->view != NULL)
		return i < s->nrows ? s->view[i] : NULL;
	if (i >= s->nall)
		return NULL;
	c = chunk_at(s, i);
	return &s->chunks[c]->rows[i - s->first[c]];
}

size_t proc_snapshot_same_since(const struct proc_snapshot *s, size_t i, uint64_t since)
{
	size_t c, n = 0;

	if (s->view != NULL || i >= s->nall || since == 0)
		return 0;
	c = chunk_at(s, i);
	if (s->first[c] != i)
		return 0;
	/* A chunk made no later than snapshot since was in it as it is. */
	for (; c < s->nchunks && s->chunks[c]->made <= since; c++)
		n += s->chunks[c]->n;
	return n;
}

size_t proc_snapshot_changed(const struct proc_snapshot *s, uint64_t since, int32_t **pids,
			     size_t *cap)
{
	size_t n = 0;

	for (size_t i = 0; i < s->nchunks; i++) {
		const struct proc_chunk *c = s->chunks[i];

		if (c->made <= since)
			continue; /* copied last no later: no row in it is newer */
		for (uint32_t j = 0; j < c->n; j++) {
			if (c->rows[j].gen <= since)
				continue;
			if (n == *cap) {
				size_t bigger = *cap ? *cap * 2 : 64;
				int32_t *grown = realloc(*pids, bigger * sizeof(*grown));

				if (grown == NULL)
					return n;
				*pids = grown;
				*cap = bigger;
			}
			(*pids)[n++] = c->rows[j].pid;
		}
	}
	return n;
}
