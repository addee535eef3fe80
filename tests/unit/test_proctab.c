/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_proctab.c - the proc source's copy-on-write table: a snapshot
 * shares the chunks no row of which changed and replaces the others; a
 * reader holding an old snapshot sees it as it was; rows carry the
 * generation they changed in; a snapshot held across many publishes and
 * released in any order stays whole; and a long random run of puts and deletes
 * keeps the same rows, in pid order, as a plain array does.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sources/proctab.h"
#include "tap.h"

static struct proc_row mk(int32_t pid, uint64_t cpu)
{
	struct proc_row r;

	memset(&r, 0, sizeof(r));
	r.pid = pid;
	r.cpu_ns = cpu;
	r.have_schedstat = true;
	snprintf(r.comm, sizeof(r.comm), "p%d", (int)pid);
	return r;
}

static size_t shared_chunks(const struct proc_snapshot *a, const struct proc_snapshot *b)
{
	size_t n = 0;

	for (size_t i = 0; i < a->nchunks; i++)
		for (size_t j = 0; j < b->nchunks; j++)
			n += a->slot[i].c == b->slot[j].c;
	return n;
}

static void release(struct proc_snapshot *s)
{
	s->hdr.destroy(&s->hdr);
}

static void sharing(void)
{
	struct proctab t;
	struct proc_snapshot *s1, *s2, *s3;
	struct proc_row r;
	bool same = true;

	proctab_init(&t);
	for (int32_t pid = 1; pid <= 1000; pid++) {
		r = mk(pid, (uint64_t)pid * 10);
		proctab_put(&t, &r);
	}
	s1 = proctab_publish(&t);
	ok(s1 && s1->nrows == 1000 && s1->nchunks >= 1000 / PROC_CHUNK_ROWS,
	   "1000 rows in %zu chunks", s1 ? s1->nchunks : 0);
	r = mk(500, 1);
	ok(proctab_put(&t, &r) == 1, "a changed row is put");
	r = mk(501, 5010);
	ok(proctab_put(&t, &r) == 0, "a row equal to the last changes nothing");
	s2 = proctab_publish(&t);
	ok(shared_chunks(s1, s2) == s1->nchunks - 1,
	   "the second snapshot shares every chunk but the changed one (%zu of %zu)",
	   shared_chunks(s1, s2), s1->nchunks);
	ok(proc_snapshot_row(s1, 499)->cpu_ns == 5000 && proc_snapshot_row(s2, 499)->cpu_ns == 1,
	   "the old snapshot still has the old row, the new one the new row");
	ok(proc_snapshot_row(s2, 499)->gen == s2->gen && proc_snapshot_row(s2, 500)->gen == s1->gen,
	   "the changed row carries the new generation, its neighbour the old one");
	proctab_del(&t, 1);
	r = mk(2000, 7);
	proctab_put(&t, &r);
	s3 = proctab_publish(&t);
	ok(s3->nrows == 1000 && proc_snapshot_row(s3, 0)->pid == 2 &&
	   proc_snapshot_row(s3, 999)->pid == 2000, "a row removed, one added at the end");
	ok(shared_chunks(s2, s3) >= s2->nchunks - 2, "the rest still shared");
	release(s2);
	for (size_t i = 0; i < 1000; i++)
		same = same && proc_snapshot_row(s1, i)->pid == (int32_t)i + 1 &&
		       proc_snapshot_row(s1, i)->cpu_ns == (i == 499 ? 5000 : (i + 1) * 10);
	ok(same, "the first snapshot is unchanged after two more samples and a release");
	release(s1);
	release(s3);
	proctab_free(&t);
}

