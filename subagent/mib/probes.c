/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * probes.c - clusterMonProbes: clusterMonProbeTable (read-create, on the
 * rowtable engine) and clusterMonProbeCpuTable, served from the probes
 * source; clusterMonProbeLoss and clusterMonHelperStatusChange.
 *
 * The SET answers what the SNMP thread can decide alone: a malformed spec
 * (wrongValue), a change to an active row (inconsistentValue). Whether the
 * kernel takes the probe is the source's to find out, on its own thread:
 * attaching means a BPF program loaded and verified by the helper, tens of
 * milliseconds each and seconds when the machine is busy, more than a SET
 * may hold the SNMP thread (every other request waits with it, and the
 * master gives up after its 1 s agentXTimeout). So a row goes active at
 * once, the source is told (a queued command), and the outcome comes back
 * as clusterMonProbeOperStatus: up(1), or failed(3)/unsupported(4) with
 * the reason in clusterMonProbeLastError. Rows from `probe` lines and saved
 * rows go the same way.
 */
#include "engine/rowtable.h"
#include "mib.h"
#include "specfilter.h"
#include "engine/watch.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../sources/probes.h"
#include "../sources/source_cmd.h"
#include "common/spec.h"

static const oid probes_oid[] = { CM_OID_clusterMonProbes };
static const oid entry_oid[] = { CM_OID_clusterMonProbeEntry };
static const oid helper_status_oid[] = { CM_OID_clusterMonHelperStatus, 0 };
static const oid loss_trap_oid[] = { CM_OID_clusterMonProbeLoss };
static const oid helper_trap_oid[] = { CM_OID_clusterMonHelperStatusChange };

enum {
	COL_SPEC = CM_ARC_clusterMonProbeSpec,
	COL_PID = CM_ARC_clusterMonProbeFilterPid,
	COL_CPU = CM_ARC_clusterMonProbeFilterCpu,
	COL_EVERY = CM_ARC_clusterMonProbeSampleEvery,
	COL_HITS = CM_ARC_clusterMonProbeHits,
	COL_SAMPLED = CM_ARC_clusterMonProbeSampled,
	COL_LOST = CM_ARC_clusterMonProbeLost,
	COL_OPER = CM_ARC_clusterMonProbeOperStatus,
	COL_ERROR = CM_ARC_clusterMonProbeLastError,
	COL_STORAGE = CM_ARC_clusterMonProbeStorageType,
	COL_STATUS = CM_ARC_clusterMonProbeRowStatus
};
enum { CPU_COL_HITS = CM_ARC_clusterMonProbeCpuHits };

struct probe_row {
	struct rt_row hdr;
	struct sf_fields sf;
};

static struct rt_table table;

/* ------------------------------------------------------------ columns */

static void defaults(struct rt_row *r)
{
	sf_defaults(&((struct probe_row *)r)->sf);
}

static const struct sf_columns sf_cols = {
	COL_SPEC, COL_PID, COL_CPU, COL_EVERY, "clusterMonProbeSpec", spec_parse,
};

static int check(unsigned col, const netsnmp_variable_list *var)
{
	return sf_check(&sf_cols, col, var);
}

static void set(struct rt_row *r, unsigned col, const netsnmp_variable_list *var)
{
	sf_set(&sf_cols, &((struct probe_row *)r)->sf, col, var);
}

static bool ready(const struct rt_row *r)
{
	return ((const struct probe_row *)r)->sf.spec[0] != '\0';
}

static bool same(const struct rt_row *ra, const struct rt_row *rb)
{
	return sf_same(&((const struct probe_row *)ra)->sf, &((const struct probe_row *)rb)->sf);
}

/* What the source needs of a row: the canonical spec and filters. */
static void want_of(const struct probe_row *p, struct probe_want *w)
{
	memset(w, 0, sizeof(*w));
	w->id = p->hdr.index;
	w->active = p->hdr.status == ROW_ACTIVE;
	w->spec = p->sf.parsed;
	w->filter = p->sf.filter;
	w->latency = spec_is_latency(&w->spec);
}

/* An active probe cannot be changed; attaching is the source's (above). */
static unsigned inconsistent(const struct rt_row *r, const struct rt_row *o)
{
	if (r->status != ROW_ACTIVE || o == NULL || o->status != ROW_ACTIVE)
		return 0;
	return same(r, o) ? 0 : COL_SPEC;
}

