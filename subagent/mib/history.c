/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * history.c - clusterMonHistoryCtlTable and clusterMonHistoryTable: RMON
 * style history (RFC 2819 historyControlTable) of any numeric instance this
 * agent serves, in buckets of 10 ms to an hour.
 *
 * A row samples its variable ten times per bucket, but never more often
 * than every 100 ms unless the bucket itself is shorter (then once per
 * bucket): the sources behind the variables refresh at 100 ms at best, so
 * faster reads would only see the same value again. Only buckets whose
 * interval has ended are shown, as in RMON.
 */
#include "engine/rowtable.h"
#include "mib.h"
#include "engine/watch.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/number.h"
#include "core/lowerbound.h"
#include "core/ring.h"

static const oid history_oid[] = { CM_OID_clusterMonHistory };

enum {
	COL_VARIABLE = CM_ARC_clusterMonHistoryCtlVariable,
	COL_INTERVAL = CM_ARC_clusterMonHistoryCtlIntervalMs,
	COL_REQUESTED = CM_ARC_clusterMonHistoryCtlBucketsRequested,
	COL_GRANTED = CM_ARC_clusterMonHistoryCtlBucketsGranted,
	COL_OWNER = CM_ARC_clusterMonHistoryCtlOwner,
	COL_STORAGE = CM_ARC_clusterMonHistoryCtlStorageType,
	COL_STATUS = CM_ARC_clusterMonHistoryCtlRowStatus
};
enum {
	HCOL_START = CM_ARC_clusterMonHistoryIntervalStart,
	HCOL_SAMPLES = CM_ARC_clusterMonHistorySamples,
	HCOL_MIN = CM_ARC_clusterMonHistoryMin,
	HCOL_MAX = CM_ARC_clusterMonHistoryMax,
	HCOL_MEAN = CM_ARC_clusterMonHistoryMean,
	HCOL_LAST = CM_ARC_clusterMonHistoryLast
};

#define BUCKETS_MAX 65535u
/* Every row's granted buckets together: 262144 of 64 bytes, 16 MiB. */
#define BUCKET_BUDGET 262144u

struct history_row {
	struct rt_row hdr;
	oid var[MAX_OID_LEN];
	size_t var_len;
	uint32_t interval_ms;
	uint32_t requested;
	char owner[RT_OWNER_MAX + 1];
};

struct history_runtime {
	struct ring ring;          /* granted closed buckets and the open one */
	uint32_t granted;
	uint32_t period_ms;
	uint64_t next_due;
};

static struct rt_table table;
static uint32_t buckets_granted;   /* over every runtime */
static uint64_t generation;        /* bumped whenever a bucket may have changed */

/* ------------------------------------------------------------ columns */

static void defaults(struct rt_row *r)
{
	struct history_row *h = (struct history_row *)r;

	h->interval_ms = 1000;
	h->requested = 60;
}

static int check(unsigned col, const netsnmp_variable_list *var)
{
	switch (col) {
	case COL_VARIABLE:
		return rt_check_variable(var);
	case COL_INTERVAL:
		return rt_check_unsigned(var, RING_INTERVAL_MIN_MS, RING_INTERVAL_MAX_MS);
	case COL_REQUESTED:
		return rt_check_unsigned(var, 1, BUCKETS_MAX);
	case COL_OWNER:
		return rt_check_owner(var);
	default: /* BucketsGranted */
		return SNMP_ERR_NOTWRITABLE;
	}
}

static void set(struct rt_row *r, unsigned col, const netsnmp_variable_list *var)
{
	struct history_row *h = (struct history_row *)r;

	switch (col) {
	case COL_VARIABLE: rt_set_variable(h->var, &h->var_len, var); break;
	case COL_INTERVAL: h->interval_ms = (uint32_t)*var->val.integer; break;
	case COL_REQUESTED: h->requested = (uint32_t)*var->val.integer; break;
	case COL_OWNER: rt_set_owner(h->owner, var); break;
	}
}

static bool ready(const struct rt_row *r)
{
	return ((const struct history_row *)r)->var_len > 0;
}

static bool same_variable(const struct history_row *a, const struct history_row *b)
{
	return snmp_oid_compare(a->var, a->var_len, b->var, b->var_len) == 0;
}

static unsigned inconsistent(const struct rt_row *r, const struct rt_row *o)
{
	const struct history_row *h = (const struct history_row *)r;
	const struct history_row *old = (const struct history_row *)o;
	bool activating = r->status == ROW_ACTIVE && (o == NULL || o->status != ROW_ACTIVE);

	return rt_variable_ok(h->var, h->var_len, old ? old->var : NULL, old ? old->var_len : 0,
			      activating) ? 0 : COL_VARIABLE;
}