/* Random puts and deletes against a plain array indexed by pid. */
static void random_run(void)
{
	enum { PIDS = 3000, OPS = 200000 };
	static uint64_t model[PIDS]; /* 0: absent, else cpu_ns */
	struct proctab t;
	struct proc_snapshot *s, *old = NULL;
	bool good = true;
	size_t n = 0;

	srand(23);
	proctab_init(&t);
	for (int op = 0; op < OPS; op++) {
		int32_t pid = 1 + rand() % (PIDS - 1);

		if (rand() % 3 == 0) {
			proctab_del(&t, pid);
			model[pid] = 0;
		} else {
			struct proc_row r = mk(pid, 1 + (uint64_t)(rand() % 5));

			proctab_put(&t, &r);
			model[pid] = r.cpu_ns;
		}
		if (op % 1000 == 999) { /* publish now and then; keep one older */
			s = proctab_publish(&t);
			if (old != NULL)
				release(old);
			old = s;
		}
	}
	s = proctab_publish(&t);
	for (int32_t pid = 1; pid < PIDS; pid++) {
		const struct proc_row *r = proctab_find(&t, pid);

		if (model[pid] == 0) {
			good = good && r == NULL;
			continue;
		}
		good = good && r != NULL && r->cpu_ns == model[pid] &&
		       proc_snapshot_row(s, n)->pid == pid && proc_snapshot_row(s, n)->cpu_ns == model[pid];
		n++;
	}
	ok(good && s->nrows == n && t.nrows == n, "200,000 random puts and deletes: %zu rows as the model", n);
	for (size_t i = 0; i < s->nchunks; i++)
		good = good && s->slot[i].n >= 1 && s->slot[i].n <= PROC_CHUNK_ROWS &&
		       s->slot[i].n == s->slot[i].c->n;
	ok(good, "no chunk empty or over %d rows", PROC_CHUNK_ROWS);
	ok(proc_snapshot_row(s, n) == NULL, "no row past the end");
	release(old);
	release(s);
	proctab_free(&t);
}

/* Snapshots released in any order, one held across thousands of changes:
 * the chunks a held snapshot reads outlive every publish after it (the
 * sanitizer and valgrind runs see any read of a freed chunk). */
static void held_across(void)
{
	enum { PIDS = 2000, OPS = 50000 };
	static uint64_t was[PIDS];
	struct proc_snapshot *held, *ring[4] = { NULL };
	struct proctab t;
	size_t k = 0;
	bool same = true;

	srand(29);
	proctab_init(&t);
	for (int32_t pid = 1; pid < PIDS; pid += 2) {
		struct proc_row r = mk(pid, (uint64_t)pid);

		proctab_put(&t, &r);
	}
	held = proctab_publish(&t);
	for (size_t i = 0; i < held->nall; i++)
		was[i] = proc_snapshot_row(held, i)->cpu_ns;
	for (int op = 0; op < OPS; op++) {
		int32_t pid = 1 + rand() % (PIDS - 1);
		struct proc_row r = mk(pid, 7 + (uint64_t)(rand() % 5));

		if (rand() % 4 == 0)
			proctab_del(&t, pid);
		else
			proctab_put(&t, &r);
		if (op % 100 == 99) { /* a ring of four, released newest or oldest first */
			size_t at = (rand() % 2) ? k % 4 : (k + 3) % 4;

			if (ring[at] != NULL)
				release(ring[at]);
			ring[at] = proctab_publish(&t);
			k++;
		}
	}
	for (size_t i = 0; i < held->nall; i++)
		same = same && proc_snapshot_row(held, i)->pid == (int32_t)(2 * i + 1) &&
		       proc_snapshot_row(held, i)->cpu_ns == was[i];
	ok(same && held->nall == PIDS / 2,
	   "a snapshot held across %d changes and %zu publishes reads as it did", OPS, k);
	for (size_t i = 0; i < 4; i++)
		if (ring[i] != NULL)
			release(ring[i]);
	proctab_free(&t);
	same = true;
	for (size_t i = 0; i < held->nall; i++)
		same = same && proc_snapshot_row(held, i)->cpu_ns == was[i];
	ok(same, "and after the table itself is freed");
	release(held);
}

/* A table with no row yet (a fixture root without processes) publishes. */
static void empty(void)
{
	struct proctab t;
	struct proc_snapshot *s;

	proctab_init(&t);
	s = proctab_publish(&t);
	ok(s != NULL && s->nall == 0 && s->nchunks == 0 && proc_snapshot_row(s, 0) == NULL,
	   "an empty table publishes an empty snapshot");
	if (s != NULL)
		release(s);
	proctab_free(&t);
}

int main(void)
{
	empty();
	sharing();
	random_run();
	held_across();
	return done_testing();
}
