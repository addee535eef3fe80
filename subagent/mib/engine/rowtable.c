/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * rowtable.c - the read-create table engine: staged SETs with RowStatus and
 * StorageType (RFC 2579), and nonVolatile rows kept in net-snmp's
 * persistent storage.
 */
#include "rowtable.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/number.h"
#include "core/lowerbound.h"
#include "runtime/sampler.h"
#include "sources/source_cmd.h"

/* One row touched by the request being set. */
struct rt_stage {
	uint32_t index;
	struct rt_row *old;        /* the live row, NULL if none */
	struct rt_row *row;        /* the staged copy, NULL when the row goes */
	int request;               /* RowStatus asked for, ROW_NONE if none */
	netsnmp_request_info *blame[RT_MAX_COLS + 1];
	netsnmp_request_info *first;
};

struct rt_pending {
	bool applied;              /* ACTION swapped the copies in */
	size_t n;
	struct rt_stage st[];
};

/* ------------------------------------------------------------ live rows */

struct index_key {
	struct rt_row *const *rows;
	uint32_t index;
};

static bool index_before(const void *ctx, size_t i)
{
	const struct index_key *k = ctx;

	return k->rows[i]->index < k->index;
}

static size_t position(const struct rt_table *t, uint32_t index)
{
	return cm_lower_bound(0, t->n, index_before, &(struct index_key){ t->rows, index });
}

struct rt_row *rt_find(const struct rt_table *t, uint32_t index)
{
	size_t i = position(t, index);

	return i < t->n && t->rows[i]->index == index ? t->rows[i] : NULL;
}

static int grow(struct rt_table *t)
{
	size_t cap = t->cap ? t->cap * 2 : 16;
	struct rt_row **rows;

	if (t->n < t->cap)
		return 0;
	rows = realloc(t->rows, cap * sizeof(*rows));
	if (rows == NULL)
		return -1;
	t->rows = rows;
	t->cap = cap;
	return 0;
}

int rt_insert(struct rt_table *t, struct rt_row *row)
{
	size_t i = position(t, row->index);

	if ((i < t->n && t->rows[i]->index == row->index) || grow(t) != 0)
		return -1;
	memmove(&t->rows[i + 1], &t->rows[i], (t->n - i) * sizeof(*t->rows));
	t->rows[i] = row;
	t->n++;
	return 0;
}

/* Puts row (may be NULL: removal) in place of the live row with index. */
static void replace(struct rt_table *t, uint32_t index, struct rt_row *row)
{
	size_t i = position(t, index);
	bool present = i < t->n && t->rows[i]->index == index;

	if (present && row != NULL) {
		t->rows[i] = row;
	} else if (present) {
		memmove(&t->rows[i], &t->rows[i + 1], (t->n - i - 1) * sizeof(*t->rows));
		t->n--;
	} else if (row != NULL) {
		rt_insert(t, row); /* room was reserved in RESERVE1 */
	}
}

struct rt_row *rt_new_row(const struct rt_table *t, uint32_t index)
{
	struct rt_row *row = calloc(1, t->ops->row_size);

	if (row == NULL)
		return NULL;
	t->ops->defaults(row);
	row->index = index;
	row->status = ROW_NOT_READY;
	row->storage = t->ops->default_storage ? t->ops->default_storage : STORAGE_NONVOLATILE;
	row->runtime = NULL;
	return row;
}

void rt_free_row(const struct rt_table *t, struct rt_row *row)
{
	if (row == NULL)
		return;
	if (row->runtime != NULL)
		t->ops->free_runtime(row->runtime);
	free(row);
}

/* Frees row, and its runtime unless other shares it. */
static void free_unshared(const struct rt_table *t, struct rt_row *row,
			  const struct rt_row *other)
{
	if (row == NULL)
		return;
	if (other != NULL && row->runtime == other->runtime)
		row->runtime = NULL;
	rt_free_row(t, row);
}

