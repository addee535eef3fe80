/* SPDX-License-Identifier: BSD-2-Clause */
/* test_top.c - the cgroup ranking of sources/top.c on hand-made snapshots:
 * CPU shares from two samples, the order (CPU, then memory, then index),
 * topRows cutting the table, a new cgroup and a counter that went back at
 * 0, and the first sample at 0; with the helper's sensor, shares from it at
 * every sample, and a files reading not renewed keeping its share; and the
 * process ranking, kept by change in the process table, against a sort of
 * every row through thousands of random changes and two topRows changes,
 * with a pass over every row only when the kept set ran short. */
#include <stdlib.h>
#include <string.h>

#include "sources/proctab.h"
#include "sources/cgroup.h"
#include "sources/proc.h"
#include "sources/sources.h"
#include "sources/top.h"
#include "tap.h"

static struct cgroup_snapshot *snap(size_t n, const uint32_t *index, const uint64_t *cpu,
				    const uint64_t *mem, uint64_t read_ns)
{
	struct cgroup_snapshot *s = calloc(1, sizeof(*s) + n * sizeof(s->rows[0]));
	struct cgroup_row *rows = calloc(n ? n : 1, sizeof(*rows));

	s->nrows = n;
	for (size_t i = 0; i < n; i++) {
		s->rows[i] = &rows[i];
		rows[i].index = index[i];
		rows[i].st.have = CGS_CPU | CGS_MEM;
		rows[i].st.cpu_ns = cpu[i];
		rows[i].st.mem_current = mem[i];
		rows[i].st_ns = read_ns;
	}
	return s;
}

static void drop(struct cgroup_snapshot *s)
{
	free(s->nrows ? s->rows[0] : NULL);
	free(s->top);
	free(s);
}

/* ------------------------------------------------ processes */

#define NPIDS 3000u
static struct proc_row model[NPIDS];   /* pid 0: none */
static unsigned rng = 4242;

static unsigned rnd(unsigned n)
{
	rng = rng * 1103515245u + 12345u;
	return (rng >> 8) % n;
}

static int by_busier(const void *a, const void *b)
{
	return proc_row_busier(*(const struct proc_row *const *)a, *(const struct proc_row *const *)b);
}

/* Does the snapshot's ranking hold the first top_rows_now() rows of a
 * sort of every live row? */
static bool ranked_as_sorted(const struct proc_snapshot *s)
{
	static const struct proc_row *all[NPIDS];
	const struct proc_top *t = s->top;
	size_t n = 0, want;

	for (unsigned i = 1; i < NPIDS; i++)
		if (model[i].pid != 0)
			all[n++] = &model[i];
	qsort(all, n, sizeof(all[0]), by_busier);
	want = n < top_rows_now() ? n : top_rows_now();
	if (t == NULL || t->n != want)
		return false;
	for (size_t i = 0; i < want; i++)
		if (t->rows[i]->pid != all[i]->pid || t->rows[i]->util != all[i]->util ||
		    t->rows[i]->rss_kb != all[i]->rss_kb)
			return false;
	return true;
}

/* A row changed: mostly idle (ties broken by memory, then pid). */
static void change(struct proctab *t, unsigned pid)
{
	struct proc_row *r = &model[pid];

	if (r->pid != 0 && rnd(10) == 0) {
		proctab_del(t, (int32_t)pid);
		r->pid = 0;
		return;
	}
	r->pid = (int32_t)pid;
	r->util = rnd(4) == 0 ? rnd(10000) : 0;
	r->rss_kb = rnd(3) == 0 ? rnd(50) : 7;
	proctab_put(t, r);
}

static void processes(void)
{
	struct sources_conf conf = { .top_rows = 20 };
	struct proctab t;
	unsigned bad = 0, publishes = 400;

	top_configure(&conf);
	proctab_init(&t);
	for (unsigned pid = 1; pid < NPIDS; pid++)
		change(&t, pid);
	for (unsigned p = 0; p < publishes; p++) {
		struct proc_snapshot *s;

		for (unsigned k = rnd(p % 40 == 0 ? 2000 : 30); k > 0; k--)
			change(&t, 1 + rnd(NPIDS - 1));
		if (p == publishes / 2 || p == 3 * publishes / 4) { /* fewer, then more */
			conf.top_rows = p == publishes / 2 ? 1 + rnd(5) : 60;
			top_configure(&conf);
		}
		s = proctab_publish(&t);
		if (s == NULL || top_rank_procs(&t, s) != 0 || !ranked_as_sorted(s))
			bad++;
		if (s != NULL)
			s->hdr.destroy(&s->hdr);
	}
	ok(bad == 0, "the process ranking is a sort's first rows after each of %u publications "
	   "of random changes (%u differed)", publishes, bad);
	ok(t.rank.fills < publishes / 4, "kept by change: a pass over every row in %zu of %u "
	   "publications", t.rank.fills, publishes);
	proctab_free(&t);
}

