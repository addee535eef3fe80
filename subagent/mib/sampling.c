/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * sampling.c - clusterMonSourceTable: each source's interval (writable), the
 * cost of its last sample and how many it took.
 */
#include "engine/group.h"
#include "mib.h"

#include <stdlib.h>

#include "../runtime/sampler.h"
#include "../sources/registry.h"
#include "../sources/source_ops.h"

static const oid sampling_oid[] = { CM_OID_clusterMonSampling };

enum {
	COL_INDEX = CM_ARC_clusterMonSourceIndex,
	COL_NAME = CM_ARC_clusterMonSourceName,
	COL_INTERVAL = CM_ARC_clusterMonSourceIntervalMs,
	COL_LAST_US = CM_ARC_clusterMonSourceLastSampleUs,
	COL_SAMPLES = CM_ARC_clusterMonSourceSamples,
	COL_LATE = CM_ARC_clusterMonSourceLateSamples,
	COL_ERRORS = CM_ARC_clusterMonSourceErrors,
	COL_METHOD = CM_ARC_clusterMonSourceMethod,
	COL_STATE = CM_ARC_clusterMonSourceState
};

/* What one request or publication reads: every source this build has, in
 * index order, with its figures and method as they were when the engine
 * took the view (mib_group.acquire), so the cells of one request agree and
 * no callback reaches past its view into the sampler or the registry. */
struct sampling_view {
	size_t n;
	struct sampling_row {
		unsigned index;
		struct source_stats st;
		const char *method;   /* clusterMonSourceMethod */
	} row[SOURCE_LAST];
};

static void *sampling_acquire(void)
{
	struct sampling_view *sv = calloc(1, sizeof(*sv));

	if (sv == NULL)
		return NULL;
	for (unsigned i = sampler_next(0); i != 0 && sv->n < SOURCE_LAST; i = sampler_next(i)) {
		struct sampling_row *r = &sv->row[sv->n];

		if (sampler_stats(i, &r->st) != 0)
			continue;
		r->index = i;
		r->method = source_method(i);
		sv->n++;
	}
	return sv;
}

static void sampling_release(void *view)
{
	free(view);
}

static size_t source_rows(void *view)
{
	return ((const struct sampling_view *)view)->n;
}

static void source_index(void *view, size_t row, oid *out)
{
	out[0] = ((const struct sampling_view *)view)->row[row].index;
}

static int source_get(void *view, size_t row, unsigned col, struct mib_value *v)
{
	const struct sampling_row *r = &((const struct sampling_view *)view)->row[row];
	const struct source_stats *st = &r->st;

	switch (col) {
	case COL_NAME:
		return mib_string(v, st->name);
	case COL_INTERVAL:
		return mib_u64(v, ASN_UNSIGNED, st->interval_ms);
	case COL_LAST_US:
		return mib_u64(v, ASN_GAUGE, st->last_cost_us);
	case COL_SAMPLES:
		return mib_u64(v, ASN_COUNTER64, st->samples);
	case COL_LATE:
		return mib_u64(v, ASN_COUNTER64, st->late);
	case COL_ERRORS:
		return mib_u64(v, ASN_COUNTER64, st->errors);
	case COL_METHOD:
		return mib_string(v, r->method);
	case COL_STATE:
		return mib_u64(v, ASN_INTEGER, st->state);
	default:
		return MIB_ABSENT; /* the index is not-accessible */
	}
}

static int interval_check(const oid *idx, size_t len, const netsnmp_variable_list *var)
{
	(void)idx;
	(void)len;
	if (var->type != ASN_UNSIGNED || var->val_len != sizeof(long))
		return SNMP_ERR_WRONGTYPE;
	if (*var->val.integer < (long)SOURCE_INTERVAL_MIN_MS ||
	    *var->val.integer > (long)SOURCE_INTERVAL_MAX_MS)
		return SNMP_ERR_WRONGVALUE;
	return SNMP_ERR_NOERROR;
}

static int interval_apply(const oid *idx, size_t len, const netsnmp_variable_list *var,
			  struct mib_undo *undo)
{
	(void)len;
	undo->num = sampler_interval((unsigned)idx[0]);
	if (sampler_set_interval((unsigned)idx[0], (uint32_t)*var->val.integer) != 0)
		return SNMP_ERR_COMMITFAILED;
	return SNMP_ERR_NOERROR;
}

static void interval_undo(const oid *idx, size_t len, const struct mib_undo *undo)
{
	(void)len;
	sampler_set_interval((unsigned)idx[0], (uint32_t)undo->num);
}

static const struct mib_setter interval_setter = {
	.check = interval_check,
	.apply = interval_apply,
	.undo = interval_undo,
};

static const struct mib_table source_table = {
	.min_col = COL_NAME,
	.max_col = COL_STATE,
	.index_len = 1,
	.rows = source_rows,
	.row_index = source_index,
	.get = source_get,
	.writable_col = COL_INTERVAL,
	.setter = &interval_setter,
};

static const struct mib_object sampling_objects[] = {
	{ .arc = CM_ARC_clusterMonSourceTable, .table = &source_table },
};

static const struct mib_group sampling_group = {
	.name = "clusterMonSampling",
	.base = sampling_oid,
	.base_len = OID_LENGTH(sampling_oid),
	.objects = sampling_objects,
	.nobjects = 1,
	.acquire = sampling_acquire,
	.release = sampling_release,
};

int mib_sampling_register(void)
{
	return mib_group_register(&sampling_group);
}
