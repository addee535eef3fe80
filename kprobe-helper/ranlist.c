/* SPDX-License-Identifier: BSD-2-Clause */
/* ranlist.c - the per-CPU "ran" rings of per-process accounting, read. */
#include "ranlist.h"

#include <stdlib.h>

bool ran_gen_newer(uint32_t a, uint32_t b)
{
	uint32_t d = (a - b) & CM_GEN_MASK;

	return d != 0 && d < (CM_GEN_MASK >> 1);
}

/* head and tail live in memory the programs write too: never more than a
 * ring is read, whatever they say. */
size_t ran_take(struct cm_ran_ring *r, uint64_t *out)
{
	uint64_t head = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);
	uint64_t tail = __atomic_load_n(&r->tail, __ATOMIC_RELAXED);
	size_t n;

	if (head - tail > CM_RAN_RING)
		tail = head - CM_RAN_RING;
	n = (size_t)(head - tail);
	for (size_t i = 0; i < n; i++)
		out[i] = r->ent[(tail + i) & (CM_RAN_RING - 1)];
	__atomic_store_n(&r->tail, head, __ATOMIC_RELEASE);
	return n;
}

size_t ran_decode(const uint64_t *ent, size_t n, struct ran_news *v)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		uint32_t tgid = (uint32_t)ent[i], mark = (ent[i] >> 32) & 3;

		if (tgid == 0 || tgid > CM_PID_MAX_LIMIT || mark < CM_RAN)
			continue;
		v[k++] = (struct ran_news){ .tgid = tgid, .mark = mark,
					    .gen = (uint32_t)(ent[i] >> 34) & CM_GEN_MASK };
	}
	return k;
}

static int by_tgid(const void *a, const void *b)
{
	const struct ran_news *x = a, *y = b;

	return x->tgid < y->tgid ? -1 : x->tgid > y->tgid;
}

/* The marks of one tgid's entries, from v[*i] on, folded into one. */
static struct ran_news fold(const struct ran_news *v, size_t n, size_t *i)
{
	struct ran_news m = { .tgid = v[*i].tgid, .mark = CM_RAN };
	bool has_new = false, has_exit = false;
	uint32_t new_gen = 0, exit_gen = 0;

	for (; *i < n && v[*i].tgid == m.tgid; (*i)++) {
		const struct ran_news *e = &v[*i];

		if (e->mark == CM_NEW && (!has_new || ran_gen_newer(e->gen, new_gen))) {
			has_new = true;
			new_gen = e->gen;
		} else if (e->mark == CM_EXITED && (!has_exit || ran_gen_newer(e->gen, exit_gen))) {
			has_exit = true;
			exit_gen = e->gen;
		}
	}
	if (has_new)
		m.mark = CM_NEW;
	if (has_exit && (!has_new || !ran_gen_newer(new_gen, exit_gen)))
		m.mark = CM_EXITED;
	return m;
}

size_t ran_merge(struct ran_news *v, size_t n)
{
	size_t out = 0, i = 0;

	qsort(v, n, sizeof(*v), by_tgid);
	while (i < n)
		v[out++] = fold(v, n, &i);
	return out;
}

struct ran_news *ran_find(struct ran_news *v, size_t n, uint32_t tgid)
{
	struct ran_news key = { .tgid = tgid };

	return bsearch(&key, v, n, sizeof(*v), by_tgid);
}
