/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * top.c - the top-N rankings behind clusterMonProcTopTable and
 * clusterMonCgroupTopTable, made on the proc and cgroup sources' threads
 * right after a sample and published inside that sample's snapshot: a
 * poller that wants the five busiest reads five rows, and no request ever
 * sorts anything.
 *
 * Order: CPU use over the last interval (most first), then memory (most
 * first), then the row's index (pid or cgroup index, lowest first), so
 * idle rows still rank by something an operator cares about and two
 * snapshots rank equal rows alike. The table holds min(topRows, rows).
 *
 * Processes: the process table keeps its busiest rows as they change
 * (procrank.h), so a sample costs the rows that changed, not the 10,000
 * followed. Cgroups (hundreds): a selection keeps the best N in a sorted
 * array, and almost every row is refused by one comparison with the last
 * kept.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "proctab.h"
#include "sources.h"
#include "top.h"

static _Atomic uint32_t top_rows = TOP_ROWS_DEFAULT;

void top_configure(const struct sources_conf *c)
{
	uint32_t n = c->top_rows ? c->top_rows : TOP_ROWS_DEFAULT;

	atomic_store(&top_rows, n > TOP_ROWS_MAX ? TOP_ROWS_MAX : n);
}

uint32_t top_rows_now(void)
{
	return atomic_load(&top_rows);
}

/* ------------------------------------------------ the selection */

struct pick {
	const void **v;
	size_t n, cap;
	int (*before)(const void *a, const void *b); /* < 0: a ranks above b */
};

static void pick_offer(struct pick *p, const void *item)
{
	size_t i;

	if (p->cap == 0 || (p->n == p->cap && p->before(item, p->v[p->n - 1]) >= 0))
		return;
	i = p->n < p->cap ? p->n++ : p->cap - 1;
	for (; i > 0 && p->before(item, p->v[i - 1]) < 0; i--)
		p->v[i] = p->v[i - 1];
	p->v[i] = item;
}

static int cmp_u64_desc(uint64_t a, uint64_t b)
{
	return a > b ? -1 : a < b;
}

/* ------------------------------------------------ processes */

/* The proc snapshot's own destroy runs after the ranking is freed: the
 * ranking points into the snapshot's chunks, which live exactly as long. */
static void proc_top_destroy(struct snapshot *s)
{
	struct proc_snapshot *snap = (struct proc_snapshot *)s;
	struct proc_top *t = (struct proc_top *)snap->top;
	void (*inner)(struct snapshot *) = t->inner_destroy;

	free(t);
	snap->top = NULL;
	inner(s);
}

int top_rank_procs(struct proctab *tab, struct proc_snapshot *snap)
{
	size_t want = top_rows_now(), n = 0;
	const struct proc_rank_key *keys;
	struct proc_top *t;

	/* Every process followed, whatever procFilter serves in
	 * clusterMonProcTable: the table keeps its busiest as rows change. */
	keys = proctab_top(tab, want, &n);
	if (keys == NULL && n == 0 && tab->nrows > 0 && want > 0)
		return -1;
	t = malloc(sizeof(*t) + (n ? n : 1) * sizeof(t->rows[0]));
	if (t == NULL)
		return -1;
	for (size_t i = 0; i < n; i++)
		if ((t->rows[i] = proc_snapshot_find(snap, keys[i].pid)) == NULL) {
			free(t);
			return -1;
		}
	t->n = n;
	t->inner_destroy = snap->hdr.destroy;
	snap->hdr.destroy = proc_top_destroy;
	snap->top = t;
	return 0;
}

/* ------------------------------------------------ cgroups */

/* The last sample's CPU ns of each cgroup, ascending index: where it came
 * from (the helper's sensor, read at every sample, when it has the cgroup;
 * else its files, read every 10 s with the helper), when it was
 * read, and the share it gave. A share is taken only between two readings
 * from the same place, over the time between them; a reading not renewed
 * keeps its share. */
enum cpu_from { CPU_NONE, CPU_FILES, CPU_SENSOR };

struct cg_last {
	uint32_t index, util;
	uint8_t from;
	uint64_t cpu_ns, at;
};

struct cgroup_top_state {
	size_t n;
	struct cg_last *v;
};

