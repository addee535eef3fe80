/* SPDX-License-Identifier: BSD-2-Clause */
/* cpu.c - clusterMonCpu: CPU scalars and clusterMonCpuTable from the cpu snapshot. */
#include "engine/group.h"

#include <stdlib.h>
#include "mib.h"

#include "../sources/cpu.h"
#include "../sources/probes.h"

static const oid cpu_oid[] = { CM_OID_clusterMonCpu };

/* The time columns User..Steal are consecutive: r->ms[] is read by column. */
enum {
	COL_USER_MS = CM_ARC_clusterMonCpuUserMs, COL_STEAL_MS = CM_ARC_clusterMonCpuStealMs,
	COL_UTIL = CM_ARC_clusterMonCpuUtil, COL_BUSY_NS = CM_ARC_clusterMonCpuBusyNs,
	COL_CTXSW = CM_ARC_clusterMonCpuCtxSwitches
};

/* What one request reads: the cpu source's snapshot and the busy time the
 * helper's scheduler sensors measured, taken together so neither outlives
 * the request (the SNMP thread and the publisher each take their own). */
struct cpu_view {
	const struct cpu_snapshot *s;
	struct snapshot *held;
	struct probes_view *busy;
};

static void *cpu_acquire(void)
{
	struct cpu_view *v = malloc(sizeof(*v));

	if (v == NULL)
		return NULL;
	v->held = snapshot_acquire(cpu_source_ops.slot);
	if (v->held == NULL) {
		free(v);
		return NULL;
	}
	v->s = (const struct cpu_snapshot *)v->held;
	v->busy = probes_view_take();
	return v;
}

static void cpu_release(void *view)
{
	struct cpu_view *v = view;

	if (v == NULL)
		return;
	snapshot_release(cpu_source_ops.slot, v->held);
	probes_view_free(v->busy);
	free(v);
}

static const struct cpu_snapshot *snap(void *view)
{
	return view != NULL ? ((const struct cpu_view *)view)->s : NULL;
}

#define CPU_SCALAR(fn, expr, type)                                   \
	static int fn(void *view, struct mib_value *v)               \
	{                                                            \
		const struct cpu_snapshot *s = snap(view);           \
		return s ? mib_u64(v, type, (expr)) : MIB_ABSENT;    \
	}

CPU_SCALAR(get_count, s->ncpu, ASN_GAUGE)
CPU_SCALAR(get_total_util, s->total_util, ASN_GAUGE)
CPU_SCALAR(get_ctxt, s->ctxt, ASN_COUNTER64)
CPU_SCALAR(get_running, s->procs_running, ASN_GAUGE)
CPU_SCALAR(get_blocked, s->procs_blocked, ASN_GAUGE)

/* Pressure is absent, not zero, on kernels without /proc/pressure. */
#define PSI_SCALAR(fn, which, field)                                            \
	static int fn(void *view, struct mib_value *v)                          \
	{                                                                       \
		const struct cpu_snapshot *s = snap(view);                      \
		if (s == NULL || !s->which.present)                             \
			return MIB_ABSENT;                                      \
		return mib_u64(v, ASN_GAUGE, s->which.field);                   \
	}

PSI_SCALAR(get_psi_cpu10, psi_cpu, some10)
PSI_SCALAR(get_psi_cpu60, psi_cpu, some60)
PSI_SCALAR(get_psi_cpu300, psi_cpu, some300)
PSI_SCALAR(get_psi_io10, psi_io, some10)
PSI_SCALAR(get_psi_io_full10, psi_io, full10)

static size_t cpu_rows(void *view)
{
	const struct cpu_snapshot *s = snap(view);

	return s ? s->ncpu : 0;
}

static void cpu_index(void *view, size_t row, oid *out)
{
	const struct cpu_snapshot *s = snap(view);

	out[0] = (oid)s->rows[row].cpu + 1;
}

static int cpu_get(void *view, size_t row, unsigned col, struct mib_value *v)
{
	const struct cpu_row *r = &snap(view)->rows[row];
	const struct probes_view *busy = ((const struct cpu_view *)view)->busy;

	if (col >= COL_USER_MS && col <= COL_STEAL_MS)
		return mib_u64(v, ASN_COUNTER64, r->ms[col - COL_USER_MS]);
	switch (col) {
	case COL_UTIL:
		return mib_u64(v, ASN_GAUGE, r->util);
	case COL_CTXSW:
		return r->have_ctxsw ? mib_u64(v, ASN_COUNTER64, r->ctxsw) : MIB_ABSENT;
	case COL_BUSY_NS:
		/* Absent, not zero, while the helper's sensors do not run. */
		if (busy == NULL || r->cpu >= busy->ncpu)
			return MIB_ABSENT;
		return mib_u64(v, ASN_COUNTER64, busy->busy_ns[r->cpu]);
	default:
		return MIB_ABSENT;
	}
}

static const struct mib_table cpu_table = {
	.min_col = COL_USER_MS,
	.max_col = COL_CTXSW,
	.index_len = 1,
	.rows = cpu_rows,
	.row_index = cpu_index,
	.get = cpu_get,
};

static const struct mib_object cpu_objects[] = {
	{ .arc = CM_ARC_clusterMonCpuCount, .get = get_count },
	{ .arc = CM_ARC_clusterMonCpuTotalUtil, .get = get_total_util },
	{ .arc = CM_ARC_clusterMonPressureCpuSome10, .get = get_psi_cpu10 },
	{ .arc = CM_ARC_clusterMonPressureCpuSome60, .get = get_psi_cpu60 },
	{ .arc = CM_ARC_clusterMonPressureCpuSome300, .get = get_psi_cpu300 },
	{ .arc = CM_ARC_clusterMonCpuTotalCtxSwitches, .get = get_ctxt },
	{ .arc = CM_ARC_clusterMonCpuProcsRunning, .get = get_running },
	{ .arc = CM_ARC_clusterMonCpuProcsBlocked, .get = get_blocked },
	{ .arc = CM_ARC_clusterMonPressureIoSome10, .get = get_psi_io10 },
	{ .arc = CM_ARC_clusterMonPressureIoFull10, .get = get_psi_io_full10 },
	{ .arc = CM_ARC_clusterMonCpuTable, .table = &cpu_table },
};

static const struct mib_group cpu_group = {
	.name = "clusterMonCpu",
	.base = cpu_oid,
	.base_len = OID_LENGTH(cpu_oid),
	.objects = cpu_objects,
	.nobjects = sizeof(cpu_objects) / sizeof(cpu_objects[0]),
	.acquire = cpu_acquire,
	.release = cpu_release,
	.sources = 1u << SOURCE_CPU | 1u << SOURCE_PROBES,
};

int mib_cpu_register(void)
{
	return mib_group_register(&cpu_group);
}