static bool same_sampling(const struct history_row *a, const struct history_row *b)
{
	return same_variable(a, b) && a->interval_ms == b->interval_ms &&
	       a->requested == b->requested;
}

static bool same(const struct rt_row *a, const struct rt_row *b)
{
	return same_sampling((const struct history_row *)a, (const struct history_row *)b) &&
	       strcmp(((const struct history_row *)a)->owner,
		      ((const struct history_row *)b)->owner) == 0;
}

static uint32_t sample_period(uint32_t interval_ms)
{
	uint32_t tenth = interval_ms / 10, floor = interval_ms < 100 ? interval_ms : 100;

	return tenth > floor ? tenth : floor;
}

static void free_runtime(void *p)
{
	struct history_runtime *rt = p;

	buckets_granted -= rt->granted;
	ring_free(&rt->ring);
	free(rt);
	generation++;
}

/* Buckets come out of a shared budget, as RMON's BucketsGranted does. */
static int prepare(struct rt_row *r, const struct rt_row *o)
{
	struct history_row *h = (struct history_row *)r;
	struct history_runtime *rt;
	uint32_t grant;

	if (r->status != ROW_ACTIVE) {
		r->runtime = NULL;
		return 0;
	}
	if (o != NULL && o->status == ROW_ACTIVE && o->runtime != NULL &&
	    same_sampling(h, (const struct history_row *)o)) {
		r->runtime = o->runtime;
		return 0;
	}
	grant = BUCKET_BUDGET - buckets_granted;
	if (grant > h->requested)
		grant = h->requested;
	rt = calloc(1, sizeof(*rt));
	if (grant == 0 || rt == NULL) {
		free(rt);
		return -1;
	}
	/* Samples fall on multiples of the period (rows with the same period
	 * share wake-ups); the first bucket starts with the first sample, so
	 * every bucket gets its full count. One slot more than granted holds
	 * the bucket still filling. */
	rt->period_ms = sample_period(h->interval_ms);
	rt->next_due = watch_next_due(watch_now_ms(), rt->period_ms);
	if (ring_init(&rt->ring, h->interval_ms, grant + 1, rt->next_due) != 0) {
		free(rt);
		return -1;
	}
	rt->granted = grant;
	buckets_granted += grant;
	r->runtime = rt;
	generation++;
	return 0;
}

static int get(const struct rt_row *r, unsigned col, const void *src, struct mib_value *v)
{
	(void)src;
	const struct history_row *h = (const struct history_row *)r;
	const struct history_runtime *rt = r->runtime;

	switch (col) {
	case COL_VARIABLE:
		return rt_get_oid(v, h->var, h->var_len);
	case COL_INTERVAL: return mib_u64(v, ASN_UNSIGNED, h->interval_ms);
	case COL_REQUESTED: return mib_u64(v, ASN_UNSIGNED, h->requested);
	case COL_GRANTED: return mib_u64(v, ASN_GAUGE, rt ? rt->granted : 0);
	case COL_OWNER: return mib_string(v, h->owner);
	default: return MIB_ABSENT;
	}
}

static void save(const struct rt_row *r, char *buf, size_t len)
{
	const struct history_row *h = (const struct history_row *)r;
	char *p;
	int n;

	if (len < 1800)
		return;
	p = read_config_save_objid(buf, (oid *)h->var, h->var_len);
	n = snprintf(p, len - (size_t)(p - buf), " %u %u ", h->interval_ms, h->requested);
	read_config_save_octet_string(p + n, (u_char *)h->owner, strlen(h->owner));
}

/* A whole number in lo..hi (common/number.c). */
static int parse_number(const char *s, uint32_t lo, uint32_t hi, uint32_t *out)
{
	uint32_t v;

	if (num_parse_u32(s, hi, &v) != NUM_OK || v < lo)
		return -1;
	*out = v;
	return 0;
}

static int restore(struct rt_row *r, char *line)
{
	struct history_row *h = (struct history_row *)r;
	oid *var = h->var;
	size_t len = MAX_OID_LEN;
	char word[16];
	uint32_t iv = 0, req = 0;

	line = read_config_read_objid(line, &var, &len);
	h->var_len = len;
	if (line == NULL)
		return -1;
	line = copy_nword(line, word, sizeof(word));
	if (parse_number(word, RING_INTERVAL_MIN_MS, RING_INTERVAL_MAX_MS, &iv) != 0 ||
	    line == NULL)
		return -1;
	line = copy_nword(line, word, sizeof(word));
	if (parse_number(word, 1, BUCKETS_MAX, &req) != 0)
		return -1;
	restore_owner(line, h->owner);
	if (h->var_len < 2)
		return -1;
	h->interval_ms = iv;
	h->requested = req;
	return 0;
}

