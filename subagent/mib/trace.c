/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * trace.c - clusterMonTraces: clusterMonTraceTable (read-create, on the
 * rowtable engine) served from the traces source, and the notifications
 * clusterMonTraceEnded and clusterMonTraceLoss.
 *
 * Activating a row only queues a session: the SET never waits for the
 * helper (it may be loading a program, or gone). The probes source's
 * thread starts it and clusterMonTraceOperStatus says how that went.
 */
#include "engine/rowtable.h"
#include "mib.h"
#include "specfilter.h"
#include "engine/watch.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../runtime/sampler.h"
#include "../sources/source_cmd.h"
#include "../sources/traces.h"
#include "common/number.h"
#include "common/wire.h"

static const oid traces_oid[] = { CM_OID_clusterMonTraces };
static const oid entry_oid[] = { CM_OID_clusterMonTraceEntry };
static const oid ended_trap_oid[] = { CM_OID_clusterMonTraceEnded };
static const oid loss_trap_oid[] = { CM_OID_clusterMonTraceLoss };

enum {
	COL_SPEC = CM_ARC_clusterMonTraceSpec,
	COL_PID = CM_ARC_clusterMonTraceFilterPid,
	COL_CPU = CM_ARC_clusterMonTraceFilterCpu,
	COL_EVERY = CM_ARC_clusterMonTraceSampleEvery,
	COL_DURATION = CM_ARC_clusterMonTraceDurationMs,
	COL_MAXBYTES = CM_ARC_clusterMonTraceMaxBytes,
	COL_BUFFER = CM_ARC_clusterMonTraceBufferBytes,
	COL_STORAGE = CM_ARC_clusterMonTraceStorageType,
	COL_STATUS = CM_ARC_clusterMonTraceRowStatus,
	COL_DIR = CM_ARC_clusterMonTraceDirectory,
	COL_RECORDS = CM_ARC_clusterMonTraceRecords,
	COL_LOST = CM_ARC_clusterMonTraceLost,
	COL_BYTES = CM_ARC_clusterMonTraceBytes,
	COL_OPER = CM_ARC_clusterMonTraceOperStatus,
	COL_ERROR = CM_ARC_clusterMonTraceLastError,
};

struct trace_row {
	struct rt_row hdr;
	struct sf_fields sf;
	uint32_t duration_ms, max_bytes, buffer_bytes;
	uint32_t generation;       /* set at each activation: a new session */
};

/* What the notifications have told about the row's sessions. */
struct trace_seen {
	uint32_t ended_generation;
	uint64_t lost;
};

static struct rt_table table;
static uint32_t next_generation;

/* ------------------------------------------------------------ columns */

static void defaults(struct rt_row *r)
{
	struct trace_row *t = (struct trace_row *)r;

	sf_defaults(&t->sf);
	t->duration_ms = TRACE_DEFAULT_DURATION_MS;
	t->max_bytes = (uint32_t)TRACE_DEFAULT_BYTES;
	t->buffer_bytes = TRACE_DEFAULT_BUFFER;
	t->generation = 0;
}

/* The protocol's parser judges a spec: the SET refuses what the helper
 * would. */
static const struct sf_columns sf_cols = {
	COL_SPEC, COL_PID, COL_CPU, COL_EVERY, "clusterMonTraceSpec", wire_parse_trace_spec,
};

static int check_buffer(const netsnmp_variable_list *var)
{
	int rc = rt_check_unsigned(var, TRACE_MIN_BUFFER, TRACE_MAX_BUFFER);
	unsigned long v = rc == SNMP_ERR_NOERROR ? *var->val.integer : 0;

	if (rc == SNMP_ERR_NOERROR && (v & (v - 1)) != 0)
		return SNMP_ERR_WRONGVALUE;
	return rc;
}

static int check(unsigned col, const netsnmp_variable_list *var)
{
	if (sf_owns(&sf_cols, col))
		return sf_check(&sf_cols, col, var);
	switch (col) {
	case COL_DURATION: return rt_check_unsigned(var, 1, TRACE_MAX_DURATION_MS);
	case COL_MAXBYTES: return rt_check_unsigned(var, TRACE_MIN_BYTES, UINT32_MAX);
	case COL_BUFFER: return check_buffer(var);
	default: return SNMP_ERR_NOTWRITABLE;
	}
}

