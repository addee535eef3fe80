/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * disttable.c - clusterMonDistTable (read-create, on the rowtable engine):
 * distributions an operator creates with a SET, served from the probes
 * source's thread (sources/dists.h), which talks to the helper.
 *
 * As for probes, the SET decides only what the SNMP thread can alone: a
 * spec that does not parse is refused (wrongValue, the parser's reason in
 * the log and, for a row that exists, in LastError); whether the kernel
 * takes it comes back as OperStatus and LastError, since loading a program
 * may take longer than a SET may hold the SNMP thread.
 */
#include "disttable.h"

#include "engine/rowtable.h"
#include "mib.h"
#include "specfilter.h"

#include <stdlib.h>
#include <string.h>

#include "../sources/dists.h"
#include "../sources/source_cmd.h"
#include "common/number.h"
#include "common/distspec.h"

enum {
	COL_SPEC = CM_ARC_clusterMonDistSpec,
	COL_PID = CM_ARC_clusterMonDistFilterPid,
	COL_CPU = CM_ARC_clusterMonDistFilterCpu,
	COL_EVERY = CM_ARC_clusterMonDistSampleEvery,
	COL_CGROUP = CM_ARC_clusterMonDistFilterCgroup,
	COL_INFLIGHT = CM_ARC_clusterMonDistMaxInflight,
	COL_SOURCE = CM_ARC_clusterMonDistSourceIndex,
	COL_HITS = CM_ARC_clusterMonDistHits,
	COL_MISSES = CM_ARC_clusterMonDistMisses,
	COL_RECENT = CM_ARC_clusterMonDistRecentP99,
	COL_OPER = CM_ARC_clusterMonDistOperStatus,
	COL_ERROR = CM_ARC_clusterMonDistLastError,
	COL_STORAGE = CM_ARC_clusterMonDistStorageType,
	COL_STATUS = CM_ARC_clusterMonDistRowStatus,
};

struct dist_row {
	struct rt_row hdr;
	struct sf_fields sf;
	char cgroup[DIST_CGROUP_MAX + 1];
	uint32_t inflight;
};

static struct rt_table table;

/* The parser's reason for the last spec refused, per row (wrongValue). */
#define REFUSALS 16
static struct {
	uint32_t index;
	char why[DIST_ERROR_MAX];
} refusals[REFUSALS];
static unsigned next_refusal;

/* ------------------------------------------------------------ columns */

static void defaults(struct rt_row *r)
{
	struct dist_row *d = (struct dist_row *)r;

	sf_defaults(&d->sf);
	d->cgroup[0] = '\0';
	d->inflight = DIST_DEFAULT_INFLIGHT;
}

/* A distribution's spec is no probe's: it is judged here and parsed when
 * the row goes to the source (want_of); the shared columns' parsed spec
 * stays empty. */
static int spec_ok(const char *text, struct probe_spec *unused, char *why, size_t whylen)
{
	struct dist_spec s;

	memset(unused, 0, sizeof(*unused));
	return dist_spec_parse(text, &s, why, whylen);
}

static const struct sf_columns sf_cols = {
	COL_SPEC, COL_PID, COL_CPU, COL_EVERY, "clusterMonDistSpec", spec_ok,
};

static int check_cgroup(const netsnmp_variable_list *var)
{
	char path[DIST_CGROUP_MAX + 1];

	if (var->type != ASN_OCTET_STR)
		return SNMP_ERR_WRONGTYPE;
	if (var->val_len > DIST_CGROUP_MAX)
		return SNMP_ERR_WRONGLENGTH;
	memcpy(path, var->val.string, var->val_len);
	path[var->val_len] = '\0';
	return strlen(path) == var->val_len && dist_cgroup_ok(path) ? SNMP_ERR_NOERROR :
								       SNMP_ERR_WRONGVALUE;
}

static int check(unsigned col, const netsnmp_variable_list *var)
{
	if (sf_owns(&sf_cols, col))
		return sf_check(&sf_cols, col, var);
	switch (col) {
	case COL_CGROUP: return check_cgroup(var);
	case COL_INFLIGHT: return rt_check_unsigned(var, 1, DIST_MAX_INFLIGHT);
	default: return SNMP_ERR_NOTWRITABLE;
	}
}

