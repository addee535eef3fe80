/* SPDX-License-Identifier: BSD-2-Clause */
/* proctab.c - chunked copy-on-write process rows (see proctab.h). */
#include "proctab.h"

#include <stdlib.h>
#include <string.h>

#include "core/lowerbound.h"

void proctab_init(struct proctab *t)
{
	memset(t, 0, sizeof(*t));
	t->gen = 1;
}

/* ------------------------------------------------ retired chunks */

static void retired_put(struct proc_retired *l)
{
	while (l != NULL && atomic_fetch_sub_explicit(&l->refs, 1, memory_order_acq_rel) == 1) {
		struct proc_retired *next = l->next;

		for (size_t i = 0; i < l->n; i++)
			free(l->c[i]);
		free(l->c);
		free(l);
		l = next;
	}
}

/* Room to retire one more chunk, asked before the table changes so that
 * retiring cannot fail half-way: 0, or -1 out of memory. */
static int retire_room(struct proctab *t)
{
	struct proc_retired *l = t->retire;
	struct proc_chunk **grown;
	size_t cap;

	if (l == NULL || l->n < l->cap)
		return 0;
	cap = l->cap ? l->cap * 2 : 16;
	if ((grown = realloc(l->c, cap * sizeof(*grown))) == NULL)
		return -1;
	l->c = grown;
	l->cap = cap;
	return 0;
}

/* c leaves the table: freed if no snapshot has seen it, else retired
 * (retire_room was asked). */
static void retire(struct proctab *t, struct proc_chunk *c)
{
	if (c->made == t->gen || t->retire == NULL)
		free(c);
	else
		t->retire->c[t->retire->n++] = c;
}

void proctab_free(struct proctab *t)
{
	for (size_t i = 0; i < t->n; i++) {
		if (retire_room(t) == 0)
			retire(t, t->slot[i].c);
		/* else kept forever: a snapshot may still read it */
	}
	retired_put(t->retire);
	procrank_free(&t->rank);
	free(t->slot);
	memset(t, 0, sizeof(*t));
}

/* ------------------------------------------------ the builder */

static struct proc_rank_key key_of(const struct proc_row *r)
{
	return (struct proc_rank_key){ .util = r->util, .pid = r->pid, .rss_kb = r->rss_kb };
}

/* Slot ci as its chunk now is. */
static void sync_slot(struct proctab *t, size_t ci)
{
	struct proc_slot *s = &t->slot[ci];

	s->made = s->c->made;
	s->n = s->c->n;
	s->last = s->c->n ? s->c->rows[s->c->n - 1].pid : 0;
}

/* What the searches below look for: a pid among the chunks, a chunk's
 * rows or its keys; or a row number among a snapshot's chunks. */
struct pid_key {
	const void *v;
	int32_t pid;
	size_t row;
};

static bool chunk_before(const void *ctx, size_t i)
{
	const struct pid_key *k = ctx;

	return ((const struct proc_slot *)k->v)[i].last < k->pid;
}

static bool row_before(const void *ctx, size_t i)
{
	const struct pid_key *k = ctx;

	return ((const struct proc_row *)k->v)[i].pid < k->pid;
}

static bool key_before(const void *ctx, size_t i)
{
	const struct pid_key *k = ctx;

	return ((const struct proc_rank_key *)k->v)[i].pid < k->pid;
}

static bool chunk_starts_by(const void *ctx, size_t i)
{
	const struct pid_key *k = ctx;

	return ((const struct proc_slot *)k->v)[i].first <= k->row;
}

/* The first chunk whose last pid is >= pid (t->n when none). */
static size_t chunk_for(const struct proctab *t, int32_t pid)
{
	return cm_lower_bound(0, t->n, chunk_before, &(struct pid_key){ t->slot, pid, 0 });
}

/* The first row of c whose pid is >= pid. */
static uint32_t row_for(const struct proc_chunk *c, int32_t pid)
{
	return (uint32_t)cm_lower_bound(0, c->n, row_before, &(struct pid_key){ c->rows, pid, 0 });
}