static void set(struct rt_row *r, unsigned col, const netsnmp_variable_list *var)
{
	struct trace_row *t = (struct trace_row *)r;
	uint32_t u = (uint32_t)*var->val.integer;

	switch (col) {
	case COL_DURATION: t->duration_ms = u; break;
	case COL_MAXBYTES: t->max_bytes = u; break;
	case COL_BUFFER: t->buffer_bytes = u; break;
	default: sf_set(&sf_cols, &t->sf, col, var);
	}
}

static bool ready(const struct rt_row *r)
{
	return ((const struct trace_row *)r)->sf.spec[0] != '\0';
}

static bool same(const struct rt_row *ra, const struct rt_row *rb)
{
	const struct trace_row *a = (const struct trace_row *)ra;
	const struct trace_row *b = (const struct trace_row *)rb;

	return sf_same(&a->sf, &b->sf) && a->duration_ms == b->duration_ms &&
	       a->max_bytes == b->max_bytes && a->buffer_bytes == b->buffer_bytes;
}

/* An active session's settings cannot change under it. */
static unsigned inconsistent(const struct rt_row *r, const struct rt_row *o)
{
	if (r->status == ROW_ACTIVE && o != NULL && o->status == ROW_ACTIVE && !same(r, o))
		return COL_SPEC;
	return 0;
}

/* Activation (from anything but active) is a new session. */
static int prepare(struct rt_row *r, const struct rt_row *o)
{
	if (r->status == ROW_ACTIVE && (o == NULL || o->status != ROW_ACTIVE))
		((struct trace_row *)r)->generation = ++next_generation;
	if (o != NULL && o->runtime != NULL) {
		r->runtime = o->runtime;
		return 0;
	}
	r->runtime = calloc(1, sizeof(struct trace_seen));
	return r->runtime != NULL ? 0 : -1;
}

static const struct trace_reading *reading_of(const struct traces_view *tv, uint32_t id)
{
	for (size_t i = 0; tv != NULL && i < tv->n; i++)
		if (tv->rows[i].id == id)
			return &tv->rows[i];
	return NULL;
}

static int get_state(const struct trace_reading *rd, unsigned col, struct mib_value *v)
{
	switch (col) {
	case COL_DIR: return mib_string(v, rd ? rd->dir : "");
	case COL_RECORDS: return mib_u64(v, ASN_COUNTER64, rd ? rd->records : 0);
	case COL_LOST: return mib_u64(v, ASN_COUNTER64, rd ? rd->lost : 0);
	case COL_BYTES: return mib_u64(v, ASN_COUNTER64, rd ? rd->bytes : 0);
	case COL_OPER: return mib_u64(v, ASN_INTEGER, rd ? (uint64_t)rd->oper : TOPER_IDLE);
	case COL_ERROR: return mib_string(v, rd ? rd->error : "");
	default: return MIB_ABSENT;
	}
}

static int get(const struct rt_row *r, unsigned col, const void *src, struct mib_value *v)
{
	const struct trace_row *t = (const struct trace_row *)r;

	if (sf_owns(&sf_cols, col))
		return sf_get(&sf_cols, &t->sf, col, v);
	switch (col) {
	case COL_DURATION: return mib_u64(v, ASN_UNSIGNED, t->duration_ms);
	case COL_MAXBYTES: return mib_u64(v, ASN_UNSIGNED, t->max_bytes);
	case COL_BUFFER: return mib_u64(v, ASN_UNSIGNED, t->buffer_bytes);
	default: return get_state(reading_of(src, r->index), col, v);
	}
}

/* ------------------------------------------------------------ persistence */

static void save(const struct rt_row *r, char *buf, size_t len)
{
	const struct trace_row *t = (const struct trace_row *)r;
	int n = spec_filter_save(t->sf.spec, &t->sf.filter, buf, len);

	if (n > 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, " %u %u %u", t->duration_ms, t->max_bytes,
			 t->buffer_bytes);
}