/* The runtime: how much loss the last clusterMonProbeLoss reported. */
struct loss_seen {
	uint64_t lost;
};

static int prepare(struct rt_row *r, const struct rt_row *o)
{
	if (o != NULL && o->runtime != NULL && same(r, o)) {
		r->runtime = o->runtime;
		return 0;
	}
	r->runtime = calloc(1, sizeof(struct loss_seen));
	return r->runtime != NULL ? 0 : -1;
}

static const struct probe_reading *reading_of(const struct probes_view *pv, uint32_t id)
{
	for (size_t i = 0; pv != NULL && i < pv->n; i++)
		if (pv->rows[i].id == id)
			return &pv->rows[i];
	return NULL;
}

/* The source's readings in the request's view (acquire). */
static const struct probes_view *readings(void *view)
{
	return view != NULL ? ((const struct rt_view *)view)->src : NULL;
}

/* A row that is not active is down, unless its last activation failed:
 * then it says why not (failed, or unsupported by this kernel). */
static int oper_of(const struct rt_row *r, const struct probe_reading *rd)
{
	if (rd == NULL)
		return OPER_DOWN;
	if (r->status == ROW_ACTIVE || rd->oper == OPER_FAILED || rd->oper == OPER_UNSUPPORTED)
		return rd->oper;
	return OPER_DOWN;
}

static int get_counter(const struct probe_reading *rd, unsigned col, struct mib_value *v)
{
	uint64_t n = 0;

	if (rd != NULL)
		n = col == COL_HITS ? rd->hits : col == COL_SAMPLED ? rd->sampled : rd->lost;
	return mib_u64(v, ASN_COUNTER64, n);
}

static int get(const struct rt_row *r, unsigned col, const void *src, struct mib_value *v)
{
	const struct probe_row *p = (const struct probe_row *)r;
	const struct probe_reading *rd = reading_of(src, r->index);

	switch (col) {
	case COL_SPEC:
	case COL_PID:
	case COL_CPU:
	case COL_EVERY: return sf_get(&sf_cols, &p->sf, col, v);
	case COL_HITS:
	case COL_SAMPLED:
	case COL_LOST: return get_counter(rd, col, v);
	case COL_OPER:
		return mib_u64(v, ASN_INTEGER, oper_of(r, rd));
	case COL_ERROR: return mib_string(v, rd ? rd->error : "");
	default: return MIB_ABSENT;
	}
}

/* ------------------------------------------------------------ persistence */

static void save(const struct rt_row *r, char *buf, size_t len)
{
	const struct probe_row *p = (const struct probe_row *)r;

	spec_filter_save(p->sf.spec, &p->sf.filter, buf, len);
}

static int restore(struct rt_row *r, char *line)
{
	struct probe_row *p = (struct probe_row *)r;
	char spec[SPEC_MAX_TEXT + 1], why[256];
	const char *at = line;
	struct probe_filter f;

	if (spec_filter_restore(&at, spec, &f) != 0 || *at != '\0' ||
	    sf_set_spec(&sf_cols, &p->sf, spec, why, sizeof(why)) != 0)
		return -1;
	p->sf.filter = f;
	return 0;
}

/* ------------------------------------------------------------ config file */

/* probe SPEC [pid=N] [cpu=N] [every=N] */
static const char *conf_fill(struct rt_row *row, char *line)
{
	static char why[256];
	struct probe_row *p = (struct probe_row *)row;
	char *save = NULL, *spec = strtok_r(line, " \t", &save);
	if (spec == NULL) {
		snprintf(why, sizeof(why), "empty probe spec");
		return why;
	}
	if (sf_set_spec(&sf_cols, &p->sf, spec, why, sizeof(why)) != 0)
		return why;
	for (char *w = strtok_r(NULL, " \t", &save); w; w = strtok_r(NULL, " \t", &save))
		if (filter_parse_word(w, &p->sf.filter, why, sizeof(why)) != 0)
			return why;
	return NULL;
}

/* ------------------------------------------------------------ to the source */

static void fill(const struct rt_row *row, union source_cmd_row *out)
{
	want_of((const struct probe_row *)row, &out->probe);
}