static uint8_t cpu_of(const struct cgroup_row *r, uint64_t now, uint64_t *ns, uint64_t *at)
{
	if (r->rq.have) {
		*ns = r->rq.cpu_ns;
		*at = now;
		return CPU_SENSOR;
	}
	*ns = r->st.cpu_ns;
	*at = r->st_ns;
	return (r->st.have & CGS_CPU) ? CPU_FILES : CPU_NONE;
}

struct cgroup_top_state *cgroup_top_state_new(void)
{
	return calloc(1, sizeof(struct cgroup_top_state));
}

void cgroup_top_state_free(struct cgroup_top_state *st)
{
	if (st == NULL)
		return;
	free(st->v);
	free(st);
}

static int cgroup_before(const void *a, const void *b)
{
	const struct cgroup_top_row *x = a, *y = b;
	uint64_t mx = (x->row->st.have & CGS_MEM) ? x->row->st.mem_current : 0;
	uint64_t my = (y->row->st.have & CGS_MEM) ? y->row->st.mem_current : 0;

	if (x->util != y->util)
		return cmp_u64_desc(x->util, y->util);
	if (mx != my)
		return cmp_u64_desc(mx, my);
	return (x->row->index > y->row->index) - (x->row->index < y->row->index);
}

/* Hundredths of a percent of one CPU; 0 for a new cgroup or a counter that
 * went back (a v1 path made again under the same index). */
static uint32_t share(uint64_t now, uint64_t before, uint64_t elapsed)
{
	uint64_t h;

	if (elapsed == 0 || now < before)
		return 0;
	h = (now - before) / (elapsed / 10000 ? elapsed / 10000 : 1);
	return h > UINT32_MAX ? UINT32_MAX : (uint32_t)h;
}

/* Each row's CPU share against the state (rows and state both ascend by
 * index: one merge), then the state becomes this sample's. */
static int cgroup_shares(struct cgroup_top_state *st, const struct cgroup_snapshot *snap,
			 struct cgroup_top_row *out, uint64_t now_ns)
{
	size_t n = snap->nrows, j = 0;
	struct cg_last *v = malloc((n ? n : 1) * sizeof(*v));

	if (v == NULL)
		return -1;
	for (size_t i = 0; i < n; i++) {
		const struct cgroup_row *r = snap->rows[i];
		const struct cg_last *p;
		struct cg_last *c = &v[i];

		while (j < st->n && st->v[j].index < r->index)
			j++;
		p = j < st->n && st->v[j].index == r->index ? &st->v[j] : NULL;
		c->index = r->index;
		c->from = cpu_of(r, now_ns, &c->cpu_ns, &c->at);
		c->util = 0;
		if (p != NULL && c->from != CPU_NONE && p->from == c->from)
			c->util = c->at == p->at ? p->util : share(c->cpu_ns, p->cpu_ns, c->at - p->at);
		out[i].row = r;
		out[i].util = c->util;
	}
	free(st->v);
	st->v = v;
	st->n = n;
	return 0;
}

int top_rank_cgroups(struct cgroup_top_state *st, struct cgroup_snapshot *snap, uint64_t now_ns)
{
	size_t cap = top_rows_now(), n = snap->nrows;
	struct cgroup_top_row *all = malloc((n ? n : 1) * sizeof(*all));
	const void **kept = NULL;
	struct cgroup_top *t = NULL;
	struct pick p;

	if (cap > n)
		cap = n;
	if (all == NULL || cgroup_shares(st, snap, all, now_ns) != 0)
		goto fail;
	kept = malloc((cap ? cap : 1) * sizeof(*kept));
	t = malloc(sizeof(*t) + (cap ? cap : 1) * sizeof(t->rows[0]));
	if (kept == NULL || t == NULL)
		goto fail;
	p = (struct pick){ .v = kept, .cap = cap, .before = cgroup_before };
	for (size_t i = 0; i < n; i++)
		pick_offer(&p, &all[i]);
	for (size_t i = 0; i < p.n; i++)
		t->rows[i] = *(const struct cgroup_top_row *)kept[i];
	t->n = p.n;
	snap->top = t;
	free(kept);
	free(all);
	return 0;
fail:
	free(t);
	free(kept);
	free(all);
	return -1;
}
