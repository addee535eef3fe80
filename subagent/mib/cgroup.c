/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * cgroup.c - clusterMonCgroup: the control group table from the cgroup
 * source's snapshot. A column whose file the kernel lacks (throttling
 * without a quota controller, PSI on v1, no limit set) has no instance.
 */
#include "engine/group.h"
#include "mib.h"
#include "top.h"

#include "../core/log2hist.h"
#include "../sources/cgroup.h"

static const oid cgroup_oid[] = { CM_OID_clusterMonCgroup };

static size_t cgroup_rows(void *view)
{
	const struct cgroup_snapshot *s = view;

	return s ? s->nrows : 0;
}

static void cgroup_index(void *view, size_t row, oid *out)
{
	out[0] = ((const struct cgroup_snapshot *)view)->rows[row]->index;
}

/* The sample in which the row last changed (sources/cgroup.c): the image
 * encodes only rows whose generation moved. */
static uint64_t cgroup_row_gen(void *view, size_t row)
{
	return ((const struct cgroup_snapshot *)view)->rows[row]->gen;
}

static uint64_t cgroup_view_gen(void *view)
{
	return ((const struct cgroup_snapshot *)view)->gen;
}

/* Rows i.. (and on) that changed no later than snapshot since, which the
 * image then keeps without visiting them: most of a 10 ms sample's. Only
 * from the start of such a run, so a run the image cannot keep (a row
 * went from its middle) is not counted again from each of its rows. */
static size_t unchanged_run(const struct cgroup_snapshot *s, size_t i, uint64_t since)
{
	size_t j = i;

	if (since == 0 || (i > 0 && s->rows[i - 1]->gen <= since))
		return 0;
	while (j < s->nrows && s->rows[j]->gen <= since)
		j++;
	return j - i;
}

static size_t cgroup_same_since(void *view, size_t row, uint64_t since)
{
	return unchanged_run(view, row, since);
}

static int cgroup_get(void *view, size_t row, unsigned col, struct mib_value *v)
{
	return mib_cgroup_row_get(((const struct cgroup_snapshot *)view)->rows[row], col, v);
}

/* ---- clusterMonCgroupRunqlatTable: each row's buckets, in index order */

static size_t rq_rows(void *view)
{
	const struct cgroup_snapshot *s = view;

	return s ? s->nrq : 0;
}

/* The cgroup row that holds bucket row n, and its bucket. Walks and the
 * image visit the rows in order: the row found last (this thread's) is
 * tried first (log2hist_row_at). */
static size_t rq_find(const struct cgroup_snapshot *s, size_t n, unsigned *b)
{
	static _Thread_local size_t last;

	return log2hist_row_at(s->rq_first, s->nrows, s->nrq, n, &last, b);
}

static const struct cgroup_row *rq_at(const struct cgroup_snapshot *s, size_t n, unsigned *b)
{
	return s->rows[rq_find(s, n, b)];
}

static void rq_index(void *view, size_t row, oid *out)
{
	unsigned b;
	const struct cgroup_row *r = rq_at(view, row, &b);

	out[0] = r->index;
	out[1] = b + 1;
}

static int rq_get(void *view, size_t row, unsigned col, struct mib_value *v)
{
	unsigned b;
	const struct cgroup_row *r = rq_at(view, row, &b);
	/* the bounds of sched.runqlat's buckets (core/log2hist.c) */
	const struct log2hist shape = { .nbuckets = CGROUP_RQ_BUCKETS };

	_Static_assert(CM_ARC_clusterMonCgroupRunqlatHigh == CM_ARC_clusterMonCgroupRunqlatLow + 1 &&
		       CM_ARC_clusterMonCgroupRunqlatCount == CM_ARC_clusterMonCgroupRunqlatLow + 2,
		       "Low, High, Count");
	return mib_log2_bucket(v, col - CM_ARC_clusterMonCgroupRunqlatLow, &shape, b, r->rq.bucket[b]);
}

/* A bucket row's key fixes its bounds, so its count is all that changes:
 * the count (plus one, as 0 means "always encode") is its generation. */
static uint64_t rq_row_gen(void *view, size_t row)
{
	unsigned b;

	return rq_at(view, row, &b)->rq.bucket[b] + 1;
}

/* The bucket rows of a run of unchanged cgroups (unchanged_run), from the
 * first bucket of the run's first. */
static size_t rq_same_since(void *view, size_t row, uint64_t since)
{
	const struct cgroup_snapshot *s = view;
	unsigned b;
	size_t i = rq_find(s, row, &b), n;

	if (b != 0 || (n = unchanged_run(s, i, since)) == 0)
		return 0;
	return (i + n < s->nrows ? s->rq_first[i + n] : s->nrq) - row;
}

static int get_count(void *view, struct mib_value *v)
{
	const struct cgroup_snapshot *s = view;

	return s ? mib_u64(v, ASN_GAUGE, s->nrows) : MIB_ABSENT;
}

static const struct mib_table cgroup_table = {
	.min_col = CM_ARC_clusterMonCgroupPath,
	.max_col = CM_ARC_clusterMonCgroupSchedCpuNs,
	.index_len = 1,
	.rows = cgroup_rows,
	.row_index = cgroup_index,
	.get = cgroup_get,
	.row_gen = cgroup_row_gen,
	.view_gen = cgroup_view_gen,
	.same_since = cgroup_same_since,
};

static const struct mib_table rq_table = {
	.min_col = CM_ARC_clusterMonCgroupRunqlatLow,
	.max_col = CM_ARC_clusterMonCgroupRunqlatCount,
	.index_len = 2,
	.rows = rq_rows,
	.row_index = rq_index,
	.get = rq_get,
	.row_gen = rq_row_gen,
	.view_gen = cgroup_view_gen,
	.same_since = rq_same_since,
};

static const struct mib_object cgroup_objects[] = {
	{ .arc = CM_ARC_clusterMonCgroupTable, .table = &cgroup_table },
	{ .arc = CM_ARC_clusterMonCgroupCount, .get = get_count },
	{ .arc = CM_ARC_clusterMonCgroupTopTable, .table = &mib_cgroup_top_table },
	{ .arc = CM_ARC_clusterMonCgroupRunqlatTable, .table = &rq_table },
	{ .arc = CM_ARC_clusterMonCgroupEndTable, .table = &mib_cgroup_end_table },
	{ .arc = CM_ARC_clusterMonCgroupEndLogged, .get = mib_cgroup_end_logged },
};

static const struct mib_group cgroup_group = {
	.name = "clusterMonCgroup",
	.base = cgroup_oid,
	.base_len = OID_LENGTH(cgroup_oid),
	.objects = cgroup_objects,
	.nobjects = sizeof(cgroup_objects) / sizeof(cgroup_objects[0]),
	.source = SOURCE_CGROUP,
};

int mib_cgroup_register(void)
{
	return mib_group_register(&cgroup_group);
}
