/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_ranlist.c - the helper's per-CPU "ran" rings read back: entries since
 * the last drain and no more, a wrapped ring, head and tail that cannot be
 * trusted, malformed entries dropped, and one line per process with the
 * right mark when a pid exits and is reused between two drains.
 */
#include <stdlib.h>
#include <string.h>

#include "common/ranlist.h"
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
	uint64_t *out = calloc(CM_RAN_RING, sizeof(*out)), tail = 0;
	bool lost = false;
	size_t n;

	push(r, ent(10, CM_RAN, 0));
	push(r, ent(11, CM_NEW, 1));
	n = ran_take(r, &tail, out, &lost);
	ok(n == 2 && out[0] == ent(10, CM_RAN, 0) && out[1] == ent(11, CM_NEW, 1) && tail == 2 &&
		   !lost, "two entries taken in order, the reader's tail moved to head");
	ok(ran_take(r, &tail, out, &lost) == 0 && r->tail == 0,
	   "a second take finds nothing new; the ring's own memory is never written");
	r->head = tail = CM_RAN_RING * 3 - 1;
	push(r, ent(12, CM_RAN, 0));
	push(r, ent(13, CM_EXITED, 0));
	n = ran_take(r, &tail, out, &lost);
	ok(n == 2 && out[0] == ent(12, CM_RAN, 0) && out[1] == ent(13, CM_EXITED, 0) && !lost,
	   "entries across the ring's wrap come out in order");
	tail = 5;
	r->head = UINT64_MAX - 3;
	ok(ran_take(r, &tail, out, &lost) == CM_RAN_RING && tail == r->head && lost,
	   "a head far past the tail reads one ring, no more, and says entries were lost");
	lost = false;
	tail = r->head + 100;
	n = ran_take(r, &tail, out, &lost);
	ok(n == CM_RAN_RING && tail == r->head && lost,
	   "a tail past the head reads one ring, no more, lost");
	lost = false;
	tail = r->head;
	for (unsigned i = 0; i < CM_RAN_RING + 5; i++)
		push(r, ent(100 + i, CM_RAN, 0));
	n = ran_take(r, &tail, out, &lost);
	ok(n == CM_RAN_RING && lost && out[0] == ent(105, CM_RAN, 0),
	   "a ring overwritten past the reader: the newest ring's worth, lost said");
	free(r);
	free(out);
}

/* Rings of n CPUs in one block, as the map is mapped. */
static unsigned char *rings(size_t n)
{
	return calloc(n, sizeof(struct cm_ran_ring));
}

static struct cm_ran_ring *ring_at(unsigned char *b, size_t i)
{
	return (struct cm_ran_ring *)(b + i * sizeof(struct cm_ran_ring));
}

static bool has(const struct ran_reader *rd, size_t n, uint32_t tgid, uint32_t mark)
{
	for (size_t i = 0; i < n; i++)
		if (rd->out[i].tgid == tgid)
			return rd->out[i].mark == mark;
	return false;
}

static void test_reader(void)
{
	unsigned char *b = rings(2);
	struct ran_reader rd;
	bool lost = false, sorted = true;
	ssize_t n;

	ok(ran_reader_init(&rd, 2) == 0, "a reader of two rings");
	push(ring_at(b, 0), ent(7, CM_RAN, 0));
	n = ran_drain(&rd, b, 100, 2, &lost);
	ok(n == 0 && lost, "the first drain starts at the heads and says news may be missing");
	lost = false;
	push(ring_at(b, 0), ent(30, CM_RAN, 0));
	push(ring_at(b, 1), ent(20, CM_NEW, 4));
	push(ring_at(b, 1), ent(30, CM_RAN, 0));
	n = ran_drain(&rd, b, 100, 2, &lost);
	ok(n == 2 && rd.out[0].tgid == 20 && rd.out[0].mark == CM_NEW && rd.out[1].tgid == 30 &&
		   !lost, "both rings' news, one entry per process, sorted");
	push(ring_at(b, 0), ent(10, CM_EXITED, 0));
	n = ran_drain(&rd, b, 101, 2, &lost);
	for (ssize_t i = 1; i < n; i++)
		sorted = sorted && rd.out[i - 1].tgid < rd.out[i].tgid;
	ok(n == 3 && sorted && has(&rd, 3, 10, CM_EXITED) && has(&rd, 3, 20, CM_RAN) &&
		   has(&rd, 3, 30, CM_RAN), "processes of the last epochs carried as ran, sorted with the news");
	n = ran_drain(&rd, b, 102, 2, &lost);
	ok(n == 3, "still carried two epochs on (they may have run unlisted in theirs)");
	n = ran_drain(&rd, b, 103, 2, &lost);
	ok(n == 1 && rd.out[0].tgid == 10, "then dropped, the later one kept a drain longer");
	n = ran_drain(&rd, b, 200, 2, &lost);
	ok(n == 0, "nothing listed, nothing carried");
	ran_reader_free(&rd);
	free(b);
}

static void sums_zero(void *ctx, struct ran_news *p)
{
	(*(int *)ctx)++;
	p->cpu_ns = 1000;
}

static void test_slots(void)
{
	/* tgid & 7 selects the slot: 9 in 1 (and a stray 9 in 0), 10 in 2. */
	struct cm_proc_slot slots[8] = { { .tgid = 9, .cpu_ns = 5, .run_delay_ns = 6 },
					 { .tgid = 9, .cpu_ns = 1 }, { .tgid = 10, .cpu_ns = 7 },
					 { .tgid = CM_PID_MAX_LIMIT + 8 } };
	struct cm_sched_cpu c[2] = { { .running = 1, .tgid = 9, .since = 90 },
				     { .running = 1, .tgid = 44, .since = 50 } };
	struct ran_news p = { .tgid = 17 }, v[10];
	int calls = 0;
	size_t n;

	ok(ran_read_slot(slots, 8, &p) == false, "a slot that holds another tgid is not read");
	p.tgid = 10;
	ok(ran_read_slot(slots, 8, &p) && p.cpu_ns == 7, "the slot tgid selects, read");
	n = ran_all_slots(slots, 8, v);
	ok(n == 2 && v[0].tgid == 9 && v[0].cpu_ns == 1 && v[1].tgid == 10,
	   "every slot's holder once, in its own slot only, out-of-range tgids dropped");
	n = ran_add_running(v, n, n, c, 2, 100, sums_zero, &calls);
	ok(n == 3 && v[0].cpu_ns == 11 && v[2].tgid == 44 && v[2].cpu_ns == 1050 && calls == 1,
	   "the running tasks' stretch added, a process not listed appended with its sums");
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
	test_reader();
	test_slots();
	test_decode();
	test_merge();
	return done_testing();
}
