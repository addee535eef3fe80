/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fuzz_set.c - SET requests (and some GET and GETNEXT) on every writable
 * object of CLUSTER-MON-MIB, through net-snmp's own request processing.
 * The agent library runs in-process as a master agent, as in Net-SNMP's
 * agent end-to-end fuzzer: no AgentX, no socket; clustermond's groups are
 * registered as main.c does, the sources' snapshots are taken once from
 * the fixture trees, and the probe source points at a helper socket that
 * does not exist (the sampler never runs here: activating a probe row
 * only queues it for the source, which would find no helper).
 *
 * An input is a list of requests (see next_request): the fuzzer chooses
 * table, column, row, type and value, so rows go through every RowStatus
 * transition. An object of "another subagent" in the same request can fail
 * RESERVE2 or ACTION, so our handlers also see FREE and UNDO after their
 * own phases succeeded, as an AgentX master sends them.
 *
 * Besides crashes and leaks, every request is held to: one response that
 * parses back, with as many varbinds as asked; a valid error-status and
 * index; a SET that fails leaves every writable column as it was (GETNEXT
 * walks before and after); and GETNEXT always moves forward. Rows made by an input
 * are destroyed with SETs after it, and the next input starts from the
 * same walk as the first.
 */
#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>
#include <net-snmp/agent/net-snmp-agent-includes.h>

#include <dirent.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conf.h"
#include "mib/mib.h"
#include "runtime/sampler.h"
#include "sources/probes.h"
#include "sources/cpu.h"
#include "sources/mem.h"
#include "sources/pcap.h"
#include "sources/proc.h"
#include "sources/sources.h"
#include "setvalues.h"

#ifndef FUZZ_TOP
#define FUZZ_TOP "."
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define APP "clustermond"
#define MAX_REQUESTS 40
#define MAX_VARBINDS 10

/* clusterMonConformance.0: the other subagent's object, next to ours. */
static const oid other_oid[] = { CM_OID_clusterMonConformance };

static void fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "fuzz_set: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	abort();
}

/* ------------------------------------------------------------ targets */

/* A table (objects.group.arc.1.col.index) or scalars (objects.group.col.0);
 * types[c] is what column or scalar c holds, for well-typed values. */
struct target {
	unsigned group, arc, ncols, index_len;
	u_char types[17];
};

#define T_I ASN_INTEGER
#define T_U ASN_UNSIGNED
#define T_S ASN_OCTET_STR
#define T_O ASN_OBJECT_ID
#define T_C ASN_COUNTER64
static const struct target targets[] = {
	/* clusterMonSourceTable: IntervalMs (3) */
	{ 2, 1, 9, 1, { T_I, T_I, T_S, T_U, T_U, T_C, T_C, T_C, T_I } },
	/* clusterMonProcFilterName (2), Uid (3), Top (4) */
	{ 5, 0, 7, 1, { T_I, T_I, T_S, T_I, T_U, T_U, T_I } },
	/* clusterMonProbeTable */
	{ 8, 1, 14, 1, { T_I, T_I, T_S, T_I, T_I, T_U, T_C, T_C, T_C, T_I, T_S, T_I, T_I, T_I } },
	/* clusterMonThresholdTable */
	{ 11, 1, 14, 1, { T_I, T_I, T_O, T_I, T_U, T_S, T_S, T_I, T_C, T_I, T_I, T_I, T_S, T_I } },
	/* clusterMonHistoryCtlTable */
	{ 10, 1, 10, 1, { T_I, T_I, T_O, T_U, T_U, T_U, T_S, T_I, T_I, T_I } },
	/* clusterMonHistoryTable and clusterMonProbeCpuTable: read-only */
	{ 10, 2, 8, 2, { T_I, T_I, T_I, T_U, T_C, T_C, T_C, T_C } },
	{ 8, 2, 4, 2, { T_I, T_I, T_C, T_I } },
	/* clusterMonDistTable (in clusterMonDistributions) */
	{ 9, 3, 17, 1, { T_I, T_I, T_S, T_I, T_I, T_U, T_S, T_U, T_U, T_C, T_C, T_C, T_I, T_S,
			 T_I, T_I, T_I } },
	/* clusterMonTraceTable (in clusterMonTraces): Spec (2) to RowStatus (10) */
	{ 12, 1, 17, 1, { T_I, T_I, T_S, T_I, T_I, T_U, T_U, T_U, T_U, T_I, T_I, T_S, T_C, T_C,
			  T_C, T_I, T_S } },
};
#define NTARGETS (sizeof(targets) / sizeof(targets[0]))

