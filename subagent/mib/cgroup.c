/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * cgroup.c - clusterMonCgroup: the control group table from the cgroup
 * source's snapshot. A column whose file the kernel lacks (throttling
 * without a quota controller, PSI on v1, no limit set) has no instance.
 */
#include "group.h"
#include "mib.h"
#include "top.h"

#include "../core/log2hist.h"
#include "../sources/sources.h"

static const oid cgroup_oid[] = { CM_OID_clusterMonCgroup };

enum {
	COL_PATH = CM_ARC_clusterMonCgroupPath,
	COL_VERSION = CM_ARC_clusterMonCgroupVersion,
	COL_CPU_NS = CM_ARC_clusterMonCgroupCpuNs,
	COL_USER_NS = CM_ARC_clusterMonCgroupUserNs,
	COL_SYSTEM_NS = CM_ARC_clusterMonCgroupSystemNs,
	COL_PERIODS = CM_ARC_clusterMonCgroupPeriods,
	COL_THR_PERIODS = CM_ARC_clusterMonCgroupThrottledPeriods,
	COL_THR_NS = CM_ARC_clusterMonCgroupThrottledNs,
	COL_MEM_CURRENT = CM_ARC_clusterMonCgroupMemCurrent,
	COL_MEM_PEAK = CM_ARC_clusterMonCgroupMemPeak,
	COL_MEM_LIMIT = CM_ARC_clusterMonCgroupMemLimit,
	COL_OOM = CM_ARC_clusterMonCgroupOomEvents,
	COL_OOM_KILLS = CM_ARC_clusterMonCgroupOomKills,
	COL_ANON = CM_ARC_clusterMonCgroupAnonBytes,
	COL_FILE = CM_ARC_clusterMonCgroupFileBytes,
	COL_IO_RB = CM_ARC_clusterMonCgroupIoReadBytes,
	COL_IO_WB = CM_ARC_clusterMonCgroupIoWriteBytes,
	COL_IO_RO = CM_ARC_clusterMonCgroupIoReadOps,
	COL_IO_WO = CM_ARC_clusterMonCgroupIoWriteOps,
	COL_PIDS = CM_ARC_clusterMonCgroupPidsCurrent,
	COL_PIDS_LIMIT = CM_ARC_clusterMonCgroupPidsLimit,
	COL_PSI_FIRST = CM_ARC_clusterMonCgroupPsiCpuSome10,
	COL_PSI_LAST = CM_ARC_clusterMonCgroupPsiIoFullTotalUs,
	COL_PROCESSES = CM_ARC_clusterMonCgroupProcesses,
	COL_WORKLOAD = CM_ARC_clusterMonCgroupWorkload,
	COL_RQ_WAITS = CM_ARC_clusterMonCgroupRunqlatWaits,
	COL_RQ_P50 = CM_ARC_clusterMonCgroupRunqlatP50,
	COL_RQ_P90 = CM_ARC_clusterMonCgroupRunqlatP90,
	COL_RQ_P99 = CM_ARC_clusterMonCgroupRunqlatP99,
	COL_SCHED_CPU = CM_ARC_clusterMonCgroupSchedCpuNs,
};

static void *cgroup_acquire(void)
{
	return snapshot_acquire(&cgroup_slot);
}

static void cgroup_release(void *view)
{
	snapshot_release(&cgroup_slot, view);
}

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

/* A value, or no instance when its bit is not in have. */
static int when(const struct cgroup_stats *st, uint32_t bit, struct mib_value *v,
		u_char type, uint64_t n)
{
	return (st->have & bit) ? mib_u64(v, type, n) : MIB_ABSENT;
}

static uint32_t gauge32(uint64_t n)
{
	return n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
}

/* The twelve PSI columns: cpu, memory, io; some then full; avg10 then total. */
static int psi_get(const struct cgroup_stats *st, unsigned col, struct mib_value *v)
{
	static const uint32_t bits[3] = { CGS_PSI_CPU, CGS_PSI_MEM, CGS_PSI_IO };
	const struct pressure *p[3] = { &st->psi_cpu, &st->psi_mem, &st->psi_io };
	unsigned k = col - COL_PSI_FIRST, res = k / 4, full = (k / 2) % 2;
	const struct pressure_line *l = full ? &p[res]->full : &p[res]->some;

	if (!(st->have & bits[res]) || !(full ? p[res]->have_full : p[res]->have_some))
		return MIB_ABSENT;
	return k % 2 == 0 ? mib_u64(v, ASN_GAUGE, l->avg10) : mib_u64(v, ASN_COUNTER64, l->total_us);
}