void rt_clear(struct rt_table *t)
{
	for (size_t i = 0; i < t->n; i++)
		rt_free_row(t, t->rows[i]);
	free(t->rows);
	free(t->conf_rows);
	t->rows = NULL;
	t->conf_rows = NULL;
	t->n = t->cap = t->nconf = 0;
}

/* ------------------------------------------------------------ GET side */

static size_t view_rows(void *view)
{
	return ((const struct rt_view *)view)->t->n;
}

static void view_index(void *view, size_t row, oid *out)
{
	out[0] = ((const struct rt_view *)view)->t->rows[row]->index;
}

static int view_get(void *view, size_t i, unsigned col, struct mib_value *v)
{
	const struct rt_view *rv = view;
	const struct rt_table *t = rv->t;
	const struct rt_row *row = t->rows[i];

	if (col == t->ops->status_col)
		return mib_u64(v, ASN_INTEGER, row->status);
	if (col == t->ops->storage_col)
		return mib_u64(v, ASN_INTEGER, (uint64_t)row->storage);
	return t->ops->get(row, col, rv->src, v);
}

/* ------------------------------------------------------------ SET side */

static void discard(const struct rt_table *t, struct rt_pending *p)
{
	for (size_t i = 0; i < p->n; i++)
		free_unshared(t, p->st[i].row, p->st[i].old);
	free(p);
}

static struct rt_stage *stage_for(struct rt_table *t, struct rt_pending *p, uint32_t index,
				  netsnmp_request_info *r)
{
	struct rt_stage *s;

	for (size_t i = 0; i < p->n; i++)
		if (p->st[i].index == index)
			return &p->st[i];
	s = &p->st[p->n];
	memset(s, 0, sizeof(*s));
	s->index = index;
	s->first = r;
	s->old = rt_find(t, index);
	if (s->old != NULL) {
		s->row = malloc(t->ops->row_size);
		if (s->row != NULL)
			memcpy(s->row, s->old, t->ops->row_size);
	} else {
		s->row = rt_new_row(t, index);
	}
	if (s->row == NULL)
		return NULL;
	p->n++;
	return s;
}

/* Type and range of the RowStatus and StorageType columns. */
static int check_common(const struct rt_ops *ops, unsigned col,
			const netsnmp_variable_list *var)
{
	long v;

	if (var->type != ASN_INTEGER)
		return SNMP_ERR_WRONGTYPE;
	if (var->val_len != sizeof(long))
		return SNMP_ERR_WRONGLENGTH;
	v = *var->val.integer;
	if (col == ops->status_col)
		return v >= ROW_ACTIVE && v <= ROW_DESTROY && v != ROW_NOT_READY ?
			       SNMP_ERR_NOERROR : SNMP_ERR_WRONGVALUE;
	/* Rows made by SET are volatile or nonVolatile; permanent and
	 * readOnly belong to the configuration file. */
	return v == STORAGE_VOLATILE || v == STORAGE_NONVOLATILE ? SNMP_ERR_NOERROR :
							 SNMP_ERR_WRONGVALUE;
}

/* The row index of a varbind for this table, or an error status. */
static int target(const struct rt_table *t, const netsnmp_variable_list *vb, size_t base_len,
		  unsigned *col, uint32_t *index)
{
	const oid *sfx = vb->name + base_len;
	size_t n = vb->name_length - base_len;

	if (n < 3 || sfx[0] != t->arc || sfx[1] != 1 || sfx[2] < t->ops->min_col ||
	    sfx[2] > t->ops->max_col)
		return SNMP_ERR_NOCREATION;
	if (n != 4 || sfx[3] < 1 || sfx[3] > RT_INDEX_MAX)
		return SNMP_ERR_NOCREATION;
	*col = (unsigned)sfx[2];
	*index = (uint32_t)sfx[3];
	return SNMP_ERR_NOERROR;
}

