/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * group.c - the table-driven handler behind every clusterMon group.
 *
 * OIDs inside a group: scalar  base.arc.0
 *                      column  base.arc.1.col.index...
 * Wrong shapes of an existing object's instance give noSuchInstance;
 * unknown arcs and columns give noSuchObject, as RFC 3416 asks.
 */
#include "group.h"
#include "core/log2hist.h"
#include "core/lowerbound.h"
#include "runtime/sampler.h"
#include "runtime/snapshot.h"
#include "sources/registry.h"
#include "sources/source_ops.h"
#include "defer.h"
#include "overread.h"

#include <stdlib.h>
#include <string.h>

netsnmp_variable_list *mib_notification(const oid *trap, size_t trap_len)
{
	static const oid snmp_trap_oid[] = { 1, 3, 6, 1, 6, 3, 1, 1, 4, 1, 0 };
	netsnmp_variable_list *vars = NULL;

	snmp_varlist_add_variable(&vars, snmp_trap_oid, OID_LENGTH(snmp_trap_oid), ASN_OBJECT_ID,
				  trap, trap_len * sizeof(oid));
	return vars;
}

void mib_add_column(netsnmp_variable_list **vars, const oid *entry, size_t entry_len,
		    unsigned col, uint32_t index, u_char type, const void *value, size_t len)
{
	oid name[MAX_OID_LEN];

	if (entry_len + 2 > MAX_OID_LEN)
		return;
	memcpy(name, entry, entry_len * sizeof(oid));
	name[entry_len] = col;
	name[entry_len + 1] = index;
	snmp_varlist_add_variable(vars, name, entry_len + 2, type, value, len);
}

int mib_string(struct mib_value *v, const char *s)
{
	size_t n = strlen(s);

	if (n >= sizeof(v->buf))
		n = sizeof(v->buf) - 1;
	memcpy(v->buf, s, n);
	v->buf[n] = '\0';
	v->type = ASN_OCTET_STR;
	v->ptr = v->buf;
	v->len = n;
	return MIB_PRESENT;
}

void *mib_group_view(const struct mib_group *g)
{
	const struct source_ops *s;

	if (g->acquire != NULL)
		return g->acquire();
	s = g->source != 0 ? source_by_index(g->source) : NULL;
	return s != NULL && s->slot != NULL ? snapshot_acquire(s->slot) : NULL;
}

void mib_group_unview(const struct mib_group *g, void *view)
{
	const struct source_ops *s;

	if (g->release != NULL) {
		g->release(view);
		return;
	}
	s = g->source != 0 ? source_by_index(g->source) : NULL;
	if (s != NULL && s->slot != NULL && view != NULL)
		snapshot_release(s->slot, view);
}

bool mib_group_has_view(const struct mib_group *g)
{
	return g->acquire != NULL || g->source != 0;
}

unsigned mib_group_sources(const struct mib_group *g)
{
	return g->sources | (g->source != 0 ? 1u << g->source : 0);
}

/* Groups with a view have no rows before the first sample; groups without
 * one read state they own and are always ready. */
static bool tables_ready(const struct mib_group *g, const void *view)
{
	return view != NULL || !mib_group_has_view(g);
}

static const struct mib_object *find_object(const struct mib_group *g, oid arc)
{
	for (size_t i = 0; i < g->nobjects; i++)
		if (g->objects[i].arc == arc)
			return &g->objects[i];
	return NULL;
}

static void set_value(netsnmp_variable_list *vb, const struct mib_value *v)
{
	struct counter64 c64;
	uint32_t u32 = (uint32_t)v->num;
	int32_t i32 = (int32_t)v->num;

	switch (v->type) {
	case ASN_COUNTER64:
		c64.high = (u_long)(v->num >> 32);
		c64.low = (u_long)(v->num & 0xffffffffu);
		snmp_set_var_typed_value(vb, ASN_COUNTER64, &c64, sizeof(c64));
		break;
	case ASN_INTEGER:
		snmp_set_var_typed_value(vb, ASN_INTEGER, &i32, sizeof(i32));
		break;
	case ASN_OCTET_STR:
		snmp_set_var_typed_value(vb, ASN_OCTET_STR, v->ptr, v->len);
		break;
	case ASN_OBJECT_ID:
		snmp_set_var_typed_value(vb, ASN_OBJECT_ID, v->ptr, v->len * sizeof(oid));
		break;
	default: /* Gauge32, Unsigned32, TimeTicks, Counter32 */
		snmp_set_var_typed_value(vb, v->type, &u32, sizeof(u32));
		break;
	}
}

