// SPDX-License-Identifier: BSD-2-Clause
/*
 * cgroupend.c - clusterMonCgroupEndTable (issue 43): removed cgroups' last
 * rows, from the end log the cgroup source puts in its snapshot. Its
 * columns up to SchedCpuNs carry the live table's numbers, so they are
 * served by the live table's own code; an entry never changes, so its
 * generation is its index and the image encodes it once.
 */
#include "engine/group.h"
#include "mib.h"
#include "top.h"

#include "../sources/cgroup.h"

_Static_assert(CM_ARC_clusterMonCgroupEndPath == CM_ARC_clusterMonCgroupPath &&
		       CM_ARC_clusterMonCgroupEndSchedCpuNs == CM_ARC_clusterMonCgroupSchedCpuNs,
	       "the end table's columns are the live table's, numbered alike");

static const struct cgroup_ends *ends_of(void *view)
{
	return view ? ((const struct cgroup_snapshot *)view)->ends : NULL;
}

static size_t end_rows(void *view)
{
	const struct cgroup_ends *e = ends_of(view);

	return e ? e->n : 0;
}

static void end_index(void *view, size_t row, oid *out)
{
	out[0] = ends_of(view)->e[row].index;
}

static uint64_t end_row_gen(void *view, size_t row)
{
	return ends_of(view)->e[row].index;
}

static int end_get(void *view, size_t row, unsigned col, struct mib_value *v)
{
	const struct cgroup_end *e = &ends_of(view)->e[row];

	switch (col) {
	case CM_ARC_clusterMonCgroupEndStartTime: return mib_u64(v, ASN_COUNTER64, e->start_ms);
	case CM_ARC_clusterMonCgroupEndEndTime: return mib_u64(v, ASN_COUNTER64, e->end_ms);
	case CM_ARC_clusterMonCgroupEndLiveIndex: return mib_u64(v, ASN_UNSIGNED, e->row->index);
	default: return mib_cgroup_row_get(e->row, col, v);
	}
}

const struct mib_table mib_cgroup_end_table = {
	.min_col = CM_ARC_clusterMonCgroupEndPath,
	.max_col = CM_ARC_clusterMonCgroupEndLiveIndex,
	.index_len = 1,
	.rows = end_rows,
	.row_index = end_index,
	.get = end_get,
	.row_gen = end_row_gen,
};

int mib_cgroup_end_logged(void *view, struct mib_value *v)
{
	const struct cgroup_ends *e = ends_of(view);

	return mib_u64(v, ASN_COUNTER64, e ? e->logged : 0);
}
