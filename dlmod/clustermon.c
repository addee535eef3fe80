/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * clustermon.c - clustermon.so, the fast read path: an snmpd module that
 * answers GET, GETNEXT and GETBULK for clustermond's read-only objects from
 * the image clustermond publishes (image/image.h), inside snmpd,
 * without an AgentX exchange per varbind.
 *
 *   snmpd.conf:  dlmod clustermon /usr/lib/x86_64-linux-gnu/snmp/dlmod/clustermon.so
 *                clustermonSnapshot /run/clustermon/snapshot/image
 *
 * It registers the subtrees the image names (read-only objects only, all
 * under clusterMonObjects, more specific than the subagent's groups), so
 * SETs, read-create tables and everything else still reach clustermond over
 * AgentX. While the image is stale (clustermond stopped, hung or gone) it
 * answers nothing and, at the next check, unregisters, so the subagent's
 * own registrations (if any) answer again.
 *
 * A source nobody reads sleeps, so a section's rows may be older than one
 * interval; the header says whether clustermond holds them fresh
 * (image/image.h). A read of a section that is not held is delegated inside
 * snmpd (snmpd goes on with other requests): the module writes a wake into
 * its demand record at once and answers, from an alarm that looks at the
 * image every POLL_US, when clustermond says the section holds samples
 * taken since, or after CM_IMAGE_WAIT_MAX_MS with what the image has.
 *
 * The image is untrusted input, and so is the file: whoever can write it
 * may cut, grow, replace or scribble over it at any moment. The module
 * never maps it (a load from a page cut away would be SIGBUS in snmpd): it
 * copies the small header with pread at each request and each section into
 * its own memory when the section's sequence number moved on
 * (image/image.c), and checks every count, offset and length against what
 * it read. A short read makes the image invalid until the file is replaced.
 * It only reads, on snmpd's one thread, and writes nothing but its demand
 * record (below), never waiting for either. It opens only a
 * regular file at the path itself (O_NOFOLLOW), owned by root or
 * clustermond's user (clustermonSnapshotOwner, default clustermon) and
 * writable by that owner alone, and holds at most CM_IMAGE_MAX_READER_BYTES
 * of it; a refusal is logged once, with its reason.
 */
#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>
#include <net-snmp/agent/net-snmp-agent-includes.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "image/image.h"
#include "mib/cm-oids.h"

#define DEFAULT_IMAGE "/run/clustermon/snapshot/image"
/* Who may own the image besides root: the user clustermond runs as
 * (clustermonSnapshotOwner says another). */
#define DEFAULT_OWNER "clustermon"
#define CHECK_SECONDS 1
#define RETRY_NS 20000000 /* a deferred change of registrations: 20 ms */
/* How often a delegated read looks whether its section was answered. */
#define POLL_US 2000
#define WAIT_MAX_NS ((uint64_t)CM_IMAGE_WAIT_MAX_MS * 1000000u)
/* After a wait clustermond did not answer, the section is served as it is
 * for this long, so a walk does not wait at every request. */
#define GIVE_UP_NS 5000000000ull

/*
 * snmpd's requests waiting for an AgentX subagent (libnetsnmpagent exports
 * it; no header declares it). Such a request keeps pointers into the
 * registry: the subtree (and its handler) each varbind was last given to
 * and the end of that subtree's range. Unregistering frees those subtrees
 * and registering splits the subagent's subtree (freeing its old end), so
 * when the answer came back snmpd would go on from freed memory. The
 * registrations therefore change only while no request is waiting.
 */
extern netsnmp_agent_session *agent_delegated_list;

/* snmpd finds these two by name; everything else stays inside. */
__attribute__((visibility("default"))) void init_clustermon(void);
__attribute__((visibility("default"))) void deinit_clustermon(void);
static void close_image(void);
static bool refresh(void);
static bool owner_ok(uid_t uid);

/* clusterMonObjects: the image may name subtrees under it only. */
static const uint32_t root[] = { CM_OID_clusterMonObjects };
#define ROOT_LEN (sizeof(root) / sizeof(root[0]))

/* A request delegated until its section holds samples newer than a wake. */
struct waiter {
	struct waiter *next;
	netsnmp_delegated_cache *cache;
	const struct cm_image_reg *r;   /* into M.reg: unchanged while it waits */
	uint64_t wake_ns;
};

static struct {
	char path[PATH_MAX];
	char owner[64];
	int fd;
	dev_t dev;
	ino_t ino;
	struct cm_image_reader r;
	struct cm_image_reg reg[CM_IMAGE_MAX_REGS];
	netsnmp_handler_registration *handle[CM_IMAGE_MAX_REGS];
	unsigned nregs;
	/* The demand record (image/image.h): what it last said, and its file. */
	struct cm_image_demand told;
	uint64_t reads[CM_IMAGE_MAX_SECTIONS];   /* requests answered from each */
	uint64_t wake_ns[CM_IMAGE_MAX_SECTIONS]; /* our last wake of each */
	uint64_t gave_up_ns[CM_IMAGE_MAX_SECTIONS]; /* its last unanswered wait */
	int demand_fd;
	dev_t demand_dev;
	ino_t demand_ino;
	struct waiter *waiting;
	unsigned poll;   /* the alarm of the waiting requests, 0 when none */
	unsigned alarm;
	unsigned retry;  /* the alarm of a deferred change, 0 when none */
	bool told_big;   /* this file's too_big was logged */
	bool told_demand; /* the demand file's refusal was logged */
} M = { .path = DEFAULT_IMAGE, .owner = DEFAULT_OWNER, .fd = -1, .demand_fd = -1 };

/* ------------------------------------------------------------ answers */

static int set_value(netsnmp_variable_list *vb, const struct cm_image_value *v)
{
	oid ids[CM_IMAGE_MAX_VAL / 4];
	struct counter64 c64;
	uint64_t n = 0;
	uint32_t u32;
	int32_t i32;

	if (v->type == ASN_OCTET_STR)
		return snmp_set_var_typed_value(vb, ASN_OCTET_STR, v->data, v->len);
	if (v->type == ASN_OBJECT_ID) {
		for (uint32_t i = 0; i < v->len / 4; i++)
			memcpy(&u32, v->data + 4 * i, 4), ids[i] = u32;
		return snmp_set_var_typed_value(vb, ASN_OBJECT_ID, ids, (v->len / 4) * sizeof(oid));
	}
	if (v->len != sizeof(n))
		return -1;
	memcpy(&n, v->data, sizeof(n));
	switch (v->type) {
	case ASN_COUNTER64:
		c64.high = (u_long)(n >> 32);
		c64.low = (u_long)(n & 0xffffffffu);
		return snmp_set_var_typed_value(vb, ASN_COUNTER64, &c64, sizeof(c64));
	case ASN_INTEGER:
		i32 = (int32_t)n;
		return snmp_set_var_typed_value(vb, ASN_INTEGER, &i32, sizeof(i32));
	case ASN_GAUGE: case ASN_COUNTER: case ASN_TIMETICKS:
		u32 = (uint32_t)n;
		return snmp_set_var_typed_value(vb, v->type, &u32, sizeof(u32));
	default:
		return -1; /* no type clustermond serves */
	}
}

/* What the subagent answers for an instance it does not have. */
static u_char absent(const struct cm_image_reg *r, const uint32_t *name, size_t len)
{
	const uint32_t *sfx = name + r->len;
	size_t n = len - r->len;

	if (r->kind == CM_REG_TABLE &&
	    (n < 3 || sfx[0] != 1 || sfx[1] < r->min_col || sfx[1] > r->max_col))
		return SNMP_NOSUCHOBJECT;
	return SNMP_NOSUCHINSTANCE;
}

static size_t to_u32(const netsnmp_variable_list *vb, uint32_t *out)
{
	size_t n = vb->name_length < MAX_OID_LEN ? vb->name_length : MAX_OID_LEN;

	for (size_t i = 0; i < n; i++)
		out[i] = vb->name[i] > UINT32_MAX ? UINT32_MAX : (uint32_t)vb->name[i];
	return n;
}

static void answer_get(const struct cm_image_reg *r, netsnmp_variable_list *vb, bool live)
{
	static struct cm_image_value v;
	uint32_t name[MAX_OID_LEN];
	size_t len = to_u32(vb, name);

	if (!live || len < r->len) {
		snmp_set_var_typed_value(vb, SNMP_NOSUCHOBJECT, NULL, 0);
		return;
	}
	switch (cm_image_reader_get(&M.r, name, len, &v)) {
	case CM_IMAGE_FOUND:
		/* a value of a type clustermond never serves: no answer */
		if (set_value(vb, &v) != 0)
			snmp_set_var_typed_value(vb, SNMP_NOSUCHOBJECT, NULL, 0);
		return;
	case CM_IMAGE_NONE:
		snmp_set_var_typed_value(vb, absent(r, name, len), NULL, 0);
		return;
	default:
		snmp_set_var_typed_value(vb, SNMP_NOSUCHOBJECT, NULL, 0);
	}
}

/* Leaves the varbind alone when the subtree has nothing after it: snmpd
 * then goes on to the next subtree. */
static bool answer_next(const struct cm_image_reg *r, netsnmp_variable_list *vb)
{
	static struct cm_image_value v;
	uint32_t name[MAX_OID_LEN];
	oid next[CM_IMAGE_MAX_OID + CM_IMAGE_MAX_SUB];
	size_t len = to_u32(vb, name);

	if (cm_image_reader_next(&M.r, name, len, r->oid, r->len, &v) != CM_IMAGE_FOUND ||
	    set_value(vb, &v) != 0)
		return false;
	for (size_t i = 0; i < v.name_len; i++)
		next[i] = v.name[i];
	return snmp_set_var_objid(vb, next, v.name_len) == 0;
}

/*
 * GETBULK: every repetition this subtree can answer in one call. snmpd
 * otherwise makes one pass over the whole request per repetition (its
 * bulk_to_next helper), which costs more than the answers themselves. The
 * repetitions of a request are chained through next_variable; the first
 * one we cannot answer is left as a retry from our last answer, which
 * snmpd carries on into the next subtree.
 */
static void answer_bulk(const struct cm_image_reg *r, netsnmp_request_info *q)
{
	netsnmp_variable_list *vb;

	while (answer_next(r, q->requestvb)) {
		vb = q->requestvb;
		if (q->repeat <= 0 || vb->next_variable == NULL)
			return;
		/* as bulk_to_next: not past the end of this part of the registry */
		if (snmp_oid_compare(vb->name, vb->name_length, q->range_end, q->range_end_len) >= 0)
			return;
		q->repeat--;
		snmp_set_var_objid(vb->next_variable, vb->name, vb->name_length);
		q->requestvb = vb->next_variable;
		q->requestvb->type = ASN_PRIV_RETRY;
		if (q->inclusive == 2)
			q->inclusive = 0;
	}
}

static void serve(const struct cm_image_reg *r, int mode, netsnmp_request_info *requests,
		  bool live)
{
	for (netsnmp_request_info *q = requests; q != NULL; q = q->next) {
		if (q->processed)
			continue;
		if (mode == MODE_GET)
			answer_get(r, q->requestvb, live);
		else if (mode == MODE_GETNEXT && live)
			answer_next(r, q->requestvb);
		else if (mode == MODE_GETBULK && live)
			answer_bulk(r, q);
	}
}

/* ------------------------------------------------------------ waiting */

static bool tell_demand(bool recheck);

static int section_of(const struct cm_image_reg *r)
{
	return cm_image_reader_section_of(&M.r, r->oid, r->len);
}

/* Section k is not held fresh (image/image.h), and no wait for it went
 * unanswered in the last GIVE_UP_NS. */
static bool must_wait(int k, uint64_t now)
{
	return !cm_image_reader_held(&M.r, k, now) &&
	       (M.gave_up_ns[k] == 0 || now - M.gave_up_ns[k] >= GIVE_UP_NS);
}

/* Completes a waiting request with what the image holds now; its session
 * may have gone meanwhile (check_cache says). */
static void finish(struct waiter *w, bool live)
{
	netsnmp_delegated_cache *c = netsnmp_handler_check_cache(w->cache);

	if (c != NULL) {
		for (netsnmp_request_info *q = c->requests; q != NULL; q = q->next)
			q->delegated = 0;
		serve(w->r, c->reqinfo->mode, c->requests, live);
	}
	netsnmp_free_delegated_cache(w->cache);
	free(w);
}

/* Whether w can be answered now: its section holds samples newer than
 * its wake, or the wait is over (then the section is served as it is for
 * GIVE_UP_NS), or the image is not served. */
static bool done_waiting(const struct waiter *w, bool live, uint64_t now)
{
	int k = live ? section_of(w->r) : -1;

	if (k < 0 || cm_image_reader_answered(&M.r, k, w->wake_ns, now))
		return true;
	if (now - w->wake_ns < WAIT_MAX_NS)
		return false;
	M.gave_up_ns[k] = now;
	return true;
}

/* Every POLL_US while requests wait: answers those whose time came. */
static void poll_waiting(unsigned alarm, void *arg)
{
	uint64_t now = cm_clock_ns();
	bool live = refresh(), any = false;
	struct waiter **p = &M.waiting;

	(void)alarm, (void)arg;
	while (*p != NULL) {
		struct waiter *w = *p;

		if (!done_waiting(w, live, now)) {
			p = &w->next;
			continue;
		}
		*p = w->next;
		finish(w, live);
		any = true;
	}
	if (M.waiting == NULL && M.poll != 0) {
		snmp_alarm_unregister(M.poll);
		M.poll = 0;
	}
	if (any)
		netsnmp_check_outstanding_agent_requests();
}

/* Delegates the requests until section k holds samples newer than a
 * wake: ours, written now into the demand record, or one that waits
 * already. -1 when they must be answered now. */
static int wait_for_sample(netsnmp_mib_handler *h, netsnmp_handler_registration *reg,
			   netsnmp_agent_request_info *reqinfo, netsnmp_request_info *requests,
			   int k, uint64_t now)
{
	struct timeval tv = { .tv_sec = 0, .tv_usec = POLL_US };
	struct waiter *w;

	if (M.wake_ns[k] == 0 || now - M.wake_ns[k] >= WAIT_MAX_NS ||
	    cm_image_reader_answered(&M.r, k, M.wake_ns[k], now)) {
		M.wake_ns[k] = now;
		if (!tell_demand(false)) {
			M.gave_up_ns[k] = now; /* nobody would hear it */
			return -1;
		}
	}
	if (M.poll == 0)
		M.poll = snmp_alarm_register_hr(tv, SA_REPEAT, poll_waiting, NULL);
	w = M.poll != 0 ? calloc(1, sizeof(*w)) : NULL;
	if (w == NULL)
		return -1;
	w->cache = netsnmp_create_delegated_cache(h, reg, reqinfo, requests, NULL);
	if (w->cache == NULL) {
		free(w);
		return -1;
	}
	w->r = h->myvoid;
	w->wake_ns = M.wake_ns[k];
	for (netsnmp_request_info *q = requests; q != NULL; q = q->next)
		q->delegated = 1;
	w->next = M.waiting;
	M.waiting = w;
	return 0;
}

/* Answers every waiting request now (the module goes). */
static void finish_all(void)
{
	bool live = M.waiting != NULL && refresh();

	while (M.waiting != NULL) {
		struct waiter *w = M.waiting;

		M.waiting = w->next;
		finish(w, live);
	}
	if (M.poll != 0)
		snmp_alarm_unregister(M.poll);
	M.poll = 0;
}

/* The varbind of the client's request that q answers: q->index is its
 * place there (a GETBULK's repetitions of a varbind share its request). */
static const netsnmp_variable_list *asked(const netsnmp_agent_request_info *reqinfo,
					  const netsnmp_request_info *q)
{
	const netsnmp_variable_list *v = NULL;

	if (reqinfo->asp != NULL && reqinfo->asp->orig_pdu != NULL)
		v = reqinfo->asp->orig_pdu->variables;
	for (int i = 1; v != NULL && i < q->index; i++)
		v = v->next_variable;
	return v;
}

/*
 * What a walk reads past the end of what it asked for is no read of
 * section k (clustermond's mib/engine/overread.c says the same over AgentX): a
 * GETNEXT or GETBULK none of whose varbinds asked for an OID in the
 * section came here only because what it asked for ended, as a poller's
 * GETBULK of the top tables' last rows runs on into clusterMonTcp's
 * connections. It is served from the image as it is and wakes nothing.
 */
static bool over_read(int k, const netsnmp_agent_request_info *reqinfo,
		      const netsnmp_request_info *requests)
{
	uint32_t name[MAX_OID_LEN];

	if (reqinfo->mode != MODE_GETNEXT && reqinfo->mode != MODE_GETBULK)
		return false;
	for (const netsnmp_request_info *q = requests; q != NULL; q = q->next) {
		const netsnmp_variable_list *v = asked(reqinfo, q);

		if (v == NULL || cm_image_reader_section_of(&M.r, name, to_u32(v, name)) == k)
			return false;
	}
	return true;
}

static int handler(netsnmp_mib_handler *h, netsnmp_handler_registration *reg,
		   netsnmp_agent_request_info *reqinfo, netsnmp_request_info *requests)
{
	const struct cm_image_reg *r = h->myvoid;
	uint64_t now = cm_clock_ns();
	bool live = refresh();
	int k = live ? section_of(r) : -1;

	/* Objects a source keeps up on its own are no demand. */
	if (k >= 0 && !(r->flags & CM_REG_QUIET) && !over_read(k, reqinfo, requests)) {
		M.reads[k]++;
		if (must_wait(k, now) &&
		    wait_for_sample(h, reg, reqinfo, requests, k, now) == 0)
			return SNMP_ERR_NOERROR;
	}
	serve(r, reqinfo->mode, requests, live);
	return SNMP_ERR_NOERROR;
}

/* ------------------------------------------------------------ registrations */

static void unregister_all(void)
{
	for (unsigned i = 0; i < M.nregs; i++)
		if (M.handle[i] != NULL)
			netsnmp_unregister_handler(M.handle[i]);
	memset(M.handle, 0, sizeof(M.handle));
	M.nregs = 0;
}

static bool under_root(const struct cm_image_reg *r)
{
	return r->len > ROOT_LEN && r->len <= CM_IMAGE_MAX_OID &&
	       memcmp(r->oid, root, sizeof(root)) == 0 &&
	       (r->kind == CM_REG_SCALAR || r->kind == CM_REG_TABLE || r->kind == CM_REG_COLUMN);
}

static void register_one(unsigned i)
{
	oid name[CM_IMAGE_MAX_OID];
	netsnmp_handler_registration *reg;

	for (uint32_t k = 0; k < M.reg[i].len; k++)
		name[k] = M.reg[i].oid[k];
	reg = netsnmp_create_handler_registration("clustermon", handler, name, M.reg[i].len,
						  HANDLER_CAN_RONLY | HANDLER_CAN_GETBULK);
	if (reg == NULL)
		return;
	reg->handler->myvoid = &M.reg[i];
	if (netsnmp_register_handler(reg) == MIB_REGISTERED_OK)
		M.handle[i] = reg;
	else
		snmp_log(LOG_WARNING, "clustermon.so: could not register subtree %u\n", i);
}

static void check(unsigned alarm, void *arg);

static void retry_later(void)
{
	struct timeval tv = { .tv_sec = 0, .tv_usec = RETRY_NS / 1000 };

	if (M.retry == 0)
		M.retry = snmp_alarm_register_hr(tv, 0, check, NULL);
}

/*
 * The demand record's file, made by clustermond beside the image: only a
 * regular file (O_NOFOLLOW) owned as the image must be, opened without
 * waiting (O_NONBLOCK on a file that is no FIFO) and kept open; recheck:
 * opened again when the path names another file (at the 1 s check).
 */
static bool demand_file(bool recheck)
{
	char path[PATH_MAX + sizeof(CM_IMAGE_DEMAND_SUFFIX)];
	struct stat st;
	int fd;

	snprintf(path, sizeof(path), "%s%s", M.path, CM_IMAGE_DEMAND_SUFFIX);
	if (M.demand_fd >= 0 && (!recheck || (lstat(path, &st) == 0 && st.st_dev == M.demand_dev &&
					      st.st_ino == M.demand_ino)))
		return true;
	if (M.demand_fd >= 0)
		close(M.demand_fd);
	M.demand_fd = -1;
	fd = open(path, O_WRONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | O_NOFOLLOW);
	if (fd < 0)
		return false;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || !owner_ok(st.st_uid)) {
		close(fd);
		return false;
	}
	M.demand_fd = fd;
	M.demand_dev = st.st_dev;
	M.demand_ino = st.st_ino;
	memset(&M.told, 0, sizeof(M.told)); /* a new file: written whole */
	return true;
}