static int mem_get(const struct cgroup_stats *st, unsigned col, struct mib_value *v)
{
	switch (col) {
	case COL_MEM_CURRENT: return when(st, CGS_MEM, v, ASN_COUNTER64, st->mem_current);
	case COL_MEM_PEAK: return when(st, CGS_MEM_PEAK, v, ASN_COUNTER64, st->mem_peak);
	case COL_MEM_LIMIT:
		return st->mem_limit == CG_UNLIMITED ? MIB_ABSENT :
		       when(st, CGS_MEM_LIMIT, v, ASN_COUNTER64, st->mem_limit);
	case COL_OOM: return when(st, CGS_OOM, v, ASN_COUNTER64, st->oom);
	case COL_OOM_KILLS: return when(st, CGS_OOM_KILL, v, ASN_COUNTER64, st->oom_kill);
	case COL_ANON: return when(st, CGS_MEMSTAT, v, ASN_COUNTER64, st->anon);
	case COL_FILE: return when(st, CGS_MEMSTAT, v, ASN_COUNTER64, st->file);
	default: return MIB_ABSENT;
	}
}

static int other_get(const struct cgroup_stats *st, unsigned col, struct mib_value *v)
{
	switch (col) {
	case COL_CPU_NS: return when(st, CGS_CPU, v, ASN_COUNTER64, st->cpu_ns);
	case COL_USER_NS: return when(st, CGS_CPU_SPLIT, v, ASN_COUNTER64, st->user_ns);
	case COL_SYSTEM_NS: return when(st, CGS_CPU_SPLIT, v, ASN_COUNTER64, st->system_ns);
	case COL_PERIODS: return when(st, CGS_THROTTLE, v, ASN_COUNTER64, st->nr_periods);
	case COL_THR_PERIODS: return when(st, CGS_THROTTLE, v, ASN_COUNTER64, st->nr_throttled);
	case COL_THR_NS: return when(st, CGS_THROTTLE, v, ASN_COUNTER64, st->throttled_ns);
	case COL_IO_RB: return when(st, CGS_IO, v, ASN_COUNTER64, st->rbytes);
	case COL_IO_WB: return when(st, CGS_IO, v, ASN_COUNTER64, st->wbytes);
	case COL_IO_RO: return when(st, CGS_IO, v, ASN_COUNTER64, st->rios);
	case COL_IO_WO: return when(st, CGS_IO, v, ASN_COUNTER64, st->wios);
	case COL_PIDS: return when(st, CGS_PIDS, v, ASN_GAUGE, gauge32(st->pids_current));
	case COL_PIDS_LIMIT:
		return st->pids_limit == CG_UNLIMITED ? MIB_ABSENT :
		       when(st, CGS_PIDS_LIMIT, v, ASN_GAUGE, gauge32(st->pids_limit));
	case COL_PROCESSES: return when(st, CGS_PROCS, v, ASN_GAUGE, gauge32(st->nprocs));
	default: return mem_get(st, col, v);
	}
}

static int sched_get(const struct cgroup_sched *w, unsigned col, struct mib_value *v)
{
	if (!w->have)
		return MIB_ABSENT;
	switch (col) {
	case COL_RQ_WAITS: return mib_u64(v, ASN_COUNTER64, w->waits);
	case COL_RQ_P50: return mib_u64(v, ASN_COUNTER64, w->p50);
	case COL_RQ_P90: return mib_u64(v, ASN_COUNTER64, w->p90);
	case COL_RQ_P99: return mib_u64(v, ASN_COUNTER64, w->p99);
	case COL_SCHED_CPU: return mib_u64(v, ASN_COUNTER64, w->cpu_ns);
	default: return MIB_ABSENT;
	}
}

int mib_cgroup_row_get(const struct cgroup_row *r, unsigned col, struct mib_value *v)
{
	if (col == COL_PATH)
		return mib_string(v, r->path);
	if (col == COL_VERSION)
		return mib_u64(v, ASN_INTEGER, r->version);
	if (col == COL_WORKLOAD)
		return r->workload[0] ? mib_string(v, r->workload) : MIB_ABSENT;
	if (col >= COL_PSI_FIRST && col <= COL_PSI_LAST)
		return psi_get(&r->st, col, v);
	if (col >= COL_RQ_WAITS)
		return sched_get(&r->rq, col, v);
	return other_get(&r->st, col, v);
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
	.min_col = COL_PATH,
	.max_col = COL_SCHED_CPU,
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
	.acquire = cgroup_acquire,
	.release = cgroup_release,
	.sources = 1u << SOURCE_CGROUP,
};

int mib_cgroup_register(void)
{
	return mib_group_register(&cgroup_group);
}