/* Index byte: 0xF0..0xF5 make odd shapes, anything else row 0..7 (0 is
 * never a valid row, 1..7 collide often enough to revisit rows). */
static size_t add_index(oid *name, size_t n, unsigned idx, const struct target *t)
{
	static const oid odd[] = { 65535, 65536, 4294967295u, 0 };

	if (idx == 0xF0)
		return n;
	if (idx >= 0xF2 && idx <= 0xF5) {
		name[n++] = odd[idx - 0xF2];
		return n;
	}
	name[n++] = t->arc == 0 ? 0 : idx % 8;
	for (unsigned i = 1; i < t->index_len; i++)
		name[n++] = 1;
	if (idx == 0xF1)
		name[n++] = 1;
	return n;
}

/* TARGET COLUMN INDEX: the name; *type is the column's own type (NULL
 * for names outside the tables). */
static size_t build_name(struct input *in, oid *name, u_char *type)
{
	unsigned sel = take(in) % (NTARGETS + 2), col = take(in), idx = take(in);
	const struct target *t;
	size_t n = OBJ_LEN;

	memcpy(name, objects, sizeof(objects));
	*type = ASN_INTEGER;
	if (sel == NTARGETS) { /* anywhere in clusterMonObjects */
		name[n++] = col % 14;
		name[n++] = idx >> 4;
		name[n++] = idx & 15;
		return n;
	}
	if (sel == NTARGETS + 1) { /* the other subagent */
		memcpy(name, other_oid, sizeof(other_oid));
		name[OID_LENGTH(other_oid)] = 0;
		return OID_LENGTH(other_oid) + 1;
	}
	t = &targets[sel];
	col %= t->ncols;
	*type = t->types[col];
	name[n++] = t->group;
	if (t->arc != 0) {
		name[n++] = t->arc;
		name[n++] = 1;
	}
	name[n++] = col;
	return add_index(name, n, idx, t);
}

static netsnmp_pdu *new_pdu(int command)
{
	netsnmp_pdu *pdu = snmp_pdu_create(command);

	pdu->version = SNMP_VERSION_2c;
	pdu->community = (u_char *)strdup("fuzz");
	pdu->community_len = 4;
	/* Access control is not what is tested: every object is in view. */
	pdu->flags |= UCD_MSG_FLAG_ALWAYS_IN_VIEW;
	return pdu;
}

/* OP NVB VARBIND...: OP 0..5 (mod 8) is a SET, 6 a GET, 7 a GETNEXT; NVB
 * gives 1..MAX_VARBINDS varbinds, each TARGET COLUMN INDEX TYPE VALUE
 * (a GET or GETNEXT reads the type and value bytes and ignores them). */
static netsnmp_pdu *next_request(struct input *in)
{
	unsigned op = take(in) % 8, nvb = 1 + take(in) % MAX_VARBINDS;
	int command = op < 6 ? SNMP_MSG_SET : op == 6 ? SNMP_MSG_GET : SNMP_MSG_GETNEXT;
	netsnmp_pdu *pdu = new_pdu(command);
	netsnmp_pdu *ignored = snmp_pdu_create(SNMP_MSG_GET);
	oid name[MAX_OID_LEN];

	for (unsigned i = 0; i < nvb; i++) {
		u_char own;
		size_t len = build_name(in, name, &own);

		add_value(command == SNMP_MSG_SET ? pdu : ignored, name, len, own, in);
		if (command != SNMP_MSG_SET)
			snmp_add_null_var(pdu, name, len);
	}
	snmp_free_pdu(ignored);
	return pdu;
}

/* ------------------------------------------------------------ the agent */

/* The "session" the requests come in on: the agent sends its response
 * through this transport, which parses it back into response. */
static netsnmp_session *session;
static bool trace; /* FUZZ_SET_TRACE set: print every request and its outcome */
static netsnmp_pdu *response;
static unsigned responses;
static u_char packet[1 << 16];