struct index_key {
	const struct mib_table *t;
	void *view;
	const oid *key;
	size_t key_len;
};

static bool index_at_or_before(const void *ctx, size_t i)
{
	const struct index_key *k = ctx;
	oid idx[MAX_OID_LEN];

	k->t->row_index(k->view, i, idx);
	return snmp_oid_compare(idx, k->t->index_len, k->key, k->key_len) <= 0;
}

/* Binary search: the first row whose index compares greater than key
 * (key may be shorter or longer than an index: OID order decides). */
static size_t first_row_after(const struct mib_table *t, void *view,
			      const oid *key, size_t key_len)
{
	struct index_key k = { t, view, key, key_len };

	return cm_lower_bound(0, t->rows(view), index_at_or_before, &k);
}

static bool find_row(const struct mib_table *t, void *view, const oid *key,
		     size_t key_len, size_t *row)
{
	oid idx[MAX_OID_LEN];

	if (key_len != t->index_len)
		return false;
	/* The row equal to key is just before the first row after it. */
	*row = first_row_after(t, view, key, key_len);
	if (*row == 0)
		return false;
	(*row)--;
	t->row_index(view, *row, idx);
	return snmp_oid_compare(idx, t->index_len, key, key_len) == 0;
}

/* GET of one varbind; suffix is the part after the group's base. */
static void get_exact(const struct mib_group *g, void *view, netsnmp_variable_list *vb,
		      const oid *sfx, size_t n)
{
	const struct mib_object *o = n > 0 ? find_object(g, sfx[0]) : NULL;
	struct mib_value v;
	size_t row;

	if (o == NULL) {
		snmp_set_var_typed_value(vb, SNMP_NOSUCHOBJECT, NULL, 0);
		return;
	}
	if (o->table == NULL) {
		if (n == 2 && sfx[1] == 0 && o->get(view, &v) == MIB_PRESENT)
			set_value(vb, &v);
		else
			snmp_set_var_typed_value(vb, SNMP_NOSUCHINSTANCE, NULL, 0);
		return;
	}
	if (n < 3 || sfx[1] != 1 || sfx[2] < o->table->min_col || sfx[2] > o->table->max_col) {
		snmp_set_var_typed_value(vb, SNMP_NOSUCHOBJECT, NULL, 0);
		return;
	}
	if (tables_ready(g, view) && find_row(o->table, view, sfx + 3, n - 3, &row) &&
	    o->table->get(view, row, (unsigned)sfx[2], &v) == MIB_PRESENT)
		set_value(vb, &v);
	else
		snmp_set_var_typed_value(vb, SNMP_NOSUCHINSTANCE, NULL, 0);
}

static bool beyond_range(const netsnmp_request_info *r, const oid *cand, size_t len)
{
	return r->range_end_len > 0 &&
	       snmp_oid_compare(cand, len, r->range_end, r->range_end_len) >= 0;
}

/* First row of a column to consider for GETNEXT after name; rows() if none. */
static size_t column_start(const struct mib_table *t, void *view, const oid *prefix,
			   size_t plen, const oid *name, size_t name_len)
{
	if (name_len >= plen && snmp_oid_compare(name, plen, prefix, plen) == 0)
		return first_row_after(t, view, name + plen, name_len - plen);
	if (snmp_oid_compare(prefix, plen, name, name_len) > 0)
		return 0;
	return t->rows(view);
}