/* One varbind into its staged row; an error status if it cannot go. */
static int stage_varbind(struct rt_table *t, struct rt_pending *p, netsnmp_request_info *r,
			 size_t base_len)
{
	const struct rt_ops *ops = t->ops;
	netsnmp_variable_list *var = r->requestvb;
	struct rt_stage *s;
	uint32_t index;
	unsigned col;
	int err = target(t, var, base_len, &col, &index);

	if (err != SNMP_ERR_NOERROR)
		return err;
	if (col == ops->status_col || col == ops->storage_col)
		err = check_common(ops, col, var);
	else
		err = ops->check(col, var);
	if (err != SNMP_ERR_NOERROR)
		return err;
	s = stage_for(t, p, index, r);
	if (s == NULL)
		return SNMP_ERR_RESOURCEUNAVAILABLE;
	if (s->old != NULL && !storage_writable(s->old->storage))
		return SNMP_ERR_NOTWRITABLE;
	s->blame[col] = r;
	if (col == ops->status_col)
		s->request = (int)*var->val.integer;
	else if (col == ops->storage_col)
		s->row->storage = (int)*var->val.integer;
	else
		ops->set(s->row, col, var);
	return SNMP_ERR_NOERROR;
}

static netsnmp_request_info *blamed(const struct rt_table *t, const struct rt_stage *s,
				    unsigned col)
{
	if (col != 0 && s->blame[col] != NULL)
		return s->blame[col];
	if (s->blame[t->ops->status_col] != NULL)
		return s->blame[t->ops->status_col];
	return s->first;
}

static int rs_error(enum rs_verdict v)
{
	switch (v) {
	case RSV_WRONG_VALUE: return SNMP_ERR_WRONGVALUE;
	case RSV_NO_CREATION: return SNMP_ERR_NOCREATION;
	case RSV_INCONSISTENT: return SNMP_ERR_INCONSISTENTVALUE;
	default: return SNMP_ERR_NOERROR;
	}
}

/* RowStatus rules, the table's consistency check and a runtime for one
 * staged row; on failure *culprit is the varbind to blame. */
static int settle(struct rt_table *t, struct rt_stage *s, netsnmp_request_info **culprit,
		  size_t *created)
{
	const struct rt_ops *ops = t->ops;
	enum row_status next;
	enum rs_verdict v;
	unsigned col;

	v = rowstatus_next(s->old ? s->old->status : ROW_NONE, s->request,
			   ops->ready(s->row), &next);
	*culprit = blamed(t, s, 0);
	if (v != RSV_OK)
		return rs_error(v);
	if (next == ROW_NONE) {
		if (s->old != NULL && !storage_deletable(s->old->storage))
			return SNMP_ERR_INCONSISTENTVALUE;
		free_unshared(t, s->row, s->old);
		s->row = NULL;
		return SNMP_ERR_NOERROR;
	}
	s->row->status = next;
	col = ops->inconsistent(s->row, s->old);
	if (col != 0) {
		*culprit = blamed(t, s, col);
		return SNMP_ERR_INCONSISTENTVALUE;
	}
	if (ops->prepare(s->row, s->old) != 0)
		return SNMP_ERR_RESOURCEUNAVAILABLE;
	/* The table's cap counts the rows this request creates before this
	 * one: a PDU of many new rows cannot pass it either. */
	if (s->old == NULL && ops->max_rows != 0 && t->n + ++*created > ops->max_rows)
		return SNMP_ERR_RESOURCEUNAVAILABLE;
	/* Room for a new row now, so ACTION cannot fail. */
	if (s->old == NULL && grow(t) != 0)
		return SNMP_ERR_RESOURCEUNAVAILABLE;
	return SNMP_ERR_NOERROR;
}