static int capture_send(netsnmp_transport *t, const void *buf, int len, void **opaque,
			int *olen)
{
	netsnmp_pdu *pdu = calloc(1, sizeof(*pdu));

	(void)t, (void)opaque, (void)olen;
	responses++;
	if (pdu == NULL || len <= 0 || (size_t)len > sizeof(packet))
		fail("response of %d bytes", len);
	memcpy(packet, buf, (size_t)len);
	if (snmp_parse(snmp_sess_pointer(session), session, pdu, packet, (size_t)len) != 0)
		fail("the response does not parse back");
	snmp_free_pdu(response);
	response = pdu;
	return len;
}

static int capture_close(netsnmp_transport *t)
{
	(void)t;
	return 0;
}

static void open_session(void)
{
	netsnmp_transport *t = calloc(1, sizeof(*t));
	netsnmp_session s;

	if (t == NULL)
		fail("out of memory");
	t->sock = -1;
	t->msgMaxSize = sizeof(packet);
	t->f_send = capture_send;
	t->f_close = capture_close;
	t->flags = NETSNMP_TRANSPORT_FLAG_OPENED;
	snmp_sess_init(&s);
	s.version = SNMP_VERSION_2c;
	session = snmp_add(&s, t, NULL, NULL);
	if (session == NULL)
		fail("cannot add the in-process session");
}

/* One request through the agent, as if it came in on session: the
 * response (the caller frees it). */
static netsnmp_pdu *exchange(netsnmp_pdu *req)
{
	netsnmp_pdu *r;
	size_t asked = 0, got = 0;

	responses = 0;
	handle_snmp_packet(NETSNMP_CALLBACK_OP_RECEIVED_MESSAGE, session, req->reqid, req, NULL);
	if (responses != 1 || response == NULL)
		fail("%u responses to a request (command %d)", responses, req->command);
	r = response;
	response = NULL;
	if (trace) {
		fprintf(stderr, "%s: error-status %ld index %ld\n",
			req->command == SNMP_MSG_SET ? "SET" : req->command == SNMP_MSG_GET ? "GET" :
			"GETNEXT", r->errstat, r->errindex);
		for (netsnmp_variable_list *v = r->variables; v; v = v->next_variable)
			fprint_variable(stderr, v->name, v->name_length, v);
	}
	for (netsnmp_variable_list *v = req->variables; v; v = v->next_variable)
		asked++;
	for (netsnmp_variable_list *v = r->variables; v; v = v->next_variable)
		got++;
	if (got != asked)
		fail("%zu varbinds asked, %zu in the response", asked, got);
	if (r->errstat < 0 || r->errstat > SNMP_ERR_INCONSISTENTNAME ||
	    r->errindex < 0 || (size_t)r->errindex > asked)
		fail("error-status %ld, index %ld of %zu", r->errstat, r->errindex, asked);
	if ((r->errstat != 0) != (r->errindex != 0))
		fail("error-status %ld with index %ld", r->errstat, r->errindex);
	if (req->command != SNMP_MSG_SET && r->errstat != 0)
		fail("a read answered error-status %ld", r->errstat);
	return r;
}

/* Another subagent's object in the same request: a value of 2 fails its
 * RESERVE2 and 1 its ACTION, after clustermond's handlers passed theirs. */
static int other_handler(netsnmp_mib_handler *handler, netsnmp_handler_registration *reg,
			 netsnmp_agent_request_info *reqinfo, netsnmp_request_info *requests)
{
	static const long zero = 0;

	(void)handler, (void)reg;
	for (netsnmp_request_info *r = requests; r != NULL; r = r->next) {
		const netsnmp_variable_list *v = r->requestvb;
		long want = v->type == ASN_INTEGER ? *v->val.integer : 0;

		if (reqinfo->mode == MODE_GET)
			snmp_set_var_typed_value(r->requestvb, ASN_INTEGER, &zero, sizeof(zero));
		else if (reqinfo->mode == MODE_SET_RESERVE1 && v->type != ASN_INTEGER)
			netsnmp_set_request_error(reqinfo, r, SNMP_ERR_WRONGTYPE);
		else if (reqinfo->mode == MODE_SET_RESERVE2 && want == 2)
			netsnmp_set_request_error(reqinfo, r, SNMP_ERR_RESOURCEUNAVAILABLE);
		else if (reqinfo->mode == MODE_SET_ACTION && want == 1)
			netsnmp_set_request_error(reqinfo, r, SNMP_ERR_COMMITFAILED);
	}
	return SNMP_ERR_NOERROR;
}