/* The next instance of one table after name, if any (and within range). */
static int next_in_table(const struct mib_table *t, void *view, oid *cand, size_t b,
			 netsnmp_request_info *r)
{
	const oid *name = r->requestvb->name;
	size_t name_len = r->requestvb->name_length;
	struct mib_value v;

	cand[b + 1] = 1;
	for (unsigned col = t->min_col; col <= t->max_col; col++) {
		size_t rows = t->rows(view);

		cand[b + 2] = col;
		for (size_t row = column_start(t, view, cand, b + 3, name, name_len);
		     row < rows; row++) {
			t->row_index(view, row, cand + b + 3);
			if (beyond_range(r, cand, b + 3 + t->index_len))
				return -1;
			if (t->get(view, row, col, &v) == MIB_PRESENT) {
				snmp_set_var_objid(r->requestvb, cand, b + 3 + t->index_len);
				set_value(r->requestvb, &v);
				return 1;
			}
		}
	}
	return 0;
}

/* GETNEXT of one varbind: true when answered inside this group. */
static bool get_next(const struct mib_group *g, void *view, netsnmp_request_info *r)
{
	oid cand[MAX_OID_LEN];
	size_t b = g->base_len;
	struct mib_value v;

	memcpy(cand, g->base, b * sizeof(oid));
	for (size_t i = 0; i < g->nobjects; i++) {
		const struct mib_object *o = &g->objects[i];
		int found;

		cand[b] = o->arc;
		if (o->table == NULL) {
			cand[b + 1] = 0;
			if (snmp_oid_compare(cand, b + 2, r->requestvb->name,
					     r->requestvb->name_length) <= 0)
				continue;
			if (beyond_range(r, cand, b + 2))
				return false;
			if (o->get(view, &v) != MIB_PRESENT)
				continue;
			snmp_set_var_objid(r->requestvb, cand, b + 2);
			set_value(r->requestvb, &v);
			return true;
		}
		if (!tables_ready(g, view))
			continue;
		found = next_in_table(o->table, view, cand, b, r);
		if (found != 0)
			return found > 0;
	}
	return false;
}

/* The setter for a SET target, or an error status explaining why not. */
static int find_setter(const struct mib_group *g, void *view, const oid *sfx, size_t n,
		       const struct mib_setter **setter, size_t *idx_off)
{
	const struct mib_object *o = n > 0 ? find_object(g, sfx[0]) : NULL;
	size_t row;

	if (o == NULL)
		return SNMP_ERR_NOCREATION;
	if (o->table == NULL) {
		if (n != 2 || sfx[1] != 0)
			return SNMP_ERR_NOCREATION;
		*setter = o->setter;
		*idx_off = 2;
		return o->setter ? SNMP_ERR_NOERROR : SNMP_ERR_NOTWRITABLE;
	}
	if (n < 3 || sfx[1] != 1 || sfx[2] < o->table->min_col || sfx[2] > o->table->max_col ||
	    !tables_ready(g, view) || !find_row(o->table, view, sfx + 3, n - 3, &row))
		return SNMP_ERR_NOCREATION;
	if (sfx[2] != o->table->writable_col || o->table->setter == NULL)
		return SNMP_ERR_NOTWRITABLE;
	*setter = o->table->setter;
	*idx_off = 3;
	return SNMP_ERR_NOERROR;
}

