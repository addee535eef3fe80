/* SPDX-License-Identifier: BSD-2-Clause */
/* procrank.c - the busiest processes, kept by change (see procrank.h). */
#include "procrank.h"

#include <stdlib.h>
#include <string.h>

#include "core/lowerbound.h"

void procrank_free(struct proc_rankset *r)
{
	free(r->v);
	memset(r, 0, sizeof(*r));
}

static bool reaches_floor(const struct proc_rankset *r, const struct proc_rank_key *k)
{
	return r->all || proc_key_busier(k, &r->floor) <= 0;
}

struct rank_at {
	const struct proc_rankset *r;
	const struct proc_rank_key *k;
};

static bool ranks_before(const void *ctx, size_t i)
{
	const struct rank_at *a = ctx;

	return proc_key_busier(&a->r->v[i], a->k) < 0;
}

/* Where k is or would go in v. */
static size_t position(const struct proc_rankset *r, const struct proc_rank_key *k)
{
	struct rank_at a = { r, k };

	return cm_lower_bound(0, r->n, ranks_before, &a);
}

static void drop(struct proc_rankset *r, const struct proc_rank_key *k)
{
	size_t at = position(r, k);

	if (at == r->n || proc_key_busier(&r->v[at], k) != 0) {
		r->valid = false; /* the set lost track: fill it again */
		return;
	}
	memmove(&r->v[at], &r->v[at + 1], (r->n - at - 1) * sizeof(*r->v));
	r->n--;
}

static void add(struct proc_rankset *r, const struct proc_rank_key *k)
{
	size_t at;

	if (r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 64;
		struct proc_rank_key *grown = realloc(r->v, cap * sizeof(*grown));

		if (grown == NULL) {
			r->valid = false;
			return;
		}
		r->v = grown;
		r->cap = cap;
	}
	at = position(r, k);
	memmove(&r->v[at + 1], &r->v[at], (r->n - at) * sizeof(*r->v));
	r->v[at] = *k;
	r->n++;
	if (r->n > 2 * r->keep && r->keep > 0) { /* cut the tail, raise the floor */
		r->n = r->keep;
		r->floor = r->v[r->n - 1];
		r->all = false;
	}
}

void procrank_change(struct proc_rankset *r, const struct proc_rank_key *was,
		     const struct proc_rank_key *now)
{
	if (!r->valid)
		return;
	if (was != NULL && reaches_floor(r, was))
		drop(r, was);
	if (r->valid && now != NULL && reaches_floor(r, now))
		add(r, now);
}

bool procrank_ready(const struct proc_rankset *r, size_t want)
{
	return r->valid && (r->all || r->n >= want);
}

void procrank_fill_begin(struct proc_rankset *r, size_t keep)
{
	r->keep = keep;
	r->n = 0;
	r->valid = true;
	r->all = true;
	r->fills++;
}

/* The fill keeps the best keep offered: most are refused by one
 * comparison with the last kept. */
void procrank_fill_offer(struct proc_rankset *r, const struct proc_rank_key *k)
{
	if (!r->valid || (r->n == r->keep && proc_key_busier(k, &r->v[r->n - 1]) >= 0))
		return;
	if (r->n == r->keep)
		r->n--; /* the last kept gives way */
	add(r, k);
}

void procrank_fill_end(struct proc_rankset *r)
{
	/* Full: rows refused may rank just below the last kept, which
	 * becomes the floor. Not full: it holds every row. */
	r->all = r->n < r->keep;
	if (!r->all)
		r->floor = r->v[r->n - 1];
}