static struct rt_pending *stage_all(struct rt_table *t, netsnmp_agent_request_info *reqinfo,
				    netsnmp_request_info *requests, size_t base_len)
{
	struct rt_pending *p;
	netsnmp_request_info *culprit = NULL;
	size_t count = 0, created = 0;
	int err = SNMP_ERR_NOERROR;

	for (netsnmp_request_info *r = requests; r != NULL; r = r->next)
		count++;
	p = calloc(1, sizeof(*p) + count * sizeof(p->st[0]));
	if (p == NULL) {
		netsnmp_set_request_error(reqinfo, requests, SNMP_ERR_RESOURCEUNAVAILABLE);
		return NULL;
	}
	for (netsnmp_request_info *r = requests; r != NULL && !err; r = r->next) {
		err = stage_varbind(t, p, r, base_len);
		culprit = r;
	}
	for (size_t i = 0; i < p->n && !err; i++)
		err = settle(t, &p->st[i], &culprit, &created);
	if (err) {
		netsnmp_set_request_error(reqinfo, culprit, err);
		discard(t, p);
		return NULL;
	}
	return p;
}

static void apply(struct rt_table *t, struct rt_pending *p)
{
	for (size_t i = 0; i < p->n; i++)
		replace(t, p->st[i].index, p->st[i].row);
	p->applied = true;
	t->ops->changed();
}

static void undo(struct rt_table *t, struct rt_pending *p)
{
	for (size_t i = 0; i < p->n; i++)
		replace(t, p->st[i].index, p->st[i].old);
	p->applied = false;
	t->ops->changed();
}

static bool persistent(const struct rt_row *row)
{
	return row != NULL && row->storage == STORAGE_NONVOLATILE;
}

/* Frees what the request replaced; saves if a nonVolatile row changed. */
static void finish(struct rt_table *t, struct rt_pending *p)
{
	bool store = false;

	for (size_t i = 0; i < p->n; i++) {
		struct rt_stage *s = &p->st[i];

		store |= persistent(s->old) || persistent(s->row);
		free_unshared(t, s->old, s->row);
	}
	free(p);
	if (store)
		snmp_store(netsnmp_ds_get_string(NETSNMP_DS_LIBRARY_ID, NETSNMP_DS_LIB_APPTYPE));
}

void rt_set_request(struct rt_table *t, netsnmp_agent_request_info *reqinfo,
		    netsnmp_request_info *requests, size_t base_len)
{
	struct rt_pending *p = t->pending;

	switch (reqinfo->mode) {
	case MODE_SET_RESERVE1:
		/* A request the master abandoned: finish what it left. */
		if (p != NULL)
			p->applied ? finish(t, p) : discard(t, p);
		t->pending = stage_all(t, reqinfo, requests, base_len);
		break;
	case MODE_SET_ACTION:
		if (p != NULL && !p->applied)
			apply(t, p);
		break;
	case MODE_SET_UNDO:
		if (p != NULL && p->applied)
			undo(t, p);
		break;
	case MODE_SET_COMMIT:
	case MODE_SET_FREE:
		if (p == NULL)
			break;
		p->applied ? finish(t, p) : discard(t, p);
		t->pending = NULL;
		break;
	default: /* RESERVE2: everything was checked in RESERVE1 */
		break;
	}
}

/* ------------------------------------------------------------ persistence */

/* history, thresholds, probes, traces, distributions, and room to grow */
#define RT_MAX_TABLES 8
static struct rt_table *tables[RT_MAX_TABLES];
static size_t ntables;
/* Until a read names its reporter (never, in the daemon: reload.c passes
 * conf.c's, which counts the errors that refuse a read) a bad line is at
 * least logged with its file and line. */
static void log_only(const char *fmt, const char *arg)
{
	char msg[256];

	snprintf(msg, sizeof(msg), fmt, arg);
	config_perror(msg);
}

static rt_report_fn conf_error = log_only;

static struct rt_table *table_of(const char *token, bool directive);

static const char *app_type(void)
{
	return netsnmp_ds_get_string(NETSNMP_DS_LIBRARY_ID, NETSNMP_DS_LIB_APPTYPE);
}