/* Every row, queued for the source's thread: this one never waits. */
static void changed(void)
{
	rt_post_rows(&table, SOURCE_PROBES, SOURCE_CMD_PROBE_ROWS, fill, "probe rows");
}

/* ------------------------------------------------------------ notifications */

static void add_column(netsnmp_variable_list **vars, unsigned col, uint32_t index,
		       u_char type, const void *value, size_t len)
{
	mib_add_column(vars, entry_oid, OID_LENGTH(entry_oid), col, index, type, value, len);
}

static void send_loss(const struct probe_row *p, uint64_t lost)
{
	netsnmp_variable_list *vars = mib_notification(loss_trap_oid, OID_LENGTH(loss_trap_oid));
	struct counter64 c64 = { .high = (u_long)(lost >> 32), .low = (u_long)(lost & 0xffffffffu) };

	add_column(&vars, COL_SPEC, p->hdr.index, ASN_OCTET_STR, p->sf.spec, strlen(p->sf.spec));
	add_column(&vars, COL_LOST, p->hdr.index, ASN_COUNTER64, &c64, sizeof(c64));
	send_v2trap(vars);
	snmp_free_varbind(vars);
}

static void send_helper_status(int state)
{
	netsnmp_variable_list *vars = mib_notification(helper_trap_oid,
						       OID_LENGTH(helper_trap_oid));
	long value = state;

	snmp_varlist_add_variable(&vars, helper_status_oid, OID_LENGTH(helper_status_oid),
				  ASN_INTEGER, &value, sizeof(value));
	send_v2trap(vars);
	snmp_free_varbind(vars);
}

#define CHECK_MS 500

/* Every half second: the helper went away or came back, or a probe lost
 * events. Finding the helper for the first time (absent to running) is
 * start-up, not news. */
static uint64_t tick(uint64_t now)
{
	static int last_state = HELPER_ABSENT;
	struct probes_view *v = probes_view_take();

	if (v == NULL)
		return watch_next_due(now, CHECK_MS);
	if (v->helper != last_state && (v->helper == HELPER_FAILED || last_state == HELPER_FAILED))
		send_helper_status(v->helper);
	last_state = v->helper;
	for (size_t i = 0; i < table.n; i++) {
		const struct probe_reading *rd = reading_of(v, table.rows[i]->index);
		struct loss_seen *seen = table.rows[i]->runtime;

		if (rd == NULL || seen == NULL || rd->lost <= seen->lost)
			continue;
		seen->lost = rd->lost;
		send_loss((const struct probe_row *)table.rows[i], rd->lost);
	}
	probes_view_free(v);
	return watch_next_due(now, CHECK_MS);
}

/* ------------------------------------------------------------ per-CPU hits */

/* Rows: every probe's CPUs, in probe order. */
static const struct probe_reading *cpu_row_at(void *view, size_t row, unsigned *cpu)
{
	for (size_t i = 0; i < table.n; i++) {
		const struct probe_reading *rd = reading_of(readings(view), table.rows[i]->index);
		unsigned n = rd != NULL ? rd->ncpu : 0;

		if (row < n) {
			*cpu = (unsigned)row;
			return rd;
		}
		row -= n;
	}
	return NULL;
}

static size_t cpu_rows(void *view)
{
	size_t n = 0;

	for (size_t i = 0; i < table.n; i++) {
		const struct probe_reading *rd = reading_of(readings(view), table.rows[i]->index);

		n += rd != NULL ? rd->ncpu : 0;
	}
	return n;
}

static void cpu_index(void *view, size_t row, oid *out)
{
	unsigned cpu = 0;
	const struct probe_reading *rd = cpu_row_at(view, row, &cpu);

	out[0] = rd ? rd->id : 0;
	out[1] = cpu + 1;
}

static int cpu_get(void *view, size_t row, unsigned col, struct mib_value *v)
{
	unsigned cpu = 0;
	const struct probe_reading *rd = cpu_row_at(view, row, &cpu);

	if (rd == NULL || col != CPU_COL_HITS)
		return MIB_ABSENT;
	return mib_u64(v, ASN_COUNTER64, rd->cpu_hits[cpu]);
}