const struct proc_row *proctab_find(const struct proctab *t, int32_t pid)
{
	size_t ci = chunk_for(t, pid);
	const struct proc_chunk *c;
	uint32_t ri;

	if (ci == t->n)
		return NULL;
	c = t->slot[ci].c;
	ri = row_for(c, pid);
	return ri < c->n && c->rows[ri].pid == pid ? &c->rows[ri] : NULL;
}

static struct proc_chunk *chunk_new(const struct proctab *t)
{
	struct proc_chunk *c = malloc(sizeof(*c));

	if (c == NULL)
		return NULL;
	c->made = t->gen;
	c->n = 0;
	return c;
}

/* Chunk ci made writable: copied first if a snapshot may hold it. */
static struct proc_chunk *writable(struct proctab *t, size_t ci)
{
	struct proc_chunk *c = t->slot[ci].c, *copy;

	if (c->made == t->gen)
		return c;
	if (retire_room(t) != 0 || (copy = chunk_new(t)) == NULL)
		return NULL;
	copy->n = c->n;
	memcpy(copy->rows, c->rows, c->n * sizeof(c->rows[0]));
	t->slot[ci].c = copy;
	sync_slot(t, ci);
	retire(t, c);
	return copy;
}

static int insert_slot(struct proctab *t, size_t at, struct proc_chunk *c)
{
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64;
		struct proc_slot *grown = realloc(t->slot, cap * sizeof(*grown));

		if (grown == NULL)
			return -1;
		t->slot = grown;
		t->cap = cap;
	}
	memmove(&t->slot[at + 1], &t->slot[at], (t->n - at) * sizeof(*t->slot));
	memset(&t->slot[at], 0, sizeof(*t->slot));
	t->slot[at].c = c;
	sync_slot(t, at);
	t->n++;
	return 0;
}