static void store_table(const struct rt_table *t)
{
	char line[2048];
	int n;

	for (size_t i = 0; i < t->n; i++) {
		if (!persistent(t->rows[i]))
			continue;
		n = snprintf(line, sizeof(line), "%s %u %d ", t->store_token, t->rows[i]->index,
			     (int)t->rows[i]->status);
		t->ops->save(t->rows[i], line + n, sizeof(line) - (size_t)n);
		read_config_store(app_type(), line);
	}
}

/* One callback for every table: net-snmp frees a callback's client
 * argument at shutdown, so it cannot point at a table. */
static int store_rows(int major, int minor, void *server, void *client)
{
	(void)major, (void)minor, (void)server, (void)client;
	for (size_t i = 0; i < ntables; i++)
		store_table(tables[i]);
	return SNMP_ERR_NOERROR;
}

/* A saved row that cannot be read back is skipped, never a config error:
 * a damaged state file must not stop the agent. */
static void restore_row(const char *token, char *line)
{
	struct rt_table *t = NULL;
	struct rt_row *row, **grown;
	char *save = NULL, *idx, *status, *rest;
	uint32_t index = 0, st = 0;

	t = table_of(token, false);
	idx = strtok_r(line, " \t", &save);
	status = strtok_r(NULL, " \t", &save);
	rest = strtok_r(NULL, "", &save);
	if (num_parse_u32(idx, RT_INDEX_MAX, &index) != NUM_OK)
		index = 0;
	row = t && index >= 1 ? rt_new_row(t, index) : NULL;
	if (row == NULL || status == NULL || rest == NULL || t->ops->restore(row, rest) != 0 ||
	    (grown = realloc(t->restored, (t->nrestored + 1) * sizeof(*grown))) == NULL) {
		snmp_log(LOG_WARNING, "clustermond: skipping a saved %s row that does not parse\n",
			 token);
		if (row != NULL)
			rt_free_row(t, row);
		return;
	}
	row->status = num_parse_u32(status, UINT32_MAX, &st) == NUM_OK && st == ROW_ACTIVE ?
		      ROW_ACTIVE : ROW_NOT_IN_SERVICE;
	if (!t->ops->ready(row))
		row->status = ROW_NOT_READY;
	row->storage = STORAGE_NONVOLATILE;
	t->restored = grown;
	t->restored[t->nrestored++] = row;
}

static void install_restored(struct rt_table *t)
{
	for (size_t i = 0; i < t->nrestored; i++) {
		struct rt_row *row = t->restored[i];
		struct rt_row *live = rt_find(t, row->index);

		if (live != NULL && live->storage != STORAGE_NONVOLATILE)
			snmp_log(LOG_WARNING, "clustermond: saved %s row %u clashes with a row "
				 "of the configuration file; dropped\n", t->ops->name, row->index);
		if (live != NULL || t->ops->prepare(row, NULL) != 0 || rt_insert(t, row) != 0)
			rt_free_row(t, row);
	}
	free(t->restored);
	t->restored = NULL;
	t->nrestored = 0;
	t->ops->changed();
}


static bool kept_in(struct rt_row *live, struct rt_row **keep, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (keep[i] == live)
			return true;
	return false;
}