static void handle_set(const struct mib_group *g, void *view,
		       netsnmp_agent_request_info *reqinfo, netsnmp_request_info *r)
{
	const oid *sfx = r->requestvb->name + g->base_len;
	size_t n = r->requestvb->name_length - g->base_len;
	const struct mib_setter *setter = NULL;
	size_t off = 0;
	struct mib_undo *saved;
	int err = find_setter(g, view, sfx, n, &setter, &off);

	if (err != SNMP_ERR_NOERROR) {
		if (reqinfo->mode == MODE_SET_RESERVE1)
			netsnmp_set_request_error(reqinfo, r, err);
		return;
	}
	switch (reqinfo->mode) {
	case MODE_SET_RESERVE1:
		err = setter->check(sfx + off, n - off, r->requestvb);
		if (err != SNMP_ERR_NOERROR)
			netsnmp_set_request_error(reqinfo, r, err);
		break;
	case MODE_SET_ACTION:
		saved = calloc(1, sizeof(*saved));
		if (saved == NULL) {
			netsnmp_set_request_error(reqinfo, r, SNMP_ERR_RESOURCEUNAVAILABLE);
			break;
		}
		err = setter->apply(sfx + off, n - off, r->requestvb, saved);
		if (err != SNMP_ERR_NOERROR) {
			free(saved);
			netsnmp_set_request_error(reqinfo, r, err);
			break;
		}
		netsnmp_request_add_list_data(r, netsnmp_create_data_list("cm-undo", saved, free));
		break;
	case MODE_SET_UNDO:
		saved = netsnmp_request_get_list_data(r, "cm-undo");
		if (saved != NULL)
			setter->undo(sfx + off, n - off, saved);
		break;
	default: /* RESERVE2, COMMIT, FREE: nothing held, nothing to do */
		break;
	}
}

static bool is_set_mode(int mode)
{
	return mode != MODE_GET && mode != MODE_GETNEXT && mode != MODE_GETBULK;
}

static bool in_group(const struct mib_group *g, const netsnmp_variable_list *vb)
{
	return vb->name_length >= g->base_len &&
	       snmp_oid_compare(vb->name, g->base_len, g->base, g->base_len) == 0;
}

static void serve(const struct mib_group *g, void *view, netsnmp_agent_request_info *reqinfo,
		  netsnmp_request_info *r)
{
	netsnmp_variable_list *vb = r->requestvb;

	if (r->processed)
		return;
	if (reqinfo->mode == MODE_GETNEXT) {
		int how = mib_overread_of(g->base, g->base_len, reqinfo, r);

		if (get_next(g, view, r))
			mib_overread_answered(how, reqinfo, r);
	} else if (!in_group(g, vb))
		snmp_set_var_typed_value(vb, SNMP_NOSUCHOBJECT, NULL, 0);
	else if (reqinfo->mode == MODE_GET)
		get_exact(g, view, vb, vb->name + g->base_len, vb->name_length - g->base_len);
	else
		handle_set(g, view, reqinfo, r);
}

/*
 * An OID's sub-identifiers are 32 bits unsigned, but net-snmp's AgentX
 * parser (seen with Debian 12's 5.9.3) sign-extends those of 2^31 and up
 * into the 64-bit oid type: a GET of cgroup index 2206725082 reached us as
 * 18446744071621309402, matched no row and answered noSuchInstance, and a
 * GETNEXT from such an index skipped the v1-only rows above it. Taking the
 * low 32 bits back is exact: no sub-identifier is larger on the wire.
 */
void mib_oid_unsign(oid *name, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if ((uint64_t)name[i] > 0xffffffffu)
			name[i] = (oid)((uint64_t)name[i] & 0xffffffffu);
}

static void group_serve(const struct mib_group *g, netsnmp_agent_request_info *reqinfo,
			netsnmp_request_info *requests)
{
	void *view = mib_group_view(g);
	netsnmp_request_info *last = requests;

	if (g->set_request != NULL && is_set_mode(reqinfo->mode)) {
		g->set_request(reqinfo, requests);
		goto out;
	}
	if (reqinfo->mode != MODE_SET_UNDO) {
		for (netsnmp_request_info *r = requests; r != NULL; r = r->next)
			serve(g, view, reqinfo, r);
		goto out;
	}
	/* UNDO goes newest first: a request that set one object twice must
	 * end with the value from before the first ACTION, not after it. */
	while (last != NULL && last->next != NULL)
		last = last->next;
	for (netsnmp_request_info *r = last; r != NULL; r = r == requests ? NULL : r->prev)
		serve(g, view, reqinfo, r);
out:
	mib_group_unview(g, view);
}

/* What the group's objects need unless they say otherwise. */
static unsigned group_demand(const struct mib_group *g)
{
	unsigned d = g->demand_now != NULL ? g->demand_now() : g->demand;

	return d != 0 ? d : mib_group_sources(g);
}