/* A full (writable) chunk ci split in two halves. */
static int split(struct proctab *t, size_t ci)
{
	struct proc_chunk *c = t->slot[ci].c, *hi = chunk_new(t);
	uint32_t half = c->n / 2;

	if (hi == NULL)
		return -1;
	hi->n = c->n - half;
	memcpy(hi->rows, &c->rows[half], hi->n * sizeof(c->rows[0]));
	if (insert_slot(t, ci + 1, hi) != 0) {
		free(hi);
		return -1;
	}
	c->n = half;
	sync_slot(t, ci);
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
	struct proc_rank_key now;
	struct proc_chunk *c;
	uint32_t ri;

	if (t->n == 0) {
		if ((c = chunk_new(t)) == NULL || insert_slot(t, 0, c) != 0) {
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
		if (r->pid > t->slot[ci].last)
			ci++;
		c = t->slot[ci].c;
	}
	ri = row_for(c, r->pid);
	memmove(&c->rows[ri + 1], &c->rows[ri], (c->n - ri) * sizeof(c->rows[0]));
	c->rows[ri] = *r;
	c->rows[ri].gen = t->gen;
	c->n++;
	sync_slot(t, ci);
	t->nrows++;
	now = key_of(r);
	procrank_change(&t->rank, NULL, &now);
	return 1;
}

int proctab_put(struct proctab *t, const struct proc_row *r)
{
	size_t ci = chunk_for(t, r->pid);
	struct proc_chunk *c;
	uint32_t ri;

	if (ci < t->n) {
		c = t->slot[ci].c;
		ri = row_for(c, r->pid);
		if (ri < c->n && c->rows[ri].pid == r->pid) {
			struct proc_rank_key was = key_of(&c->rows[ri]), now = key_of(r);

			if (same_row(r, &c->rows[ri]))
				return 0;
			if ((c = writable(t, ci)) == NULL)
				return -1;
			if (proc_key_busier(&was, &now) != 0)
				procrank_change(&t->rank, &was, &now);
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
	struct proc_rank_key was;
	struct proc_chunk *c;
	uint32_t ri;

	if (ci == t->n)
		return 0;
	c = t->slot[ci].c;
	ri = row_for(c, pid);
	if (ri == c->n || c->rows[ri].pid != pid)
		return 0;
	was = key_of(&c->rows[ri]);
	if (c->n == 1) {
		if (retire_room(t) != 0)
			return -1;
		retire(t, c);
		memmove(&t->slot[ci], &t->slot[ci + 1], (t->n - ci - 1) * sizeof(*t->slot));
		t->n--;
	} else {
		if ((c = writable(t, ci)) == NULL)
			return -1;
		memmove(&c->rows[ri], &c->rows[ri + 1], (c->n - ri - 1) * sizeof(c->rows[0]));
		c->n--;
		sync_slot(t, ci);
	}
	t->nrows--;
	procrank_change(&t->rank, &was, NULL);
	return 1;
}

/* ------------------------------------------------ publishing */

int proc_row_busier(const struct proc_row *a, const struct proc_row *b)
{
	struct proc_rank_key x = key_of(a), y = key_of(b);

	return proc_key_busier(&x, &y);
}

/* A chunk changed since the last publish: its rows' keys, and its busiest
 * into its slot, so a ranking reads the slots to find the few chunks that
 * can hold the top rows and then only their keys. */
static void rank_keys(struct proc_slot *s)
{
	struct proc_chunk *c = s->c;

	s->best = (struct proc_rank_key){ 0 };
	for (uint32_t i = 0; i < c->n; i++) {
		c->keys[i] = key_of(&c->rows[i]);
		if (i == 0 || proc_key_busier(&c->keys[i], &s->best) < 0)
			s->best = c->keys[i];
	}
}

static void snapshot_destroy(struct snapshot *s)
{
	struct proc_snapshot *p = (struct proc_snapshot *)s;

	retired_put(p->retired);
	free(p->view);
	free(p);
}

struct proc_snapshot *proctab_publish(struct proctab *t)
{
	struct proc_retired *l = calloc(1, sizeof(*l));
	/* Not calloc: the slots are copied over, and zeroing them first was a
	 * second pass over 30 kB at every sample. */
	struct proc_snapshot *s = malloc(sizeof(*s) + t->n * sizeof(*t->slot));
	uint32_t at = 0;

	if (s == NULL || l == NULL) {
		free(s);
		free(l);
		return NULL;
	}
	/* The snapshot's reference and the builder's (until the next publish). */
	atomic_init(&l->refs, 2);
	memset(s, 0, sizeof(*s));
	for (size_t i = 0; i < t->n; i++) {
		if (t->slot[i].made == t->gen)
			rank_keys(&t->slot[i]);
		t->slot[i].first = at;
		at += t->slot[i].n;
	}
	s->hdr.refs = 1;
	s->hdr.destroy = snapshot_destroy;
	s->gen = t->gen;
	s->nchunks = t->n;
	s->slot = (struct proc_slot *)(s + 1);
	if (t->n > 0) /* an empty table has no slot array yet */
		memcpy(s->slot, t->slot, t->n * sizeof(*t->slot));
	s->nall = at;
	s->nrows = at;
	/* Chunks retired from now on wait for this snapshot too: the last
	 * publish's list holds this one until it is freed itself. */
	if (t->retire != NULL) {
		atomic_fetch_add_explicit(&l->refs, 1, memory_order_relaxed);
		t->retire->next = l;
		retired_put(t->retire);
	}
	t->retire = l;
	s->retired = l;
	t->gen++;
	return s;
}

/* The keep-th best of the chunks' busiest keys (room: keep pointers), or
 * NULL when there are not that many chunks. Those keep rows are all at
 * least as busy as it, so every row of the best keep is too, and so is its
 * chunk's busiest: a chunk whose busiest comes after the cut holds none of
 * them, and at most keep chunks are read key by key. */
static const struct proc_rank_key *cut_of(const struct proctab *t, size_t keep,
					  const struct proc_rank_key **v)
{
	size_t n = 0;

	for (size_t k = 0; k < t->n; k++) {
		const struct proc_rank_key *key = &t->slot[k].best;
		size_t i;

		if (n == keep && proc_key_busier(key, v[n - 1]) >= 0)
			continue;
		i = n < keep ? n++ : keep - 1;
		for (; i > 0 && proc_key_busier(key, v[i - 1]) < 0; i--)
			v[i] = v[i - 1];
		v[i] = key;
	}
	return n == keep ? v[keep - 1] : NULL;
}

/* The set filled again from the chunks that can hold its rows. */
static int fill_rank(struct proctab *t, size_t keep)
{
	const struct proc_rank_key **room = malloc(keep * sizeof(*room)), *cut;

	if (room == NULL)
		return -1;
	cut = cut_of(t, keep, room);
	procrank_fill_begin(&t->rank, keep);
	for (size_t k = 0; k < t->n; k++) {
		const struct proc_chunk *c = t->slot[k].c;

		if (cut != NULL && proc_key_busier(&t->slot[k].best, cut) > 0)
			continue;
		for (uint32_t j = 0; j < c->n; j++)
			procrank_fill_offer(&t->rank, &c->keys[j]);
	}
	procrank_fill_end(&t->rank);
	free(room);
	return t->rank.valid ? 0 : -1;
}

const struct proc_rank_key *proctab_top(struct proctab *t, size_t want, size_t *n)
{
	*n = 0;
	if (want > t->nrows)
		want = t->nrows;
	if (want == 0)
		return NULL;
	if (!procrank_ready(&t->rank, want) && fill_rank(t, 2 * want < 16 ? 16 : 2 * want) != 0)
		return NULL;
	*n = t->rank.n < want ? t->rank.n : want;
	return t->rank.v;
}

/* ------------------------------------------------ reading a snapshot */

/* Where the last lookup on this thread landed: walks (GETNEXT, the image
 * writer) ask for row after row, so the next one is in the same chunk or
 * the one after, without a search. */
static _Thread_local const struct proc_snapshot *cursor_snap;
static _Thread_local size_t cursor_chunk;

static bool in_chunk(const struct proc_snapshot *s, size_t c, size_t i)
{
	return c < s->nchunks && s->slot[c].first <= i && i < s->slot[c].first + s->slot[c].n;
}

/* The chunk that holds row i (< s->nall) of every row. */
static size_t chunk_at(const struct proc_snapshot *s, size_t i)
{
	size_t lo;

	if (cursor_snap == s && in_chunk(s, cursor_chunk, i))
		lo = cursor_chunk;
	else if (cursor_snap == s && in_chunk(s, cursor_chunk + 1, i))
		lo = cursor_chunk + 1;
	else /* the last chunk whose first row is <= i (the first chunk's is 0) */
		lo = cm_lower_bound(1, s->nchunks, chunk_starts_by,
				    &(struct pid_key){ s->slot, 0, i }) - 1;
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
	return &s->slot[c].c->rows[i - s->slot[c].first];
}

size_t proc_snapshot_same_since(const struct proc_snapshot *s, size_t i, uint64_t since)
{
	size_t c, n = 0;

	if (s->view != NULL || i >= s->nall || since == 0)
		return 0;
	c = chunk_at(s, i);
	if (s->slot[c].first != i)
		return 0;
	/* A chunk made no later than snapshot since was in it as it is. */
	for (; c < s->nchunks && s->slot[c].made <= since; c++)
		n += s->slot[c].n;
	return n;
}

size_t proc_snapshot_changed(const struct proc_snapshot *s, uint64_t since, int32_t **pids,
			     size_t *cap)
{
	size_t n = 0;

	for (size_t i = 0; i < s->nchunks; i++) {
		const struct proc_chunk *c = s->slot[i].c;

		if (s->slot[i].made <= since)
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

const struct proc_row *proc_snapshot_find(const struct proc_snapshot *s, int32_t pid)
{
	size_t at = cm_lower_bound(0, s->nchunks, chunk_before, &(struct pid_key){ s->slot, pid, 0 });
	const struct proc_chunk *c;

	if (at == s->nchunks)
		return NULL;
	c = s->slot[at].c;
	/* on the keys: four lines, not sixteen rows */
	at = cm_lower_bound(0, c->n, key_before, &(struct pid_key){ c->keys, pid, 0 });
	return at < c->n && c->keys[at].pid == pid ? &c->rows[at] : NULL;
}