static void install_config(struct rt_table *t, struct rt_row **rows, size_t n)
{
	struct rt_row **keep = calloc(n ? n : 1, sizeof(*keep));
	size_t nkeep = 0, kept = 0;

	/* Live config rows that did not change stay as they are. */
	for (size_t i = 0; keep != NULL && i < n; i++) {
		struct rt_row *live = rt_find(t, rows[i]->index);

		if (live != NULL && live->storage == STORAGE_READONLY && t->ops->same(live, rows[i])) {
			keep[nkeep++] = live;
			rt_free_row(t, rows[i]);
			rows[i] = NULL;
		}
	}
	for (size_t i = 0; i < t->n; i++) {
		if (t->rows[i]->storage == STORAGE_READONLY && !kept_in(t->rows[i], keep, nkeep))
			rt_free_row(t, t->rows[i]);
		else
			t->rows[kept++] = t->rows[i];
	}
	t->n = kept;
	free(keep);
	for (size_t i = 0; i < n; i++) {
		if (rows[i] == NULL)
			continue;
		if (rt_find(t, rows[i]->index) != NULL)
			snmp_log(LOG_WARNING, "clustermond: %s row %u of the configuration file is "
				 "taken by a row made with SET; skipped\n", t->ops->name,
				 rows[i]->index);
		if (rt_find(t, rows[i]->index) != NULL || t->ops->prepare(rows[i], NULL) != 0 ||
		    rt_insert(t, rows[i]) != 0)
			rt_free_row(t, rows[i]);
	}
	t->ops->changed();
}

static void config_done(struct rt_table *t, bool ok)
{
	struct rt_row **rows = t->conf_rows;
	size_t n = t->nconf;

	t->nconf = 0;
	if (ok) {
		install_config(t, rows, n);
		install_restored(t);
		return;
	}
	for (size_t i = 0; i < n; i++)
		rt_free_row(t, rows[i]);
	for (size_t i = 0; i < t->nrestored; i++)
		rt_free_row(t, t->restored[i]);
	free(t->restored);
	t->restored = NULL;
	t->nrestored = 0;
}

void restore_owner(const char *line, char *owner)
{
	u_char *buf = NULL;
	size_t len = 0;

	owner[0] = '\0';
	if (line == NULL)
		return;
	/* The return value is the next word (NULL at the end), not a status. */
	read_config_read_octet_string(line, &buf, &len);
	if (buf != NULL && len <= RT_OWNER_MAX) {
		memcpy(owner, buf, len);
		owner[len] = '\0';
	}
	free(buf);
}

/* ------------------------------------------------------------ config file */

static struct rt_table *table_of(const char *token, bool directive)
{
	for (size_t i = 0; i < ntables; i++)
		if (strcmp(directive ? tables[i]->ops->directive : tables[i]->store_token,
			   token) == 0)
			return tables[i];
	return NULL;
}

/* One directive line: a readOnly row numbered in the order of the lines. */
static void parse_directive(const char *token, char *line)
{
	struct rt_table *t = table_of(token, true);
	struct rt_row *row, **grown;
	const char *why;

	if (t->ops->max_rows != 0 && t->nconf >= t->ops->max_rows) {
		char msg[160];

		snprintf(msg, sizeof(msg), "%s: more than %zu rows (%s holds at most %zu)", token,
			 t->ops->max_rows, t->ops->name, t->ops->max_rows);
		conf_error("%s", msg);
		return;
	}
	row = rt_new_row(t, (uint32_t)t->nconf + 1);
	grown = realloc(t->conf_rows, (t->nconf + 1) * sizeof(*grown));
	if (grown != NULL)
		t->conf_rows = grown;
	if (row == NULL || grown == NULL) {
		free(row);
		conf_error("out of memory%s", "");
		return;
	}
	why = t->ops->conf_fill(row, line);
	if (why != NULL) {
		char msg[256];

		snprintf(msg, sizeof(msg), "%s: %s", token, why);
		conf_error("%s", msg);
		rt_free_row(t, row);
		return;
	}
	row->status = ROW_ACTIVE;
	row->storage = STORAGE_READONLY;
	t->conf_rows[t->nconf++] = row;
}

void rt_read_begin(rt_report_fn report)
{
	conf_error = report;
	for (size_t i = 0; i < ntables; i++)
		tables[i]->nconf = 0;
}

void rt_read_end(bool ok)
{
	for (size_t i = 0; i < ntables; i++)
		config_done(tables[i], ok);
}