/* The same checks as a SET of each column (check() above). */
static int restore(struct rt_row *r, char *line)
{
	struct trace_row *t = (struct trace_row *)r;
	char spec[SPEC_MAX_TEXT + 1], why[256];
	const char *at = line;
	struct probe_filter f;
	int64_t duration, maxbytes, buffer;

	if (spec_filter_restore(&at, spec, &f) != 0 ||
	    num_take_i64(&at, 1, TRACE_MAX_DURATION_MS, &duration) != NUM_OK ||
	    num_take_i64(&at, TRACE_MIN_BYTES, UINT32_MAX, &maxbytes) != NUM_OK ||
	    num_take_i64(&at, TRACE_MIN_BUFFER, TRACE_MAX_BUFFER, &buffer) != NUM_OK ||
	    (buffer & (buffer - 1)) != 0 || *at != '\0' ||
	    sf_set_spec(&sf_cols, &t->sf, spec, why, sizeof(why)) != 0)
		return -1;
	t->sf.filter = f;
	t->duration_ms = (uint32_t)duration;
	t->max_bytes = (uint32_t)maxbytes;
	t->buffer_bytes = (uint32_t)buffer;
	return 0;
}

/* ------------------------------------------------------------ config file */

/* trace SPEC [pid=N] [cpu=N] [every=N] [duration=MS] [bytes=N] [buffer=N] */
static const char *conf_fill(struct rt_row *row, char *line)
{
	static char why[256];
	struct trace_row *t = (struct trace_row *)row;
	char *save = NULL, *word = strtok_r(line, " \t", &save);
	struct wire_request req;

	wire_trace_defaults(&req);
	if (word == NULL || strlen(word) > SPEC_MAX_TEXT) {
		snprintf(why, sizeof(why), "expected a trace spec of at most %d characters",
			 SPEC_MAX_TEXT);
		return why;
	}
	if (sf_set_spec(&sf_cols, &t->sf, word, why, sizeof(why)) != 0)
		return why;
	while ((word = strtok_r(NULL, " \t", &save)) != NULL)
		if (wire_trace_option(word, &req.filter, &req.limits, why, sizeof(why)) != 0)
			return why;
	if (req.limits.max_bytes > UINT32_MAX) {
		snprintf(why, sizeof(why), "bytes= is at most %u here (clusterMonTraceMaxBytes)",
			 UINT32_MAX);
		return why;
	}
	t->sf.filter = req.filter;
	t->duration_ms = req.limits.duration_ms;
	t->max_bytes = (uint32_t)req.limits.max_bytes;
	t->buffer_bytes = req.limits.buffer_bytes;
	return NULL;
}

/* ------------------------------------------------------------ to the source */

static void want_of(const struct trace_row *t, struct trace_want *w)
{
	memset(w, 0, sizeof(*w));
	w->id = t->hdr.index;
	w->active = t->hdr.status == ROW_ACTIVE;
	w->generation = t->generation;
	w->req = (struct wire_request){ .verb = WIRE_TRACE, .id = t->hdr.index,
					.spec = t->sf.parsed, .filter = t->sf.filter };
	w->req.limits = (struct trace_limits){ t->duration_ms, t->buffer_bytes, t->max_bytes };
}

static void fill(const struct rt_row *row, union source_cmd_row *out)
{
	want_of((const struct trace_row *)row, &out->trace);
}

/* Every row, queued for the probes source's thread: this one never waits. */
static void changed(void)
{
	rt_post_rows(&table, SOURCE_PROBES, SOURCE_CMD_TRACE_ROWS, fill, "trace rows");
}

/* ------------------------------------------------------------ notifications */

static void add_column(netsnmp_variable_list **vars, unsigned col, uint32_t index,
		       u_char type, const void *value, size_t len)
{
	mib_add_column(vars, entry_oid, OID_LENGTH(entry_oid), col, index, type, value, len);
}

static void add_counter(netsnmp_variable_list **vars, unsigned col, uint32_t index,
			uint64_t n)
{
	struct counter64 c64 = { .high = (u_long)(n >> 32), .low = (u_long)(n & 0xffffffffu) };

	add_column(vars, col, index, ASN_COUNTER64, &c64, sizeof(c64));
}

static void send_ended(const struct trace_row *t, const struct trace_reading *rd)
{
	netsnmp_variable_list *vars = mib_notification(ended_trap_oid, OID_LENGTH(ended_trap_oid));
	long oper = rd->oper;
	uint32_t i = t->hdr.index;

	add_column(&vars, COL_SPEC, i, ASN_OCTET_STR, t->sf.spec, strlen(t->sf.spec));
	add_column(&vars, COL_OPER, i, ASN_INTEGER, &oper, sizeof(oper));
	add_counter(&vars, COL_RECORDS, i, rd->records);
	add_counter(&vars, COL_LOST, i, rd->lost);
	add_column(&vars, COL_DIR, i, ASN_OCTET_STR, rd->dir, strlen(rd->dir));
	add_column(&vars, COL_ERROR, i, ASN_OCTET_STR, rd->error, strlen(rd->error));
	send_v2trap(vars);
	snmp_free_varbind(vars);
}

