/* SPDX-License-Identifier: BSD-2-Clause */
/* ranlist.c - the per-CPU "ran" rings of per-process accounting, read. */
#include "ranlist.h"

#include <stdlib.h>
#include <string.h>

bool ran_gen_newer(uint32_t a, uint32_t b)
{
	uint32_t d = (a - b) & CM_GEN_MASK;

	return d != 0 && d < (CM_GEN_MASK >> 1);
}

/* head lives in memory the programs write: never more than a ring is
 * read, whatever it says. The programs overwrite the oldest entries while
 * we copy: head read again after the copy tells which copies may be torn,
 * and those are dropped (counted as lost). */
size_t ran_take(const struct cm_ran_ring *r, uint64_t *tail, uint64_t *out, bool *lost)
{
	uint64_t head = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE), t = *tail, again;
	size_t n, skip;

	if (head - t > CM_RAN_RING) {
		*lost = true;
		t = head - CM_RAN_RING;
	}
	n = (size_t)(head - t);
	for (size_t i = 0; i < n; i++)
		out[i] = r->ent[(t + i) & (CM_RAN_RING - 1)];
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	again = __atomic_load_n(&r->head, __ATOMIC_RELAXED);
	*tail = head;
	if (again - t <= CM_RAN_RING)
		return n;
	*lost = true;
	skip = again - t - CM_RAN_RING < n ? (size_t)(again - t - CM_RAN_RING) : n;
	memmove(out, out + skip, (n - skip) * sizeof(*out));
	return n - skip;
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

	if (n == 0)   /* v may be NULL then, which qsort must not see */
		return 0;
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

/* ------------------------------------------------------------ a reader */

int ran_reader_init(struct ran_reader *rd, size_t nrings)
{
	memset(rd, 0, sizeof(*rd));
	rd->nrings = nrings;
	rd->tail = calloc(nrings ? nrings : 1, sizeof(*rd->tail));
	rd->ent = malloc(CM_RAN_RING * sizeof(*rd->ent));
	if (rd->tail == NULL || rd->ent == NULL) {
		ran_reader_free(rd);
		return -1;
	}
	return 0;
}

void ran_reader_free(struct ran_reader *rd)
{
	free(rd->tail);
	free(rd->ent);
	free(rd->news);
	free(rd->out);
	free(rd->carry);
	free(rd->carry_next);
	memset(rd, 0, sizeof(*rd));
}

/* *v holds at least n entries of size sz (grown by doubling). */
static int room(void **v, size_t *cap, size_t n, size_t sz)
{
	size_t c = *cap ? *cap : 256;
	void *grown;

	if (n <= *cap)
		return 0;
	while (c < n)
		c *= 2;
	if ((grown = realloc(*v, c * sz)) == NULL)
		return -1;
	*v = grown;
	*cap = c;
	return 0;
}

/* Every ring's entries since the last drain into rd->news, merged. */
static ssize_t take_all(struct ran_reader *rd, const unsigned char *rings, bool *lost)
{
	size_t n = 0;

	for (size_t i = 0; i < rd->nrings; i++) {
		const struct cm_ran_ring *r = (const void *)(rings + i * sizeof(*r));
		size_t k;

		if (!rd->started) {
			rd->tail[i] = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);
			continue;
		}
		k = ran_take(r, &rd->tail[i], rd->ent, lost);
		if (room((void **)&rd->news, &rd->news_cap, n + k, sizeof(*rd->news)) != 0)
			return -1;
		n += ran_decode(rd->ent, k, rd->news + n);
	}
	if (!rd->started)
		*lost = true;
	rd->started = true;
	return (ssize_t)ran_merge(rd->news, n);
}

/* News and carried processes (both sorted) into rd->out, sorted; the
 * carry for the next drain into rd->carry. */