void rt_init(struct rt_table *t)
{
	t->view = (struct mib_table){
		.min_col = t->ops->min_col, .max_col = t->ops->max_col, .index_len = 1,
		.rows = view_rows, .row_index = view_index, .get = view_get,
		.read_create = true,
	};
	if (ntables == 0)
		snmp_register_callback(SNMP_CALLBACK_LIBRARY, SNMP_CALLBACK_STORE_DATA,
				       store_rows, NULL);
	if (ntables == RT_MAX_TABLES) {
		/* A table without persistence or its directive: say so loudly. */
		snmp_log(LOG_ERR, "clustermond: RT_MAX_TABLES too small for %s\n", t->ops->name);
		return;
	}
	tables[ntables++] = t;
	register_app_config_handler(t->store_token, restore_row, NULL, NULL);
	register_app_config_handler(t->ops->directive, parse_directive, NULL,
				    t->ops->directive_usage);
}

int rt_get_oid(struct mib_value *v, const oid *name, size_t len)
{
	static const oid zero_dot_zero[] = { 0, 0 };

	v->type = ASN_OBJECT_ID;
	v->ptr = len > 0 ? name : zero_dot_zero;
	v->len = len > 0 ? len : 2;
	return MIB_PRESENT;
}

bool rt_variable_ok(const oid *var, size_t len, const oid *old_var, size_t old_len,
		    bool activating)
{
	uint64_t v;

	if (len == 0)
		return true;
	if (!activating && old_var != NULL &&
	    snmp_oid_compare(var, len, old_var, old_len) == 0)
		return true;
	return mib_read_number(var, len, &v) == MIB_READ_OK;
}

int rt_check_variable(const netsnmp_variable_list *var)
{
	if (var->type != ASN_OBJECT_ID)
		return SNMP_ERR_WRONGTYPE;
	return var->val_len >= 2 * sizeof(oid) ? SNMP_ERR_NOERROR : SNMP_ERR_WRONGVALUE;
}

void rt_set_variable(oid *dst, size_t *len, const netsnmp_variable_list *var)
{
	*len = var->val_len / sizeof(oid);
	memcpy(dst, var->val.objid, var->val_len);
}

int rt_check_unsigned(const netsnmp_variable_list *var, unsigned long lo, unsigned long hi)
{
	if (var->type != ASN_UNSIGNED)
		return SNMP_ERR_WRONGTYPE;
	return (unsigned long)*var->val.integer >= lo && (unsigned long)*var->val.integer <= hi ?
		       SNMP_ERR_NOERROR : SNMP_ERR_WRONGVALUE;
}

int rt_check_owner(const netsnmp_variable_list *var)
{
	if (var->type != ASN_OCTET_STR)
		return SNMP_ERR_WRONGTYPE;
	return var->val_len <= RT_OWNER_MAX ? SNMP_ERR_NOERROR : SNMP_ERR_WRONGLENGTH;
}

void rt_set_owner(char *owner, const netsnmp_variable_list *var)
{
	memcpy(owner, var->val.string, var->val_len);
	owner[var->val_len] = '\0';
}

void rt_post_rows(const struct rt_table *t, unsigned source, int kind,
		  void (*fill)(const struct rt_row *row, union source_cmd_row *out),
		  const char *what)
{
	size_t len = sizeof(struct source_cmd) + t->n * sizeof(union source_cmd_row);
	struct source_cmd *cmd = calloc(1, len);

	if (cmd == NULL) {
		snmp_log(LOG_ERR, "clustermond: out of memory: %s not passed on\n", what);
		return;
	}
	cmd->kind = (enum source_cmd_kind)kind;
	cmd->nrows = t->n;
	for (size_t i = 0; i < t->n; i++)
		fill(t->rows[i], &cmd->rows[i]);
	if (sampler_post(source, cmd, len) != 0)
		snmp_log(LOG_ERR, "clustermond: %s not passed on: %s\n", what, strerror(errno));
	free(cmd);
}
