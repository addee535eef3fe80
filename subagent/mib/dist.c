/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * dist.c - clusterMonDistributions: clusterMonHistSourceTable (count, sum,
 * percentiles of each distribution) and clusterMonHistBucketTable (its log2
 * buckets, cumulative, never reset by reading).
 */
#include "engine/group.h"
#include "mib.h"
#include "disttable.h"

#include <stdlib.h>

#include "../runtime/dist.h"
#include "../runtime/sampler.h"

static const oid dist_oid[] = { CM_OID_clusterMonDistributions };

enum {
	SRC_NAME = CM_ARC_clusterMonHistSourceName,
	SRC_UNIT = CM_ARC_clusterMonHistSourceUnit,
	SRC_COUNT = CM_ARC_clusterMonHistSourceCount,
	SRC_SUM = CM_ARC_clusterMonHistSourceSum,
	SRC_P50 = CM_ARC_clusterMonHistSourceP50,
	SRC_P90 = CM_ARC_clusterMonHistSourceP90,
	SRC_P99 = CM_ARC_clusterMonHistSourceP99
};
enum {
	BKT_LOW = CM_ARC_clusterMonHistBucketLow,
	BKT_HIGH = CM_ARC_clusterMonHistBucketHigh,
	BKT_COUNT = CM_ARC_clusterMonHistBucketCount
};

/* The view: the distribution table's (first, for disttable_view) and the
 * registry's snapshot, taken at the start of the request. */
struct dist_view {
	struct rt_view rows;
	const struct dist_snapshot *s;
};

static void *dist_acquire(void)
{
	struct dist_view *v = malloc(sizeof(*v));

	if (v == NULL)
		return NULL;
	v->s = dist_view_take();
	if (v->s == NULL) {
		free(v);
		return NULL;
	}
	disttable_acquire(&v->rows);
	return v;
}

static void dist_release(void *view)
{
	struct dist_view *v = view;

	if (v == NULL)
		return;
	disttable_release(&v->rows);
	dist_view_drop(v->s);
	free(v);
}

static const struct dist_snapshot *snap(void *view)
{
	return ((const struct dist_view *)view)->s;
}

static size_t source_rows(void *view)
{
	return snap(view)->n;
}

static void source_index(void *view, size_t row, oid *out)
{
	out[0] = snap(view)->d[row].index;
}

static int source_get(void *view, size_t row, unsigned col, struct mib_value *v)
{
	const struct dist_copy *d = &snap(view)->d[row];

	switch (col) {
	case SRC_NAME: return mib_string(v, d->name);
	case SRC_UNIT: return mib_string(v, d->unit);
	case SRC_COUNT: return mib_u64(v, ASN_COUNTER64, d->h.count);
	case SRC_SUM: return mib_u64(v, ASN_COUNTER64, d->h.sum);
	case SRC_P50: return mib_u64(v, ASN_COUNTER64, log2hist_percentile(&d->h, 500));
	case SRC_P90: return mib_u64(v, ASN_COUNTER64, log2hist_percentile(&d->h, 900));
	case SRC_P99: return mib_u64(v, ASN_COUNTER64, log2hist_percentile(&d->h, 990));
	default: return MIB_ABSENT;
	}
}

/* Bucket rows run through every distribution's buckets in index order. */
static const struct dist_copy *bucket_at(void *view, size_t row, unsigned *bucket)
{
	static _Thread_local size_t last;
	const struct dist_snapshot *s = snap(view);

	return &s->d[log2hist_row_at(s->first, s->n, s->nbuckets, row, &last, bucket)];
}

static size_t bucket_rows(void *view)
{
	return snap(view)->nbuckets;
}

static void bucket_index(void *view, size_t row, oid *out)
{
	unsigned b;
	const struct dist_copy *d = bucket_at(view, row, &b);

	out[0] = d->index;
	out[1] = b + 1;
}

static int bucket_get(void *view, size_t row, unsigned col, struct mib_value *v)
{
	unsigned b;
	const struct dist_copy *d = bucket_at(view, row, &b);

	_Static_assert(BKT_HIGH == BKT_LOW + 1 && BKT_COUNT == BKT_LOW + 2, "Low, High, Count");
	return mib_log2_bucket(v, col - BKT_LOW, &d->h, b, d->h.bucket[b]);
}

static const struct mib_table source_table = {
	.min_col = SRC_NAME, .max_col = SRC_P99, .index_len = 1,
	.rows = source_rows, .row_index = source_index, .get = source_get,
};

static const struct mib_table bucket_table = {
	.min_col = BKT_LOW, .max_col = BKT_COUNT, .index_len = 2,
	.rows = bucket_rows, .row_index = bucket_index, .get = bucket_get,
};

static const struct mib_object dist_objects[] = {
	{ .arc = CM_ARC_clusterMonHistSourceTable, .table = &source_table },
	{ .arc = CM_ARC_clusterMonHistBucketTable, .table = &bucket_table },
	{ .arc = CM_ARC_clusterMonDistTable, .table = &disttable_view },
	{ .arc = CM_ARC_clusterMonDistMaxRows, .get = disttable_max_rows },
	{ .arc = CM_ARC_clusterMonDistMaxInflightLimit, .get = disttable_max_inflight },
};

static void dist_set_request(netsnmp_agent_request_info *reqinfo,
			     netsnmp_request_info *requests)
{
	disttable_set_request(reqinfo, requests, OID_LENGTH(dist_oid));
}

static const struct mib_group dist_group = {
	.name = "clusterMonDistributions",
	.base = dist_oid,
	.base_len = OID_LENGTH(dist_oid),
	.objects = dist_objects,
	.nobjects = sizeof(dist_objects) / sizeof(dist_objects[0]),
	.acquire = dist_acquire,
	/* Every source feeds a distribution (its own sampling cost at least);
	 * cumulative histograms need not be republished at 100 Hz. */
	.sources = (1u << (SOURCE_LAST + 1)) - 2,
	.publish_min_ms = 250,
	/* The sampler feeds the costs and the helper's read (probes, on its
	 * timer) the rest: a read wakes no source. */
	.demand = MIB_DEMAND_NONE,
	.release = dist_release,
	.set_request = dist_set_request,
};

int mib_dist_register(void)
{
	disttable_init();
	return mib_group_register(&dist_group);
}

void mib_dist_clear(void)
{
	disttable_clear();
	dist_view_clear();
}
