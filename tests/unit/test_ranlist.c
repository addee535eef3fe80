/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_ranlist.c - the helper's per-CPU "ran" rings read back: entries since
 * the last drain and no more, a wrapped ring, head and tail that cannot be
 * trusted, malformed entries dropped, and one line per process with the
 * right mark when a pid exits and is reused between two drains.
 */
#include <stdlib.h>
#include <string.h>

#include "ranlist.h"
#include "tap.h"

static uint64_t ent(uint32_t tgid, uint32_t mark, uint32_t gen)
{
	return tgid | (uint64_t)mark << 32 | (uint64_t)(gen & CM_GEN_MASK) << 34;
}

/* What a program does: an entry at head, then head moves on. */
static void push(struct cm_ran_ring *r, uint64_t e)
{
	r->ent[r->head & (CM_RAN_RING - 1)] = e;
	r->head++;
}

static void test_take(void)
{
	struct cm_ran_ring *r = calloc(1, sizeof(*r));
	uint64_t *out = calloc(CM_RAN_RING, sizeof(*out));
	size_t n;

	push(r, ent(10, CM_RAN, 0));
	push(r, ent(11, CM_NEW, 1));
	n = ran_take(r, out);
	ok(n == 2 && out[0] == ent(10, CM_RAN, 0) && out[1] == ent(11, CM_NEW, 1) && r->tail == 2,
	   "two entries taken in order, tail moved to head");
	ok(ran_take(r, out) == 0, "a second take finds nothing new");
	r->head = r->tail = CM_RAN_RING * 3 - 1;
	push(r, ent(12, CM_RAN, 0));
	push(r, ent(13, CM_EXITED, 0));
	n = ran_take(r, out);
	ok(n == 2 && out[0] == ent(12, CM_RAN, 0) && out[1] == ent(13, CM_EXITED, 0),
	   "entries across the ring's wrap come out in order");
	r->tail = 5;
	r->head = UINT64_MAX - 3;
	ok(ran_take(r, out) == CM_RAN_RING && r->tail == r->head,
	   "a head far past the tail reads one ring, no more");
	r->tail = r->head + 100;
	n = ran_take(r, out);
	ok(n == CM_RAN_RING && r->tail == r->head, "a tail past the head reads one ring, no more");
	free(r);
	free(out);
}

static void test_decode(void)
{
	uint64_t e[] = { ent(0, CM_RAN, 0), ent(7, 0, 0), ent(CM_PID_MAX_LIMIT + 1, CM_RAN, 0),
			 ent(CM_PID_MAX_LIMIT, CM_RAN, 3), ent(9, CM_NEW, CM_GEN_MASK) };
	struct ran_news v[5];
	size_t n = ran_decode(e, 5, v);

	ok(n == 2 && v[0].tgid == CM_PID_MAX_LIMIT && v[0].mark == CM_RAN && v[0].gen == 3 &&
		   v[1].tgid == 9 && v[1].mark == CM_NEW && v[1].gen == CM_GEN_MASK,
	   "tgid 0, mark 0 and a tgid above PID_MAX_LIMIT are dropped; the rest decoded");
}

static uint32_t merged_mark(const uint64_t *e, size_t n, uint32_t tgid)
{
	struct ran_news v[16], *p;
	size_t k = ran_merge(v, ran_decode(e, n, v));

	p = ran_find(v, k, tgid);
	return p ? p->mark : 0;
}

static void test_merge(void)
{
	uint64_t e[] = { ent(30, CM_RAN, 1), ent(20, CM_RAN, 0), ent(30, CM_RAN, 1),
			 ent(20, CM_RAN, 0), ent(10, CM_RAN, 0) };
	struct ran_news v[5];
	size_t n = ran_merge(v, ran_decode(e, 5, v));

	ok(n == 3 && v[0].tgid == 10 && v[1].tgid == 20 && v[2].tgid == 30 &&
		   v[2].mark == CM_RAN && v[0].cpu_ns == 0,
	   "one entry per tgid, sorted, listed twice by two CPUs or not");
	ok(ran_find(v, n, 20) == &v[1] && ran_find(v, n, 25) == NULL, "found by tgid");

	uint64_t fork_ran[] = { ent(5, CM_RAN, 2), ent(5, CM_NEW, 2) };
	uint64_t born_died[] = { ent(5, CM_NEW, 2), ent(5, CM_EXITED, 2), ent(5, CM_RAN, 2) };
	uint64_t died_reborn[] = { ent(5, CM_NEW, 3), ent(5, CM_EXITED, 2) };
	uint64_t reborn_died[] = { ent(5, CM_EXITED, 3), ent(5, CM_NEW, 2), ent(5, CM_NEW, 3) };
	uint64_t wrapped[] = { ent(5, CM_EXITED, CM_GEN_MASK), ent(5, CM_NEW, 0) };
	uint64_t exec_exit[] = { ent(5, CM_NEW, 0), ent(5, CM_EXITED, 0) };

	ok(merged_mark(fork_ran, 2, 5) == CM_NEW, "a new process that ran is new (3)");
	ok(merged_mark(born_died, 3, 5) == CM_EXITED, "one that was born and died is exited (2)");
	ok(merged_mark(died_reborn, 2, 5) == CM_NEW,
	   "an exit, then a new process under the same pid (newer gen): new");
	ok(merged_mark(reborn_died, 3, 5) == CM_EXITED,
	   "a pid reused and the new process gone too: exited");
	ok(merged_mark(wrapped, 2, 5) == CM_NEW, "gens compare across their wrap");
	ok(merged_mark(exec_exit, 2, 5) == CM_EXITED, "an exec and an exit of one process: exited");
	ok(ran_gen_newer(1, 0) && !ran_gen_newer(0, 1) && !ran_gen_newer(4, 4) &&
		   ran_gen_newer(0, CM_GEN_MASK), "gen order, modulo 2^30");
}

int main(void)
{
	test_take();
	test_decode();
	test_merge();
	return done_testing();
}
