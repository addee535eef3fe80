/* SPDX-License-Identifier: BSD-2-Clause */
/* memory.c - clusterMonMemory: sizes, faults, swap and pressure from the mem snapshot. */
#include "engine/group.h"
#include "mib.h"

#include "../sources/mem.h"

static const oid memory_oid[] = { CM_OID_clusterMonMemory };

/* Sizes are CounterBasedGauge64 (Counter64 on the wire): they never wrap. */
#define MEM_SCALAR(fn, present, field)                                   \
	static int fn(void *view, struct mib_value *v)                   \
	{                                                                \
		const struct mem_snapshot *s = view;                     \
		if (s == NULL || !(present))                             \
			return MIB_ABSENT;                               \
		return mib_u64(v, ASN_COUNTER64, s->field);              \
	}

MEM_SCALAR(get_total, 1, total_kb)
MEM_SCALAR(get_available, s->have_available, available_kb)
MEM_SCALAR(get_free, 1, free_kb)
MEM_SCALAR(get_cached, 1, cached_kb)
MEM_SCALAR(get_buffers, 1, buffers_kb)
MEM_SCALAR(get_dirty, 1, dirty_kb)
MEM_SCALAR(get_swap_total, 1, swap_total_kb)
MEM_SCALAR(get_swap_free, 1, swap_free_kb)
MEM_SCALAR(get_minor, 1, minor_faults)
MEM_SCALAR(get_major, 1, major_faults)
MEM_SCALAR(get_swap_ins, 1, swap_ins)
MEM_SCALAR(get_swap_outs, 1, swap_outs)

static int get_psi_some10(void *view, struct mib_value *v)
{
	const struct mem_snapshot *s = view;

	if (s == NULL || !s->psi_mem.present)
		return MIB_ABSENT;
	return mib_u64(v, ASN_GAUGE, s->psi_mem.some10);
}

static int get_psi_full10(void *view, struct mib_value *v)
{
	const struct mem_snapshot *s = view;

	if (s == NULL || !s->psi_mem.present)
		return MIB_ABSENT;
	return mib_u64(v, ASN_GAUGE, s->psi_mem.full10);
}

static const struct mib_object memory_objects[] = {
	{ .arc = CM_ARC_clusterMonMemTotalKB, .get = get_total },
	{ .arc = CM_ARC_clusterMonMemAvailableKB, .get = get_available },
	{ .arc = CM_ARC_clusterMonMemFreeKB, .get = get_free },
	{ .arc = CM_ARC_clusterMonMemCachedKB, .get = get_cached },
	{ .arc = CM_ARC_clusterMonMemBuffersKB, .get = get_buffers },
	{ .arc = CM_ARC_clusterMonMemDirtyKB, .get = get_dirty },
	{ .arc = CM_ARC_clusterMonMemSwapTotalKB, .get = get_swap_total },
	{ .arc = CM_ARC_clusterMonMemSwapFreeKB, .get = get_swap_free },
	{ .arc = CM_ARC_clusterMonMemMinorFaults, .get = get_minor },
	{ .arc = CM_ARC_clusterMonMemMajorFaults, .get = get_major },
	{ .arc = CM_ARC_clusterMonMemSwapIns, .get = get_swap_ins },
	{ .arc = CM_ARC_clusterMonMemSwapOuts, .get = get_swap_outs },
	{ .arc = CM_ARC_clusterMonPressureMemSome10, .get = get_psi_some10 },
	{ .arc = CM_ARC_clusterMonPressureMemFull10, .get = get_psi_full10 },
};

static const struct mib_group memory_group = {
	.name = "clusterMonMemory",
	.base = memory_oid,
	.base_len = OID_LENGTH(memory_oid),
	.objects = memory_objects,
	.nobjects = sizeof(memory_objects) / sizeof(memory_objects[0]),
	.source = SOURCE_MEM,
};

int mib_memory_register(void)
{
	return mib_group_register(&memory_group);
}