/* Tells clustermond what we read and wait for (image/image.h's demand
 * record) when it moved; nothing is read back. False when it could not
 * be written. */
static bool tell_demand(bool recheck)
{
	struct cm_image_demand d = { .magic = CM_IMAGE_DEMAND_MAGIC, .version = CM_IMAGE_VERSION };

	memcpy(d.reads, M.reads, sizeof(d.reads));
	memcpy(d.wake_ns, M.wake_ns, sizeof(d.wake_ns));
	if (demand_file(recheck) && memcmp(&d, &M.told, sizeof(d)) == 0)
		return true;
	if (M.demand_fd < 0 || pwrite(M.demand_fd, &d, sizeof(d), 0) != (ssize_t)sizeof(d)) {
		/* a full disk or a cut file: reads of sleeping sources get the
		 * samples the image has */
		if (!M.told_demand && M.fd >= 0)
			snmp_log(LOG_WARNING, "clustermon.so: cannot write %s%s: reads of sources "
				 "that sleep are served their last samples\n", M.path,
				 CM_IMAGE_DEMAND_SUFFIX);
		M.told_demand = true;
		return false;
	}
	M.told = d;
	M.told_demand = false;
	return true;
}

/* Registers what a live image names, nothing while there is none. */
static void sync_registrations(bool live)
{
	unsigned n = 0;
	static struct cm_image_reg got[CM_IMAGE_MAX_REGS];
	struct cm_image_reg want[CM_IMAGE_MAX_REGS];
	int nregs = live ? cm_image_reader_regs(&M.r, got) : 0;

	for (int i = 0; i < nregs; i++)
		if (under_root(&got[i]))
			want[n++] = got[i];
	if (n == M.nregs && memcmp(want, M.reg, n * sizeof(want[0])) == 0)
		return;
	if (agent_delegated_list != NULL) {
		retry_later();
		return;
	}
	unregister_all();
	memcpy(M.reg, want, n * sizeof(want[0]));
	M.nregs = n;
	for (unsigned i = 0; i < n; i++)
		register_one(i);
	snmp_log(LOG_INFO, "clustermon.so: serving %u subtrees from %s\n", n, M.path);
}

