/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * agent.c - clusterMonAgent: what clustermond itself costs (CPU per thread
 * and in all, resident memory, the image's size), from the proc snapshot:
 * its thread reads them once a second, this thread never reads /proc.
 */
#include "engine/group.h"
#include "mib.h"

#include "../sources/proc.h"

static const oid agent_oid[] = { CM_OID_clusterMonAgent };

enum { COL_NAME = CM_ARC_clusterMonAgentThreadName, COL_CPU = CM_ARC_clusterMonAgentThreadCpuNs };

/* The cost part of the proc snapshot, or NULL before its first read. */
static const struct self_cost *cost(void *view)
{
	const struct proc_snapshot *s = view;

	return s != NULL && s->agent.have ? &s->agent : NULL;
}

static int get_rss(void *view, struct mib_value *v)
{
	const struct self_cost *c = cost(view);

	if (c == NULL || c->rss_kb == 0)
		return MIB_ABSENT;
	return mib_u64(v, ASN_GAUGE, c->rss_kb > UINT32_MAX ? UINT32_MAX : c->rss_kb);
}

static int get_image(void *view, struct mib_value *v)
{
	const struct self_cost *c = cost(view);

	if (c == NULL || !c->have_image)
		return MIB_ABSENT;
	return mib_u64(v, ASN_GAUGE, c->image_bytes > UINT32_MAX ? UINT32_MAX : c->image_bytes);
}

static int get_cpu(void *view, struct mib_value *v)
{
	const struct self_cost *c = cost(view);

	return c != NULL ? mib_u64(v, ASN_COUNTER64, c->cpu_ns) : MIB_ABSENT;
}

static size_t thread_rows(void *view)
{
	const struct self_cost *c = cost(view);

	return c != NULL ? c->nthreads : 0;
}

static void thread_index(void *view, size_t row, oid *out)
{
	out[0] = cost(view)->thread[row].tid;
}

static int thread_get(void *view, size_t row, unsigned col, struct mib_value *v)
{
	const struct self_thread *t = &cost(view)->thread[row];

	switch (col) {
	case COL_NAME:
		return mib_string(v, t->name);
	case COL_CPU:
		return mib_u64(v, ASN_COUNTER64, t->cpu_ns);
	default:
		return MIB_ABSENT;
	}
}

static const struct mib_table thread_table = {
	.min_col = COL_NAME,
	.max_col = COL_CPU,
	.index_len = 1,
	.rows = thread_rows,
	.row_index = thread_index,
	.get = thread_get,
};

static const struct mib_object agent_objects[] = {
	{ .arc = CM_ARC_clusterMonAgentRssKB, .get = get_rss },
	{ .arc = CM_ARC_clusterMonAgentImageBytes, .get = get_image },
	{ .arc = CM_ARC_clusterMonAgentCpuNs, .get = get_cpu },
	{ .arc = CM_ARC_clusterMonAgentThreadTable, .table = &thread_table },
};

static const struct mib_group agent_group = {
	.name = "clusterMonAgent",
	.base = agent_oid,
	.base_len = OID_LENGTH(agent_oid),
	.objects = agent_objects,
	.nobjects = sizeof(agent_objects) / sizeof(agent_objects[0]),
	.source = SOURCE_PROC,
	/* The figures change once a second, whatever proc's interval. */
	.publish_min_ms = 1000,
};

int mib_agent_register(void)
{
	return mib_group_register(&agent_group);
}