static ssize_t with_carry(struct ran_reader *rd, size_t n, uint32_t epoch, size_t extra)
{
	size_t i = 0, j = 0, k = 0, c = 0, cap;
	struct ran_carry *swap;

	if (room((void **)&rd->out, &rd->out_cap, n + rd->ncarry + extra, sizeof(*rd->out)) != 0 ||
	    room((void **)&rd->carry_next, &rd->next_cap, n + rd->ncarry, sizeof(*rd->carry)) != 0 ||
	    room((void **)&rd->carry, &rd->carry_cap, n + rd->ncarry, sizeof(*rd->carry)) != 0)
		return -1;
	while (i < n || j < rd->ncarry) {
		if (j == rd->ncarry || (i < n && rd->news[i].tgid <= rd->carry[j].tgid)) {
			if (j < rd->ncarry && rd->carry[j].tgid == rd->news[i].tgid)
				j++;
			rd->out[k++] = rd->news[i];
			rd->carry_next[c++] = (struct ran_carry){ rd->news[i].tgid, epoch + 2 };
			i++;
			continue;
		}
		rd->out[k++] = (struct ran_news){ .tgid = rd->carry[j].tgid, .mark = CM_RAN };
		/* Kept while its epoch may still be summing (epochs wrap). */
		if ((int32_t)(epoch - rd->carry[j].until) < 0)
			rd->carry_next[c++] = rd->carry[j];
		j++;
	}
	swap = rd->carry;
	rd->carry = rd->carry_next;
	rd->carry_next = swap;
	cap = rd->carry_cap;   /* the caps go with their arrays */
	rd->carry_cap = rd->next_cap;
	rd->next_cap = cap;
	rd->ncarry = c;
	return (ssize_t)k;
}

ssize_t ran_drain(struct ran_reader *rd, const unsigned char *rings, uint32_t epoch,
		  size_t extra, bool *lost)
{
	ssize_t n = take_all(rd, rings, lost);

	return n < 0 ? -1 : with_carry(rd, (size_t)n, epoch, extra);
}

/* ------------------------------------------------------------ sums */

bool ran_read_slot(const struct cm_proc_slot *slots, size_t nslots, struct ran_news *p)
{
	const volatile struct cm_proc_slot *e = &slots[p->tgid & (nslots - 1)];

	if (e->tgid != p->tgid)
		return false;
	p->cpu_ns = e->cpu_ns;
	p->run_delay_ns = e->run_delay_ns;
	return true;
}

size_t ran_all_slots(const struct cm_proc_slot *slots, size_t nslots, struct ran_news *v)
{
	size_t n = 0;

	for (size_t i = 0; i < nslots; i++) {
		uint32_t tgid = ((const volatile struct cm_proc_slot *)&slots[i])->tgid;

		if (tgid == 0 || tgid > CM_PID_MAX_LIMIT)
			continue;
		v[n] = (struct ran_news){ .tgid = tgid, .mark = CM_RAN };
		if (ran_read_slot(slots, nslots, &v[n]))
			n++;
	}
	qsort(v, n, sizeof(*v), by_tgid);
	/* Two slots claiming one tgid (memory we do not trust): one entry. */
	for (size_t i = 0, k = 0;; i++) {
		if (i == n)
			return k;
		if (k == 0 || v[i].tgid != v[k - 1].tgid)
			v[k++] = v[i];
	}
}

size_t ran_add_running(struct ran_news *v, size_t sorted, size_t n,
		       const struct cm_sched_cpu *c, unsigned ncpu, uint64_t now,
		       void (*sums)(void *ctx, struct ran_news *p), void *ctx)
{
	for (unsigned cpu = 0; cpu < ncpu; cpu++) {
		uint32_t tgid = c[cpu].tgid;
		struct ran_news *p;

		if (!c[cpu].running || tgid == 0 || tgid > CM_PID_MAX_LIMIT || now <= c[cpu].since)
			continue;
		p = ran_find(v, sorted, tgid);
		for (size_t i = sorted; p == NULL && i < n; i++)
			if (v[i].tgid == tgid)
				p = &v[i];
		if (p == NULL) {
			p = &v[n++];
			*p = (struct ran_news){ .tgid = tgid, .mark = CM_RAN };
			sums(ctx, p);
		}
		p->cpu_ns += now - c[cpu].since;
	}
	return n;
}
