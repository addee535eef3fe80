/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * top.c - clusterMonProcTopTable and clusterMonCgroupTopTable: the rankings
 * sources/top.c put in the proc and cgroup snapshots, served by rank. The
 * proc and cgroup groups list these tables among their objects, so a
 * request reads one snapshot for the table and its ranking alike.
 */
#include "engine/group.h"
#include "mib.h"
#include "top.h"

#include "../sources/cgroup.h"
#include "../sources/proc.h"
#include "../sources/top.h"

/* ------------------------------------------------ processes */

static const struct proc_top *ptop(void *view)
{
	return view ? ((const struct proc_snapshot *)view)->top : NULL;
}

static size_t proc_top_rows(void *view)
{
	const struct proc_top *t = ptop(view);

	return t ? t->n : 0;
}

static void rank_index(void *view, size_t row, oid *out)
{
	(void)view;
	out[0] = (oid)(row + 1);
}

static int proc_top_get(void *view, size_t row, unsigned col, struct mib_value *v)
{
	const struct proc_row *r = ptop(view)->rows[row];

	switch (col) {
	case CM_ARC_clusterMonProcTopPid: return mib_u64(v, ASN_UNSIGNED, (uint32_t)r->pid);
	case CM_ARC_clusterMonProcTopName: return mib_string(v, r->comm);
	case CM_ARC_clusterMonProcTopCpuUtil: return mib_u64(v, ASN_GAUGE, r->util);
	case CM_ARC_clusterMonProcTopRssKB: return mib_u64(v, ASN_COUNTER64, r->rss_kb);
	case CM_ARC_clusterMonProcTopCgroup:
		return r->cgroup[0] ? mib_string(v, r->cgroup) : MIB_ABSENT;
	default: return MIB_ABSENT;
	}
}

const struct mib_table mib_proc_top_table = {
	.min_col = CM_ARC_clusterMonProcTopPid,
	.max_col = CM_ARC_clusterMonProcTopCgroup,
	.index_len = 1,
	.rows = proc_top_rows,
	.row_index = rank_index,
	.get = proc_top_get,
};

/* ------------------------------------------------ cgroups */

static const struct cgroup_top *ctop(void *view)
{
	return view ? ((const struct cgroup_snapshot *)view)->top : NULL;
}

static size_t cgroup_top_rows(void *view)
{
	const struct cgroup_top *t = ctop(view);

	return t ? t->n : 0;
}

static int cgroup_top_get(void *view, size_t row, unsigned col, struct mib_value *v)
{
	const struct cgroup_top_row *t = &ctop(view)->rows[row];
	const struct cgroup_row *r = t->row;

	switch (col) {
	case CM_ARC_clusterMonCgroupTopIndex: return mib_u64(v, ASN_UNSIGNED, r->index);
	case CM_ARC_clusterMonCgroupTopPath: return mib_string(v, r->path);
	case CM_ARC_clusterMonCgroupTopCpuUtil: return mib_u64(v, ASN_GAUGE, t->util);
	case CM_ARC_clusterMonCgroupTopMemCurrent:
		return (r->st.have & CGS_MEM) ? mib_u64(v, ASN_COUNTER64, r->st.mem_current)
					      : MIB_ABSENT;
	case CM_ARC_clusterMonCgroupTopWorkload:
		return r->workload[0] ? mib_string(v, r->workload) : MIB_ABSENT;
	default: return MIB_ABSENT;
	}
}

const struct mib_table mib_cgroup_top_table = {
	.min_col = CM_ARC_clusterMonCgroupTopIndex,
	.max_col = CM_ARC_clusterMonCgroupTopWorkload,
	.index_len = 1,
	.rows = cgroup_top_rows,
	.row_index = rank_index,
	.get = cgroup_top_get,
};