unsigned mib_demand_of(const struct mib_group *g, const oid *name, size_t len)
{
	const struct mib_object *o = NULL;
	unsigned d;

	if (len > g->base_len && snmp_oid_compare(name, g->base_len, g->base, g->base_len) == 0)
		o = find_object(g, name[g->base_len]);
	d = o != NULL && o->demand != 0 ? o->demand : group_demand(g);
	return d & MIB_DEMAND_NONE ? 0 : d;
}

unsigned mib_group_demand(const struct mib_group *g)
{
	unsigned d = 0, gd = group_demand(g);

	for (size_t i = 0; i < g->nobjects; i++)
		d |= g->objects[i].demand != 0 ? g->objects[i].demand : gd;
	return d & ~MIB_DEMAND_NONE;
}

/* A delegated request's answer (defer.h), once its sources sampled. */
static void answer_later(const void *ctx, netsnmp_agent_request_info *reqinfo,
			 netsnmp_request_info *requests)
{
	group_serve(ctx, reqinfo, requests);
}

/*
 * The GET net-snmp runs first for an AgentX GetNext with an inclusive
 * range (agent/snmp_agent.c, handle_pdu: mode GET, the PDU still a
 * GETNEXT or GETBULK), as when a walk crosses into a subtree of ours from
 * another registration (clustermon.so's gaps, a split the module's
 * registrations left). A request delegated in that pass is finished, once
 * answered, as a GET: check_delayed_request walks on only in GETNEXT and
 * GETBULK mode, so the master got that pass's noSuchObject, or a varbind's
 * own name back, as the next instance, and the client's walk stopped. The
 * pass answers nothing it keeps but an inclusive start that is an instance
 * itself, which none of ours is (they are subtrees); everything else is
 * asked again in the GETNEXT pass, which demands and may wait.
 */
static bool inclusive_get_pass(const netsnmp_agent_request_info *reqinfo)
{
	return reqinfo->mode == MODE_GET && reqinfo->asp != NULL && reqinfo->asp->pdu != NULL &&
	       reqinfo->asp->pdu->command != SNMP_MSG_GET;
}

static int group_handler(netsnmp_mib_handler *handler, netsnmp_handler_registration *reg,
			 netsnmp_agent_request_info *reqinfo, netsnmp_request_info *requests)
{
	const struct mib_group *g = handler->myvoid;
	struct mib_samples before;
	unsigned need = 0, woken;

	/* What a walk reads past the end of what it asked for is served from
	 * the last sample and wakes nothing (overread.c). */
	for (netsnmp_request_info *r = requests; r != NULL; r = r->next) {
		mib_oid_unsign(r->requestvb->name, r->requestvb->name_length);
		if (mib_overread_of(g->base, g->base_len, reqinfo, r) == MIB_OVERREAD_NONE)
			need |= mib_demand_of(g, r->requestvb->name, r->requestvb->name_length);
	}
	if (!is_set_mode(reqinfo->mode) && !inclusive_get_pass(reqinfo) && need != 0) {
		mib_samples_now(need, &before);
		woken = sampler_demand(need, 0);
		if (woken != 0 &&
		    mib_defer(answer_later, g, handler, reg, reqinfo, requests, woken, &before) == 0)
			return SNMP_ERR_NOERROR;
	}
	group_serve(g, reqinfo, requests);
	return SNMP_ERR_NOERROR;
}

#define MAX_GROUPS 32
static const struct mib_group *registered[MAX_GROUPS];
static size_t nregistered;

int mib_group_register(const struct mib_group *g)
{
	netsnmp_handler_registration *reg;

	if (nregistered == MAX_GROUPS)
		return -1;
	registered[nregistered++] = g;

	reg = netsnmp_create_handler_registration(g->name, group_handler, g->base,
						  g->base_len, HANDLER_CAN_RWRITE);
	if (reg == NULL)
		return -1;
	reg->handler->myvoid = (void *)(uintptr_t)g;
	return netsnmp_register_handler(reg) == MIB_REGISTERED_OK ? 0 : -1;
}