/* ------------------------------------------------------------ the file */

static size_t read_fd(void *ctx, void *buf, size_t len, uint64_t off)
{
	size_t got = 0;

	(void)ctx;
	while (got < len && off + got <= (uint64_t)INT64_MAX) {
		ssize_t n = pread(M.fd, (char *)buf + got, len - got, (off_t)(off + got));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	return got;
}

static void close_image(void)
{
	if (M.fd >= 0)
		close(M.fd);
	M.fd = -1;
	cm_image_reader_free(&M.r);
}

/* Logs why the file at the path is not served, once for each file and
 * reason (the check runs every second). */
static void refuse(const char *why)
{
	static char told[PATH_MAX + 160];
	static dev_t dev;
	static ino_t ino;
	char line[sizeof(told)];
	struct stat st = { 0 };

	lstat(M.path, &st);
	snprintf(line, sizeof(line), "%s: %s", M.path, why);
	if (st.st_dev == dev && st.st_ino == ino && strcmp(line, told) == 0)
		return;
	dev = st.st_dev;
	ino = st.st_ino;
	strcpy(told, line);
	snmp_log(LOG_WARNING, "clustermon.so: not serving %s\n", line);
}

/* Whom the image may belong to: root, or clustermond's user. */
static bool owner_ok(uid_t uid)
{
	struct passwd *pw;

	if (uid == 0)
		return true;
	pw = M.owner[0] ? getpwnam(M.owner) : NULL;
	return pw != NULL && pw->pw_uid == uid;
}

/*
 * The image is opened only when it is a regular file itself (O_NOFOLLOW: a
 * symbolic link planted at the path is refused, not followed), owned by
 * root or clustermond's user, and writable by its owner alone: whoever
 * else could write it could feed snmpd what they like.
 */
static void open_image(void)
{
	struct stat st;
	char why[128];
	int fd = open(M.path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | O_NOFOLLOW);

	if (fd < 0) {
		if (errno == ELOOP)
			refuse("a symbolic link (the image must be the file itself)");
		return;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		refuse("not a regular file");
		close(fd);
		return;
	}
	if (!owner_ok(st.st_uid) || (st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
		if (!owner_ok(st.st_uid))
			snprintf(why, sizeof(why), "owned by uid %u, neither root nor %s",
				 (unsigned)st.st_uid, M.owner[0] ? M.owner : "(none)");
		else
			snprintf(why, sizeof(why), "mode %04o: writable by its group or others",
				 (unsigned)(st.st_mode & 07777));
		refuse(why);
		close(fd);
		return;
	}
	M.fd = fd;
	M.dev = st.st_dev;
	M.ino = st.st_ino;
	M.told_big = false;
	memset(M.gave_up_ns, 0, sizeof(M.gave_up_ns));
	cm_image_reader_init(&M.r, read_fd, NULL);
}

/* The file at the path is another one than we read (a restart, a grown
 * image, or someone's replacement). */
static bool replaced(void)
{
	struct stat st;

	/* lstat: a link put in the file's place is a replacement too. */
	return lstat(M.path, &st) != 0 || st.st_dev != M.dev || st.st_ino != M.ino;
}

/* Copies the header again; true when it is valid and fresh. */
static bool reread(void)
{
	struct stat st;

	if (M.fd < 0 || fstat(M.fd, &st) != 0)
		return false;
	if (!M.r.too_big && cm_image_reader_refresh(&M.r, (uint64_t)st.st_size) &&
	    cm_image_reader_fresh(&M.r, cm_clock_ns()))
		return true;
	if (M.r.too_big && !M.told_big) {
		char why[128];

		M.told_big = true;
		snprintf(why, sizeof(why), "its sections would take more than %u MiB to copy",
			 CM_IMAGE_MAX_READER_BYTES >> 20);
		refuse(why);
	}
	return false;
}

/* Brings the header copy up to date, following the path to a new file
 * when this one is not served (stopped, superseded, stale, cut or
 * garbage), so a walk never waits for the next check to see it. */
static bool refresh(void)
{
	if (reread())
		return true;
	if (M.fd >= 0 && !replaced())
		return false;
	close_image();
	open_image();
	return reread();
}

static void check(unsigned alarm, void *arg)
{
	(void)arg;
	if (alarm != 0 && alarm == M.retry)
		M.retry = 0; /* a one-shot alarm, gone once it ran */
	sync_registrations(refresh());
	tell_demand(true);
}

static void parse_owner(const char *token, char *line)
{
	(void)token;
	if (line == NULL || strlen(line) >= sizeof(M.owner) || strpbrk(line, " \t") != NULL) {
		config_perror("clustermonSnapshotOwner: expected one user name");
		return;
	}
	strcpy(M.owner, line);
	close_image();
	check(0, NULL);
}

static void parse_image_path(const char *token, char *line)
{
	(void)token;
	if (line == NULL || line[0] != '/' || strlen(line) >= sizeof(M.path)) {
		config_perror("clustermonSnapshot: expected the absolute path of clustermond's image");
		return;
	}
	strcpy(M.path, line);
	close_image();
	check(0, NULL);
}

void init_clustermon(void)
{
	snmpd_register_config_handler("clustermonSnapshot", parse_image_path, NULL, "PATH");
	snmpd_register_config_handler("clustermonSnapshotOwner", parse_owner, NULL, "USER");
	M.alarm = snmp_alarm_register(CHECK_SECONDS, SA_REPEAT, check, NULL);
	check(0, NULL);
}

void deinit_clustermon(void)
{
	snmp_alarm_unregister(M.alarm);
	if (M.retry != 0)
		snmp_alarm_unregister(M.retry);
	M.retry = 0;
	finish_all();
	netsnmp_check_outstanding_agent_requests();
	unregister_all();
	close_image();
	if (M.demand_fd >= 0)
		close(M.demand_fd);
	M.demand_fd = -1;
	unregister_config_handler("snmpd", "clustermonSnapshot");
	unregister_config_handler("snmpd", "clustermonSnapshotOwner");
}