static void set(struct rt_row *r, unsigned col, const netsnmp_variable_list *var)
{
	struct dist_row *d = (struct dist_row *)r;

	if (col == COL_CGROUP) {
		memcpy(d->cgroup, var->val.string, var->val_len);
		d->cgroup[var->val_len] = '\0';
	} else if (col == COL_INFLIGHT) {
		d->inflight = (uint32_t)*var->val.integer;
	} else {
		sf_set(&sf_cols, &d->sf, col, var);
	}
	/* A spec that parses replaces the reason the last one was refused. */
	for (unsigned i = 0; col == COL_SPEC && i < REFUSALS; i++)
		if (refusals[i].index == r->index)
			refusals[i].index = 0;
}

static bool ready(const struct rt_row *r)
{
	return ((const struct dist_row *)r)->sf.spec[0] != '\0';
}

static bool same(const struct rt_row *ra, const struct rt_row *rb)
{
	const struct dist_row *a = (const struct dist_row *)ra;
	const struct dist_row *b = (const struct dist_row *)rb;

	return sf_same(&a->sf, &b->sf) && strcmp(a->cgroup, b->cgroup) == 0 &&
	       a->inflight == b->inflight;
}

/* An active row cannot change under the helper. */
static unsigned inconsistent(const struct rt_row *r, const struct rt_row *o)
{
	if (r->status == ROW_ACTIVE && o != NULL && o->status == ROW_ACTIVE && !same(r, o))
		return COL_SPEC;
	return 0;
}

/* No runtime, but the row limit: a row beyond it is resourceUnavailable. */
static int prepare(struct rt_row *r, const struct rt_row *o)
{
	r->runtime = NULL;
	return o == NULL && table.n >= DIST_MAX_ROWS ? -1 : 0;
}

static const struct dist_reading *reading_of(const struct dists_view *dv, uint32_t id)
{
	for (size_t i = 0; dv != NULL && i < dv->n; i++)
		if (dv->rows[i].id == id)
			return &dv->rows[i];
	return NULL;
}

static const char *refusal_of(uint32_t index)
{
	for (unsigned i = 0; i < REFUSALS; i++)
		if (refusals[i].index == index)
			return refusals[i].why;
	return "";
}

/* A row that is not active is down, unless its last activation failed. */
static int oper_of(const struct rt_row *r, const struct dist_reading *rd)
{
	if (rd == NULL)
		return DOPER_DOWN;
	if (r->status == ROW_ACTIVE || rd->oper == DOPER_FAILED)
		return rd->oper;
	return DOPER_DOWN;
}

static int get_state(const struct rt_row *r, unsigned col, const struct dists_view *dv,
		     struct mib_value *v)
{
	const struct dist_reading *rd = reading_of(dv, r->index);
	const char *why = refusal_of(r->index);

	switch (col) {
	case COL_SOURCE: return mib_u64(v, ASN_UNSIGNED, rd ? rd->source : 0);
	case COL_HITS: return mib_u64(v, ASN_COUNTER64, rd ? rd->hits : 0);
	case COL_MISSES: return mib_u64(v, ASN_COUNTER64, rd ? rd->misses : 0);
	case COL_RECENT: return mib_u64(v, ASN_COUNTER64, rd ? rd->recent_p99 : 0);
	case COL_OPER: return mib_u64(v, ASN_INTEGER, (uint64_t)oper_of(r, rd));
	case COL_ERROR: return mib_string(v, rd && rd->error[0] ? rd->error : why);
	default: return MIB_ABSENT;
	}
}

static int get(const struct rt_row *r, unsigned col, const void *src, struct mib_value *v)
{
	const struct dist_row *d = (const struct dist_row *)r;

	if (sf_owns(&sf_cols, col))
		return sf_get(&sf_cols, &d->sf, col, v);
	switch (col) {
	case COL_CGROUP: return mib_string(v, d->cgroup);
	case COL_INFLIGHT: return mib_u64(v, ASN_UNSIGNED, d->inflight);
	default: return get_state(r, col, src, v);
	}
}