static void send_loss(const struct trace_row *t, uint64_t lost)
{
	netsnmp_variable_list *vars = mib_notification(loss_trap_oid, OID_LENGTH(loss_trap_oid));

	add_column(&vars, COL_SPEC, t->hdr.index, ASN_OCTET_STR, t->sf.spec, strlen(t->sf.spec));
	add_counter(&vars, COL_LOST, t->hdr.index, lost);
	send_v2trap(vars);
	snmp_free_varbind(vars);
}

#define CHECK_MS 500

/* Every half second: sessions that ended (once per session) or lost
 * events while running. */
static uint64_t tick(uint64_t now)
{
	struct traces_view *v = traces_view_take();

	if (v == NULL)
		return watch_next_due(now, CHECK_MS);
	for (size_t i = 0; i < table.n; i++) {
		const struct trace_row *t = (const struct trace_row *)table.rows[i];
		const struct trace_reading *rd = reading_of(v, t->hdr.index);
		struct trace_seen *seen = t->hdr.runtime;

		if (rd == NULL || seen == NULL || rd->generation != t->generation ||
		    t->generation == 0)
			continue;
		if (rd->oper == TOPER_RUNNING && rd->lost > seen->lost) {
			seen->lost = rd->lost;
			send_loss(t, rd->lost);
		}
		if ((rd->oper == TOPER_FINISHED || rd->oper == TOPER_FAILED) &&
		    seen->ended_generation != t->generation) {
			seen->ended_generation = t->generation;
			seen->lost = 0;
			send_ended(t, rd);
		}
	}
	traces_view_free(v);
	return watch_next_due(now, CHECK_MS);
}

/* ------------------------------------------------------------ the group */

static const struct rt_ops ops = {
	.name = "clusterMonTraceTable",
	.row_size = sizeof(struct trace_row),
	.min_col = COL_SPEC, .max_col = COL_ERROR,
	.status_col = COL_STATUS, .storage_col = COL_STORAGE,
	.default_storage = STORAGE_VOLATILE,
	.defaults = defaults, .check = check, .set = set, .ready = ready,
	.inconsistent = inconsistent, .same = same, .prepare = prepare,
	.free_runtime = free, .get = get, .save = save, .restore = restore,
	.changed = changed,
	.directive = "trace", .conf_fill = conf_fill,
	.directive_usage = "SPEC [pid=N] [cpu=N] [every=N] [duration=MS] [bytes=N] [buffer=N]",
};

static struct rt_table table = {
	.ops = &ops, .arc = CM_ARC_clusterMonTraceTable, .store_token = "clusterMonTraceRow",
};

/* The rows and the sessions' readings, for this request alone. */
static void *acquire(void)
{
	struct rt_view *v = malloc(sizeof(*v));

	if (v != NULL)
		*v = (struct rt_view){ .t = &table, .src = traces_view_take() };
	return v;
}

static void release(void *view)
{
	struct rt_view *v = view;

	if (v != NULL)
		traces_view_free((struct traces_view *)v->src);
	free(v);
}

static void set_request(netsnmp_agent_request_info *reqinfo, netsnmp_request_info *requests)
{
	rt_set_request(&table, reqinfo, requests, OID_LENGTH(traces_oid));
}

static struct mib_object objects[] = {
	{ .arc = CM_ARC_clusterMonTraceTable, .table = &table.view },
};

static const struct mib_group group = {
	.name = "clusterMonTraces",
	.base = traces_oid,
	.base_len = OID_LENGTH(traces_oid),
	.objects = objects,
	.nobjects = sizeof(objects) / sizeof(objects[0]),
	.acquire = acquire,
	.release = release,
	.set_request = set_request,
};

int mib_trace_register(void)
{
	rt_init(&table);
	watch_register(tick);
	return mib_group_register(&group);
}

void mib_trace_clear(void)
{
	rt_clear(&table);
}