const struct mib_group *mib_group_nth(size_t i)
{
	return i < nregistered ? registered[i] : NULL;
}

static const struct mib_group *group_of(const oid *name, size_t len)
{
	for (size_t i = 0; i < nregistered; i++) {
		const struct mib_group *g = registered[i];

		if (len > g->base_len && snmp_oid_compare(name, g->base_len, g->base,
							  g->base_len) == 0)
			return g;
	}
	return NULL;
}

bool mib_instance_shape_ok(const oid *name, size_t len)
{
	const struct mib_group *g = group_of(name, len);
	const struct mib_object *o;
	const oid *sfx;
	size_t n;

	if (g == NULL)
		return false;
	sfx = name + g->base_len;
	n = len - g->base_len;
	o = find_object(g, sfx[0]);
	if (o == NULL)
		return false;
	if (o->table == NULL)
		return n == 2 && sfx[1] == 0;
	return n == 3 + o->table->index_len && sfx[1] == 1 && sfx[2] >= o->table->min_col &&
	       sfx[2] <= o->table->max_col;
}

static bool numeric_type(u_char type)
{
	switch (type) {
	case ASN_INTEGER: case ASN_COUNTER: case ASN_GAUGE: case ASN_TIMETICKS:
	case ASN_COUNTER64:
		return true; /* ASN_UNSIGNED is ASN_GAUGE */
	default:
		return false;
	}
}

enum mib_read_rc mib_read_number(const oid *name, size_t len, uint64_t *out)
{
	return mib_read_number_every(name, len, out, 0);
}

enum mib_read_rc mib_read_number_every(const oid *name, size_t len, uint64_t *out,
				       uint32_t every_ms)
{
	const struct mib_group *g = group_of(name, len);
	netsnmp_variable_list vb;
	enum mib_read_rc rc;
	unsigned need;
	void *view;

	if (g == NULL)
		return MIB_READ_ABSENT;
	/* No waiting here: the first read after an idle spell sees the last
	 * sample; the ones after it, every_ms apart, keep the source going. */
	need = mib_demand_of(g, name, len);
	if (need != 0 && every_ms != 0)
		sampler_demand(need, (2ull * every_ms + 1000u) * 1000000u);
	memset(&vb, 0, sizeof(vb));
	view = mib_group_view(g);
	get_exact(g, view, &vb, name + g->base_len, len - g->base_len);
	mib_group_unview(g, view);
	rc = MIB_READ_OK;
	if (vb.type == SNMP_NOSUCHOBJECT || vb.type == SNMP_NOSUCHINSTANCE)
		rc = MIB_READ_ABSENT;
	else if (!numeric_type(vb.type))
		rc = MIB_READ_NOT_NUMERIC;
	else if (vb.type == ASN_COUNTER64)
		*out = ((uint64_t)vb.val.counter64->high << 32) |
		       (vb.val.counter64->low & 0xffffffffu);
	else if (vb.type == ASN_INTEGER) /* our INTEGERs are never negative */
		*out = (uint64_t)(uint32_t)*vb.val.integer;
	else
		*out = (uint32_t)*vb.val.integer;
	snmp_free_var_internals(&vb);
	return rc;
}

const char *mib_parse_instance(const char *text, oid *name, size_t *len)
{
	*len = MAX_OID_LEN;
	if (snmp_parse_oid(text, name, len) == NULL)
		return "unknown object (give a numeric OID, or load CLUSTER-MON-MIB)";
	if (!mib_instance_shape_ok(name, *len))
		return "not an instance of an object clustermond serves";
	return NULL;
}

int mib_log2_bucket(struct mib_value *v, unsigned which, const struct log2hist *shape,
		    unsigned b, uint64_t count)
{
	switch (which) {
	case 0: return mib_u64(v, ASN_COUNTER64, log2hist_low(shape, b));
	case 1: return mib_u64(v, ASN_COUNTER64, log2hist_high(shape, b));
	case 2: return mib_u64(v, ASN_COUNTER64, count);
	default: return MIB_ABSENT;
	}
}