static void register_other(void)
{
	netsnmp_handler_registration *reg = netsnmp_create_handler_registration(
		"fuzzOther", other_handler, other_oid, OID_LENGTH(other_oid), HANDLER_CAN_RWRITE);

	if (reg == NULL || netsnmp_register_scalar(reg) != MIB_REGISTERED_OK)
		fail("cannot register the other subagent's object");
}

/* ------------------------------------------------------------ walks */

struct column {
	unsigned group, arc, col;
};

/* Every writable column and scalar, and the RowStatus columns. */
static const struct column writable[] = {
	{ 2, 1, 3 }, { 5, 0, 2 }, { 5, 0, 3 }, { 5, 0, 4 },
	{ 8, 1, 2 }, { 8, 1, 3 }, { 8, 1, 4 }, { 8, 1, 5 }, { 8, 1, 11 }, { 8, 1, 12 },
	{ 11, 1, 2 }, { 11, 1, 3 }, { 11, 1, 4 }, { 11, 1, 5 }, { 11, 1, 6 }, { 11, 1, 7 },
	{ 11, 1, 10 }, { 11, 1, 11 }, { 11, 1, 12 },
	{ 10, 1, 2 }, { 10, 1, 3 }, { 10, 1, 4 }, { 10, 1, 6 }, { 10, 1, 7 }, { 10, 1, 8 },
	{ 12, 1, 2 }, { 12, 1, 3 }, { 12, 1, 4 }, { 12, 1, 5 }, { 12, 1, 6 }, { 12, 1, 7 },
	{ 12, 1, 8 }, { 12, 1, 9 }, { 12, 1, 10 },
};
#define NWRITABLE (sizeof(writable) / sizeof(writable[0]))
static const struct column statuses[] = { { 8, 1, 12 }, { 11, 1, 11 }, { 10, 1, 8 },
						{ 12, 1, 10 } };
#define NSTATUSES (sizeof(statuses) / sizeof(statuses[0]))

static size_t column_prefix(const struct column *c, oid *out)
{
	size_t n = OBJ_LEN;

	memcpy(out, objects, sizeof(objects));
	out[n++] = c->group;
	if (c->arc != 0) {
		out[n++] = c->arc;
		out[n++] = 1;
	}
	out[n++] = c->col;
	return n;
}

typedef void visit_fn(size_t col, const netsnmp_variable_list *v, void *arg);

struct cursor {
	oid name[MAX_OID_LEN];
	size_t len;
	bool live;
};

/* Moves one column's cursor to what GETNEXT gave; false at its end. */
static bool advance(const struct column *c, struct cursor *cur, const netsnmp_variable_list *v)
{
	oid prefix[MAX_OID_LEN];
	size_t plen = column_prefix(c, prefix);

	if (v->type == SNMP_ENDOFMIBVIEW || v->type == SNMP_NOSUCHOBJECT ||
	    v->type == SNMP_NOSUCHINSTANCE || v->name_length <= plen ||
	    snmp_oid_compare(v->name, plen, prefix, plen) != 0)
		return false;
	if (snmp_oid_compare(v->name, v->name_length, cur->name, cur->len) <= 0)
		fail("GETNEXT did not move forward");
	memcpy(cur->name, v->name, v->name_length * sizeof(oid));
	cur->len = v->name_length;
	return true;
}

/* GETNEXT walks of columns side by side (one request per row), giving
 * every instance found to visit. */
static void walk(const struct column *cols, size_t ncols, visit_fn *visit, void *arg)
{
	static struct cursor cur[NWRITABLE];
	size_t live = ncols;

	for (size_t i = 0; i < ncols; i++) {
		cur[i].len = column_prefix(&cols[i], cur[i].name);
		cur[i].live = true;
	}
	for (unsigned round = 0; live > 0; round++) {
		netsnmp_pdu *req = new_pdu(SNMP_MSG_GETNEXT), *resp;
		const netsnmp_variable_list *v;

		if (round > 100000)
			fail("a walk does not end");
		for (size_t i = 0; i < ncols; i++)
			if (cur[i].live)
				snmp_add_null_var(req, cur[i].name, cur[i].len);
		resp = exchange(req);
		v = resp->variables;
		for (size_t i = 0; i < ncols; i++) {
			if (!cur[i].live)
				continue;
			if (advance(&cols[i], &cur[i], v))
				visit(i, v, arg);
			else
				cur[i].live = false, live--;
			v = v->next_variable;
		}
		snmp_free_pdu(req);
		snmp_free_pdu(resp);
	}
}

