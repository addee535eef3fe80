/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * cgrouprow.c - one cgroup row's columns, as clusterMonCgroupTable and
 * clusterMonCgroupEndTable (a removed cgroup's last row, numbered alike)
 * both serve them. Apart from cgroup.c so the two tables' files do not
 * call into each other.
 */
#include "engine/group.h"
#include "mib.h"
#include "top.h"

#include "../sources/cgroup.h"

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
