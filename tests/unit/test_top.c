/* SPDX-License-Identifier: BSD-2-Clause */
/* test_top.c - the cgroup ranking of sources/top.c on hand-made snapshots:
 * CPU shares from two samples, the order (CPU, then memory, then index),
 * topRows cutting the table, a new cgroup and a counter that went back at
 * 0, and the first sample at 0; with the helper's sensor, shares from it at
 * every sample, and a files reading not renewed keeping its share. */
#include <stdlib.h>
#include <string.h>

#include "sources/sources.h"
#include "sources/top.h"
#include "tap.h"

static struct cgroup_snapshot *snap(size_t n, const uint32_t *index, const uint64_t *cpu,
				    const uint64_t *mem, uint64_t read_ns)
{
	struct cgroup_snapshot *s = calloc(1, sizeof(*s) + n * sizeof(s->rows[0]));

	s->nrows = n;
	for (size_t i = 0; i < n; i++) {
		s->rows[i].index = index[i];
		s->rows[i].st.have = CGS_CPU | CGS_MEM;
		s->rows[i].st.cpu_ns = cpu[i];
		s->rows[i].st.mem_current = mem[i];
		s->rows[i].st_ns = read_ns;
	}
	return s;
}

static void drop(struct cgroup_snapshot *s)
{
	free(s->top);
	free(s);
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

	plan(12);
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
	a->rows[1].rq = (struct cgroup_sched){ .have = true, .cpu_ns = 100 };
	ok(top_rank_cgroups(st, a, 2010000000ull) == 0 && a->top->rows[0].row->index == 10 &&
	   a->top->rows[0].util == 5000, "a files reading not renewed keeps its 50.00%%");
	drop(b);
	b = snap(5, idx2, cpu2, mem2, 2000000000ull);
	b->rows[1].rq = (struct cgroup_sched){ .have = true, .cpu_ns = 100 + 7500000 };
	if (top_rank_cgroups(st, b, 2020000000ull) != 0 || b->top == NULL)
		return 1;
	ok(b->top->rows[0].row->index == 20 && b->top->rows[0].util == 7500,
	   "the sensor: 7.5 ms in 10 ms is 75.00%% (got %u)", (unsigned)b->top->rows[0].util);
	ok(b->top->rows[1].row->index == 10 && b->top->rows[1].util == 5000,
	   "and the files' share stands beside it");
	conf.top_rows = 0;
	top_configure(&conf);
	ok(top_rows_now() == TOP_ROWS_DEFAULT, "no topRows: 20");
	drop(a);
	drop(b);
	cgroup_top_state_free(st);
	return done_testing();
}