/* A walk of the writable columns, flattened for comparison. */
struct flat {
	u_char *buf;
	size_t len, cap;
};

static void append(struct flat *f, const void *p, size_t n)
{
	if (f->len + n > f->cap) {
		size_t cap = f->len + n + 65536;
		u_char *buf = realloc(f->buf, cap);

		if (buf == NULL)
			fail("out of memory");
		f->buf = buf;
		f->cap = cap;
	}
	memcpy(f->buf + f->len, p, n);
	f->len += n;
}

static void flatten(size_t col, const netsnmp_variable_list *v, void *arg)
{
	struct flat *f = arg;

	append(f, &col, sizeof(col));
	append(f, &v->name_length, sizeof(v->name_length));
	append(f, v->name, v->name_length * sizeof(oid));
	append(f, &v->type, sizeof(v->type));
	append(f, &v->val_len, sizeof(v->val_len));
	append(f, v->val.string, v->val_len);
}

static void snapshot_walk(struct flat *f)
{
	f->len = 0;
	walk(writable, NWRITABLE, flatten, f);
}

static bool same_walk(const struct flat *a, const struct flat *b)
{
	return a->len == b->len && memcmp(a->buf, b->buf, a->len) == 0;
}

/* ------------------------------------------------------------ reset */

static void add_destroy(size_t col, const netsnmp_variable_list *v, void *arg)
{
	netsnmp_pdu **req = arg;
	const long destroy = 6;

	if (req[col] == NULL)
		req[col] = new_pdu(SNMP_MSG_SET);
	snmp_pdu_add_variable(req[col], v->name, v->name_length, ASN_INTEGER, &destroy,
			      sizeof(destroy));
}

/* The configuration every input starts from (the helperSocket names a
 * socket nobody listens on). */
static struct sources_conf pristine_conf = { .proc_filter = { .uid = -1 } };

/* Back to the start: every row made is destroyed through SET (so what a
 * failed request left pending goes the way the code lets it go), and the
 * scalars are put back directly. */
static void reset(void)
{
	netsnmp_pdu *req[NSTATUSES] = { NULL }, *resp;

	walk(statuses, NSTATUSES, add_destroy, req);
	for (size_t i = 0; i < NSTATUSES; i++) {
		if (req[i] == NULL)
			continue;
		resp = exchange(req[i]);
		if (resp->errstat != 0)
			fail("destroying rows failed: error-status %ld", resp->errstat);
		snmp_free_pdu(req[i]);
		snmp_free_pdu(resp);
	}
	sampler_configure(&pristine_conf);
	mib_proc_configure(&pristine_conf.proc_filter);
}

/* ------------------------------------------------------------ setup */

static char dir[32];
static struct flat pristine, state, after;

static void remove_dir(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[sizeof(dir) + 256];

	while (d != NULL && (e = readdir(d)) != NULL) {
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (e->d_name[0] != '.')
			unlink(path);
	}
	if (d != NULL)
		closedir(d);
	rmdir(dir);
	free(pristine.buf);
	free(state.buf);
	free(after.buf);
}

/* One sample of a source on a fixture tree, published for the MIB. */
static void sample_fixture(const struct source_ops *ops, const char *root)
{
	void *ctx = ops->init(root);

	if (ctx == NULL || ops->sample(ctx) != 0)
		fail("cannot sample %s under %s", ops->name, root);
	ops->fini(ctx);
}