/* ------------------------------------------------------------ sampling */

static uint64_t tick(uint64_t now)
{
	uint64_t next = WATCH_NEVER, v;

	for (size_t i = 0; i < table.n; i++) {
		struct history_row *h = (struct history_row *)table.rows[i];
		struct history_runtime *rt = h->hdr.runtime;

		if (rt == NULL)
			continue;
		if (rt->next_due <= now) {
			if (mib_read_number_every(h->var, h->var_len, &v, rt->period_ms) == MIB_READ_OK) {
				ring_add(&rt->ring, now, v);
				generation++;
			}
			rt->next_due = watch_next_due(now, rt->period_ms);
		}
		if (rt->next_due < next)
			next = rt->next_due;
	}
	return next;
}

/* ------------------------------------------------------------ data table */

/* Where each active row's closed buckets start in the flattened table;
 * rebuilt when a sample or a row change may have moved them. */
struct flat_entry {
	size_t first;
	const struct history_row *row;
	uint32_t skip;             /* ring buckets before the first shown */
	uint32_t shown;
};

static struct flat_entry *flat;
static size_t flat_n, flat_cap, flat_total;
static uint64_t flat_generation = UINT64_MAX;

/* The newest granted buckets whose interval has ended. */
static struct flat_entry shown_buckets(const struct history_runtime *rt, uint64_t now)
{
	const struct ring *r = &rt->ring;
	const struct ring_bucket *b = ring_at(r, r->used ? r->used - 1 : 0);
	uint32_t closed = r->used;
	struct flat_entry e = { 0 };

	if (b != NULL && now < b->start_ms + r->interval_ms)
		closed--;
	e.shown = closed < rt->granted ? closed : rt->granted;
	e.skip = closed - e.shown;
	return e;
}

static void flatten(void)
{
	uint64_t now = watch_now_ms();

	if (flat_generation == generation)
		return;
	if (flat_cap < table.n) {
		struct flat_entry *f = realloc(flat, table.n * sizeof(*f));

		if (f == NULL) {
			flat_n = flat_total = 0; /* nothing rather than stale rows */
			return;
		}
		flat = f;
		flat_cap = table.n;
	}
	flat_n = flat_total = 0;
	for (size_t i = 0; i < table.n; i++) {
		const struct history_row *h = (const struct history_row *)table.rows[i];
		const struct history_runtime *rt = h->hdr.runtime;

		if (rt == NULL)
			continue;
		flat[flat_n] = shown_buckets(rt, now);
		flat[flat_n].first = flat_total;
		flat[flat_n].row = h;
		flat_total += flat[flat_n++].shown;
	}
	flat_generation = generation;
}

static size_t data_rows(void *view)
{
	(void)view;
	flatten();
	return flat_total;
}

static bool flat_starts_by(const void *ctx, size_t i)
{
	return flat[i].first <= *(const size_t *)ctx;
}

/* The entry holding flattened row k, and the bucket's position in it. */
static const struct ring_bucket *bucket_at(size_t k, const struct history_row **row)
{
	/* The last entry starting at or before k (the first starts at 0):
	 * entries without closed buckets start where the next one does, so it
	 * is the one holding k. */
	size_t lo = cm_lower_bound(1, flat_n, flat_starts_by, &k) - 1;

	*row = flat[lo].row;
	return ring_at(&((const struct history_runtime *)flat[lo].row->hdr.runtime)->ring,
		       flat[lo].skip + (uint32_t)(k - flat[lo].first));
}

static void data_index(void *view, size_t k, oid *out)
{
	const struct history_row *h;
	const struct ring_bucket *b = bucket_at(k, &h);

	(void)view;
	out[0] = h->hdr.index;
	out[1] = (oid)(uint32_t)b->index;
}

static int data_get(void *view, size_t k, unsigned col, struct mib_value *v)
{
	const struct history_row *h;
	const struct ring_bucket *b = bucket_at(k, &h);

	(void)view;
	switch (col) {
	case HCOL_START: return mib_u64(v, ASN_TIMETICKS, watch_timestamp(b->start_ms));
	case HCOL_SAMPLES: return mib_u64(v, ASN_UNSIGNED, b->samples);
	case HCOL_MIN: return mib_u64(v, ASN_COUNTER64, b->min);
	case HCOL_MAX: return mib_u64(v, ASN_COUNTER64, b->max);
	case HCOL_MEAN: return mib_u64(v, ASN_COUNTER64, ring_mean(b));
	case HCOL_LAST: return mib_u64(v, ASN_COUNTER64, b->last);
	default: return MIB_ABSENT;
	}
}