/* ------------------------------------------------------------ persistence */

/* "PID CPU EVERY INFLIGHT CGROUP SPEC...": the spec has blanks, so it goes
 * last; an empty cgroup is written "-". */
static void save(const struct rt_row *r, char *buf, size_t len)
{
	const struct dist_row *d = (const struct dist_row *)r;

	snprintf(buf, len, "%d %d %u %u %s %s", (int)d->sf.filter.tgid, (int)d->sf.filter.cpu,
		 d->sf.filter.every, d->inflight, d->cgroup[0] ? d->cgroup : "-", d->sf.spec);
}

/* The same checks as a SET of each column. */
static int restore(struct rt_row *r, char *line)
{
	struct dist_row *d = (struct dist_row *)r;
	const char *at = line;
	int64_t pid, cpu, every, inflight;
	char why[DIST_ERROR_MAX], cgroup[DIST_CGROUP_MAX + 1];
	size_t n;

	if (num_take_i64(&at, -1, INT32_MAX, &pid) != NUM_OK ||
	    num_take_i64(&at, -1, FILTER_MAX_CPU, &cpu) != NUM_OK ||
	    num_take_i64(&at, 1, FILTER_MAX_EVERY, &every) != NUM_OK ||
	    num_take_i64(&at, 1, DIST_MAX_INFLIGHT, &inflight) != NUM_OK)
		return -1;
	n = strcspn(at, " ");
	if (n == 0 || n > DIST_CGROUP_MAX || at[n] != ' ')
		return -1;
	memcpy(cgroup, at, n);
	cgroup[n] = '\0';
	if (strcmp(cgroup, "-") == 0)
		cgroup[0] = '\0';
	at += n + 1;
	if (!dist_cgroup_ok(cgroup) || sf_set_spec(&sf_cols, &d->sf, at, why, sizeof(why)) != 0)
		return -1;
	d->sf.filter.tgid = (int32_t)pid;
	d->sf.filter.cpu = (int32_t)cpu;
	d->sf.filter.every = (uint32_t)every;
	d->inflight = (uint32_t)inflight;
	strcpy(d->cgroup, cgroup);
	return 0;
}

/* ------------------------------------------------------------ config file */

/* distribution SPEC [pid=N] [cpu=N] [every=N] [cgroup=PATH] [inflight=N] */
static const char *conf_fill(struct rt_row *row, char *line)
{
	static char why[DIST_ERROR_MAX];
	struct dist_row *d = (struct dist_row *)row;
	struct dist_spec s;
	struct dist_filter f;

	if (dist_line_parse(line, &s, &f, why, sizeof(why)) != 0)
		return why;
	dist_spec_format(&s, d->sf.spec, sizeof(d->sf.spec));
	d->sf.filter = f.f;
	snprintf(d->cgroup, sizeof(d->cgroup), "%s", f.cgroup);
	d->inflight = f.inflight;
	return NULL;
}

/* ------------------------------------------------------------ to the source */

static void want_of(const struct dist_row *d, struct dist_want *w)
{
	struct dist_filter f = { .f = d->sf.filter, .inflight = d->inflight };
	struct dist_spec s;
	char why[DIST_ERROR_MAX];

	memset(w, 0, sizeof(*w));
	w->id = d->hdr.index;
	w->active = d->hdr.status == ROW_ACTIVE;
	snprintf(f.cgroup, sizeof(f.cgroup), "%s", d->cgroup);
	if (dist_spec_parse(d->sf.spec, &s, why, sizeof(why)) != 0)
		return;
	w->spec = s;
	w->filter = f;
	snprintf(w->unit, sizeof(w->unit), "%.16s", s.kind == DIST_LATENCY ? "ns" : s.field);
}

static void fill(const struct rt_row *row, union source_cmd_row *out)
{
	want_of((const struct dist_row *)row, &out->dist);
}