static void add_sources(void)
{
	const char *basic = FUZZ_TOP "/tests/fixtures/proc-basic";
	const char *procs = FUZZ_TOP "/tests/fixtures/proc-procs";

	/* No tcp source: it would open a netlink socket. */
	if (sampler_add(&cpu_source_ops, basic) != 0 ||
	    sampler_add(&mem_source_ops, basic) != 0 ||
	    sampler_add(&proc_source_ops, procs) != 0 ||
	    sampler_add(&pcap_source_ops, "") != 0 ||
	    sampler_add(&probes_source_ops, "") != 0)
		fail("cannot add the sources on %s", basic);
	sample_fixture(&cpu_source_ops, basic);
	sample_fixture(&mem_source_ops, basic);
	sample_fixture(&proc_source_ops, procs);
	/* No helper listens here. */
	snprintf(pristine_conf.helper_socket, sizeof(pristine_conf.helper_socket),
		 "%s/kprobe.sock", dir);
	sampler_configure(&pristine_conf);
}

static void setup(void)
{
	if (session != NULL)
		return;
	snmp_disable_log();
	trace = getenv("FUZZ_SET_TRACE") != NULL;
	/* Saving nonVolatile rows fsyncs: in memory if there is a tmpfs. */
	strcpy(dir, "/dev/shm/fuzz_set.XXXXXX");
	if (mkdtemp(dir) == NULL) {
		strcpy(dir, "/tmp/fuzz_set.XXXXXX");
		if (mkdtemp(dir) == NULL)
			fail("cannot make %s", dir);
	}
	atexit(remove_dir);
	/* nonVolatile rows are saved here, not under /var/lib/snmp. */
	netsnmp_ds_set_string(NETSNMP_DS_LIBRARY_ID, NETSNMP_DS_LIB_PERSISTENT_DIR, dir);
	init_agent(APP);
	conf_init();
	add_sources();
	if (mib_register_all() != 0)
		fail("cannot register CLUSTER-MON-MIB groups");
	register_other();
	open_session();
	values_init();
	snapshot_walk(&pristine);
}

/* ------------------------------------------------------------ one input */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input in = { data, size };
	bool known = true; /* state is the walk of the current state */

	setup();
	snapshot_walk(&state);
	if (!same_walk(&state, &pristine))
		fail("the previous input's changes were not all undone");
	for (unsigned k = 0; k < MAX_REQUESTS && in.n > 0; k++) {
		netsnmp_pdu *req = next_request(&in), *resp;

		if (req->command == SNMP_MSG_SET && !known) {
			snapshot_walk(&state);
			known = true;
		}
		resp = exchange(req);
		if (req->command == SNMP_MSG_SET && resp->errstat == 0) {
			known = false;
		} else if (req->command == SNMP_MSG_SET) {
			snapshot_walk(&after);
			if (!same_walk(&state, &after))
				fail("a SET that failed (error-status %ld, index %ld) changed "
				     "writable columns", resp->errstat, resp->errindex);
		}
		snmp_free_pdu(req);
		snmp_free_pdu(resp);
	}
	reset();
	return 0;
}

#ifdef FUZZ_SMOKE_MAIN
/* Whole varbinds: createAndGo, createAndWait, active, destroy on row 1
 * of the threshold, history, probe and trace tables; anywhere in
 * clusterMonObjects. */
static const char *const fuzz_splices[] = {
	"\x03\x0b\x01\x01\x04", "\x03\x0b\x01\x01\x05", "\x03\x0b\x01\x01\x01",
	"\x04\x08\x01\x01\x04", "\x04\x08\x01\x01\x06", "\x02\x0c\x01\x01\x05",
	"\x02\x0c\x01\x01\x01", "\x09\x01\x01\x01\x01", "\x09\x01\x01\x01\x02",
	"\x08\x0a\x01\x01\x04", "\x08\x0a\x01\x01\x05", "\x08\x0a\x01\x01\x06",
	"\x01", "\x05", "\xf0", "\xff",
};
static const size_t fuzz_nsplices = sizeof(fuzz_splices) / sizeof(fuzz_splices[0]);
static const char *const fuzz_seeds[] = {
	"set/thresholds.bin", "set/history.bin", "set/probes.bin", "set/scalars.bin",
	"set/dists.bin", "set/traces.bin",
	"set/all.bin",
};
static const size_t fuzz_nseeds = sizeof(fuzz_seeds) / sizeof(fuzz_seeds[0]);
/* Each input is up to a dozen requests and as many walks: 20,000 would
 * take minutes under the sanitizers. */
#define MUTATIONS 1000
#include "smoke.h"
#endif