static const struct mib_table data_table = {
	.min_col = HCOL_START, .max_col = HCOL_LAST, .index_len = 2,
	.rows = data_rows, .row_index = data_index, .get = data_get,
};

/* ------------------------------------------------------------ config file */

static const char *conf_fill(struct rt_row *row, char *line)
{
	struct history_row *h = (struct history_row *)row;
	char *save = NULL, *name = strtok_r(line, " \t", &save);
	char *var = strtok_r(NULL, " \t", &save);
	char *iv = strtok_r(NULL, " \t", &save);
	char *buckets = strtok_r(NULL, " \t", &save);
	const char *why;

	if (name == NULL || var == NULL || iv == NULL || buckets == NULL ||
	    strtok_r(NULL, " \t", &save) != NULL)
		return "expected NAME OBJECT-INSTANCE INTERVAL-MS BUCKETS";
	if (strlen(name) > RT_OWNER_MAX)
		return "NAME is longer than 127 characters";
	strcpy(h->owner, name);
	why = mib_parse_instance(var, h->var, &h->var_len);
	if (why != NULL)
		return why;
	if (parse_number(iv, RING_INTERVAL_MIN_MS, RING_INTERVAL_MAX_MS, &h->interval_ms) != 0)
		return "INTERVAL-MS is not a number of milliseconds in 10..3600000";
	if (parse_number(buckets, 1, BUCKETS_MAX, &h->requested) != 0)
		return "BUCKETS is not a number in 1..65535";
	return NULL;
}

/* ------------------------------------------------------------ the group */

static void changed(void)
{
	generation++;
	watch_reschedule();
}

static const struct rt_ops ops = {
	.name = "clusterMonHistoryCtlTable",
	.row_size = sizeof(struct history_row),
	.min_col = COL_VARIABLE, .max_col = COL_STATUS,
	.status_col = COL_STATUS, .storage_col = COL_STORAGE,
	.defaults = defaults, .check = check, .set = set, .ready = ready,
	.inconsistent = inconsistent, .same = same, .prepare = prepare,
	.free_runtime = free_runtime, .get = get, .save = save, .restore = restore,
	.changed = changed,
	.directive = "history", .conf_fill = conf_fill,
	.directive_usage = "NAME OBJECT-INSTANCE INTERVAL-MS BUCKETS",
};

static struct rt_table table = {
	.ops = &ops, .arc = CM_ARC_clusterMonHistoryCtlTable, .store_token = "clusterMonHistoryRow",
};

/* The rows alone: nothing of a source's is read. */
static const struct rt_view rows_only = { &table, NULL };

static void *acquire(void)
{
	return (void *)&rows_only;
}

/* Only the control table is writable; a request touching the data table
 * fails whole in its first phase. */
static void set_request(netsnmp_agent_request_info *reqinfo, netsnmp_request_info *requests)
{
	const size_t base = OID_LENGTH(history_oid);

	if (reqinfo->mode == MODE_SET_RESERVE1) {
		for (netsnmp_request_info *r = requests; r != NULL; r = r->next) {
			const netsnmp_variable_list *vb = r->requestvb;
			bool data = vb->name_length > base + 2 && vb->name[base] == 2 &&
				    vb->name[base + 1] == 1 && vb->name[base + 2] >= HCOL_START &&
				    vb->name[base + 2] <= HCOL_LAST;

			if (vb->name_length <= base || vb->name[base] != 1) {
				netsnmp_set_request_error(reqinfo, r, data ? SNMP_ERR_NOTWRITABLE :
									     SNMP_ERR_NOCREATION);
				return;
			}
		}
	}
	rt_set_request(&table, reqinfo, requests, base);
}

static struct mib_object objects[] = {
	{ .arc = CM_ARC_clusterMonHistoryCtlTable, .table = &table.view },
	{ .arc = CM_ARC_clusterMonHistoryTable, .table = &data_table },
};

static const struct mib_group group = {
	.name = "clusterMonHistory",
	.base = history_oid,
	.base_len = OID_LENGTH(history_oid),
	.objects = objects,
	.nobjects = 2,
	.acquire = acquire,
	.set_request = set_request,
};

int mib_history_register(void)
{
	rt_init(&table);
	watch_register(tick);
	return mib_group_register(&group);
}

void mib_history_clear(void)
{
	rt_clear(&table);
	free(flat);
	flat = NULL;
	flat_n = flat_cap = flat_total = 0;
}