static const struct mib_table cpu_table = {
	.min_col = CPU_COL_HITS, .max_col = CPU_COL_HITS, .index_len = 2,
	.rows = cpu_rows, .row_index = cpu_index, .get = cpu_get,
};

/* ------------------------------------------------------------ default sensors */

static int get_retransmits(void *view, struct mib_value *v)
{
	const struct probes_view *pv = readings(view);

	if (pv == NULL || !pv->have_sensors)
		return MIB_ABSENT;
	return mib_u64(v, ASN_COUNTER64, pv->tcp_retransmits);
}

static int get_drops(void *view, struct mib_value *v)
{
	const struct probes_view *pv = readings(view);

	if (pv == NULL || !pv->have_sensors)
		return MIB_ABSENT;
	return mib_u64(v, ASN_COUNTER64, pv->skb_drops);
}

enum {
	DROP_COL_NAME = CM_ARC_clusterMonDropReasonName,
	DROP_COL_PACKETS = CM_ARC_clusterMonDropReasonPackets
};

static size_t drop_rows(void *view)
{
	const struct probes_view *pv = readings(view);

	return pv != NULL ? pv->ndrops : 0;
}

static void drop_index(void *view, size_t row, oid *out)
{
	out[0] = readings(view)->drops[row].reason + 1;
}

static int drop_get(void *view, size_t row, unsigned col, struct mib_value *v)
{
	const struct drop_reading *d = &readings(view)->drops[row];

	if (col == DROP_COL_NAME)
		return mib_string(v, d->name);
	return mib_u64(v, ASN_COUNTER64, d->packets);
}

static const struct mib_table drop_table = {
	.min_col = DROP_COL_NAME, .max_col = DROP_COL_PACKETS, .index_len = 1,
	.rows = drop_rows, .row_index = drop_index, .get = drop_get,
};

/* ------------------------------------------------------------ the group */

static const struct rt_ops ops = {
	.name = "clusterMonProbeTable",
	.row_size = sizeof(struct probe_row),
	.min_col = COL_SPEC, .max_col = COL_STATUS,
	.status_col = COL_STATUS, .storage_col = COL_STORAGE,
	.defaults = defaults, .check = check, .set = set, .ready = ready,
	.inconsistent = inconsistent, .same = same, .prepare = prepare,
	.free_runtime = free, .get = get, .save = save, .restore = restore,
	.changed = changed,
	.directive = "probe", .conf_fill = conf_fill,
	.directive_usage = "SPEC [pid=N] [cpu=N] [every=N]",
};

static struct rt_table table = {
	.ops = &ops, .arc = CM_ARC_clusterMonProbeTable, .store_token = "clusterMonProbeRow",
};

/* The rows and the source's readings, for every object of the group. */
static void *acquire(void)
{
	struct rt_view *v = malloc(sizeof(*v));

	if (v != NULL)
		*v = (struct rt_view){ .t = &table, .src = probes_view_take() };
	return v;
}

static void release(void *view)
{
	struct rt_view *v = view;

	if (v != NULL)
		probes_view_free((struct probes_view *)v->src);
	free(v);
}

static void set_request(netsnmp_agent_request_info *reqinfo, netsnmp_request_info *requests)
{
	rt_set_request(&table, reqinfo, requests, OID_LENGTH(probes_oid));
}

static struct mib_object objects[] = {
	{ .arc = CM_ARC_clusterMonProbeTable, .table = &table.view },
	{ .arc = CM_ARC_clusterMonProbeCpuTable, .table = &cpu_table },
	{ .arc = CM_ARC_clusterMonProbeTcpRetransmits, .get = get_retransmits },
	{ .arc = CM_ARC_clusterMonProbeSkbDrops, .get = get_drops },
	{ .arc = CM_ARC_clusterMonDropReasonTable, .table = &drop_table },
};

static const struct mib_group group = {
	.name = "clusterMonProbes",
	.base = probes_oid,
	.base_len = OID_LENGTH(probes_oid),
	.objects = objects,
	.nobjects = sizeof(objects) / sizeof(objects[0]),
	.acquire = acquire,
	.release = release,
	.set_request = set_request,
};

int mib_probes_register(void)
{
	rt_init(&table);
	watch_register(tick);
	return mib_group_register(&group);
}

void mib_probes_clear(void)
{
	rt_clear(&table);
}