/* Every row, queued for the probes source's thread: this one never waits. */
static void changed(void)
{
	rt_post_rows(&table, SOURCE_PROBES, SOURCE_CMD_DIST_ROWS, fill, "distribution rows");
}

/* ------------------------------------------------------------ the table */

static const struct rt_ops ops = {
	.name = "clusterMonDistTable",
	.row_size = sizeof(struct dist_row),
	.min_col = COL_SPEC, .max_col = COL_STATUS,
	.status_col = COL_STATUS, .storage_col = COL_STORAGE,
	.defaults = defaults, .check = check, .set = set, .ready = ready,
	.inconsistent = inconsistent, .same = same, .prepare = prepare,
	.free_runtime = free, .get = get, .save = save, .restore = restore,
	.changed = changed,
	.directive = "distribution", .conf_fill = conf_fill,
	.directive_usage = "SPEC [pid=N] [cpu=N] [every=N] [cgroup=PATH] [inflight=N]",
};

static struct rt_table table = {
	.ops = &ops, .arc = CM_ARC_clusterMonDistTable, .store_token = "clusterMonDistRow",
};

/* The group's view is dist.c's, which begins with the row table's. */
static size_t view_rows(void *view)
{
	return table.view.rows(view);
}

static void view_index(void *view, size_t row, oid *out)
{
	table.view.row_index(view, row, out);
}

static int view_get(void *view, size_t row, unsigned col, struct mib_value *v)
{
	return table.view.get(view, row, col, v);
}

const struct mib_table disttable_view = {
	.min_col = COL_SPEC, .max_col = COL_STATUS, .index_len = 1,
	.rows = view_rows, .row_index = view_index, .get = view_get,
	.read_create = true,
};

int disttable_max_rows(void *view, struct mib_value *v)
{
	(void)view;
	return mib_u64(v, ASN_UNSIGNED, DIST_MAX_ROWS);
}

int disttable_max_inflight(void *view, struct mib_value *v)
{
	(void)view;
	return mib_u64(v, ASN_UNSIGNED, DIST_MAX_INFLIGHT);
}

void disttable_acquire(struct rt_view *v)
{
	*v = (struct rt_view){ .t = &table, .src = dists_view_take() };
}

void disttable_release(struct rt_view *v)
{
	dists_view_free((struct dists_view *)v->src);
	v->src = NULL;
}

/* A refused spec's reason for LastError of the row it was meant for. */
static void note_refusals(netsnmp_request_info *requests, size_t base_len)
{
	char text[SPEC_MAX_TEXT + 1], why[DIST_ERROR_MAX];
	struct dist_spec s;

	for (netsnmp_request_info *r = requests; r != NULL; r = r->next) {
		const netsnmp_variable_list *var = r->requestvb;
		const oid *sfx = var->name + base_len;

		if (var->name_length != base_len + 4 || sfx[0] != CM_ARC_clusterMonDistTable ||
		    sfx[1] != 1 || sfx[2] != COL_SPEC || sfx[3] < 1 || sfx[3] > RT_INDEX_MAX ||
		    var->type != ASN_OCTET_STR || var->val_len > SPEC_MAX_TEXT ||
		    rt_find(&table, (uint32_t)sfx[3]) == NULL)
			continue;
		memcpy(text, var->val.string, var->val_len);
		text[var->val_len] = '\0';
		if (dist_spec_parse(text, &s, why, sizeof(why)) == 0)
			continue;
		refusals[next_refusal].index = (uint32_t)sfx[3];
		snprintf(refusals[next_refusal].why, sizeof(refusals[0].why), "%s", why);
		next_refusal = (next_refusal + 1) % REFUSALS;
	}
}

void disttable_set_request(netsnmp_agent_request_info *reqinfo,
			   netsnmp_request_info *requests, size_t base_len)
{
	if (reqinfo->mode == MODE_SET_RESERVE1)
		note_refusals(requests, base_len);
	rt_set_request(&table, reqinfo, requests, base_len);
}

void disttable_init(void)
{
	rt_init(&table);
}

void disttable_clear(void)
{
	rt_clear(&table);
}