int main(void)
{
	struct cgroup_top_state *st = cgroup_top_state_new();
	struct sources_conf conf = { .top_rows = 3 };
	const uint32_t idx1[] = { 10, 20, 30, 40 };
	const uint64_t cpu1[] = { 1000000000, 5000000000, 0, 7000000000 };
	const uint64_t mem1[] = { 1, 2, 3, 4 };
	/* One second later: 10 used 0.5 s, 20 0.25 s, 30 none, 40 went back;
	 * 35 is new. */
	const uint32_t idx2[] = { 10, 20, 30, 35, 40 };
	const uint64_t cpu2[] = { 1500000000, 5250000000, 0, 9000000000, 100 };
	const uint64_t mem2[] = { 1, 2, 300, 5, 4 };
	struct cgroup_snapshot *a, *b;

	plan(14);
	top_configure(&conf);
	ok(top_rows_now() == 3, "topRows 3 is in force");
	a = snap(4, idx1, cpu1, mem1, 1000000000ull);
	ok(top_rank_cgroups(st, a, 1000000000ull) == 0 && a->top != NULL, "first sample ranked");
	ok(a->top->n == 3 && a->top->rows[0].util == 0 && a->top->rows[0].row->index == 40,
	   "first sample: no shares yet, so by memory (40 first)");
	b = snap(5, idx2, cpu2, mem2, 2000000000ull);
	ok(top_rank_cgroups(st, b, 2000000000ull) == 0 && b->top != NULL, "second sample ranked");
	ok(b->top->n == 3, "topRows cuts five rows to three");
	ok(b->top->rows[0].row->index == 10 && b->top->rows[0].util == 5000,
	   "rank 1: 0.5 s in 1 s is 50.00%% (got %u)", (unsigned)b->top->rows[0].util);
	ok(b->top->rows[1].row->index == 20 && b->top->rows[1].util == 2500,
	   "rank 2: 25.00%% (got %u)", (unsigned)b->top->rows[1].util);
	ok(b->top->rows[2].row->index == 30 && b->top->rows[2].util == 0,
	   "rank 3: the idle rows by memory (30 with 300 bytes before the new 35)");
	/* 10 ms later: the files were not read again (their reading keeps its
	 * share); 20 has the sensor now, which counts from its own start. */
	drop(a);
	a = snap(5, idx2, cpu2, mem2, 2000000000ull);
	a->rows[1]->rq = (struct cgroup_sched){ .have = true, .cpu_ns = 100 };
	ok(top_rank_cgroups(st, a, 2010000000ull) == 0 && a->top->rows[0].row->index == 10 &&
	   a->top->rows[0].util == 5000, "a files reading not renewed keeps its 50.00%%");
	drop(b);
	b = snap(5, idx2, cpu2, mem2, 2000000000ull);
	b->rows[1]->rq = (struct cgroup_sched){ .have = true, .cpu_ns = 100 + 7500000 };
	if (top_rank_cgroups(st, b, 2020000000ull) != 0 || b->top == NULL)
		return 1;
	ok(b->top->rows[0].row->index == 20 && b->top->rows[0].util == 7500,
	   "the sensor: 7.5 ms in 10 ms is 75.00%% (got %u)", (unsigned)b->top->rows[0].util);
	ok(b->top->rows[1].row->index == 10 && b->top->rows[1].util == 5000,
	   "and the files' share stands beside it");
	conf.top_rows = 0;
	top_configure(&conf);
	ok(top_rows_now() == TOP_ROWS_DEFAULT, "no topRows: 20");
	processes();
	drop(a);
	drop(b);
	cgroup_top_state_free(st);
	return done_testing();
}
