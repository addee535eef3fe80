/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * clustermon-kprobe - the one privileged part of clustermon: loads the BPF
 * sensors and run-time probes and answers a unix control socket (wire.h),
 * so the subagent reads kernel event counters without any capability.
 *
 * Single-threaded: one poll loop serves every client; an add takes the
 * verifier's few milliseconds, reads take microseconds.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/un.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include <bpf/libbpf.h>
#include <linux/magic.h>

#include "budget.h"
#include "dists.h"
#include "peers.h"
#include "policy.h"
#include "probes.h"
#include "sensors.h"
#include "trace.h"
#include "common/wire.h"

#define DEFAULT_SOCKET "/run/clustermon/kprobe.sock"
#define DEFAULT_BPFFS "/sys/fs/bpf/clustermon"
#define MAX_CLIENTS 32
#define MAX_PROBES 1024
#define MAX_TRACES 64
/* Under a root-owned parent (the unit's StateDirectory): never in
 * /var/lib/clustermon, which the unprivileged clustermond owns. */
#define DEFAULT_TRACE_DIR "/var/lib/clustermon-kprobe/traces"
_Static_assert(MAX_TRACES <= BUDGET_SLOTS, "a budget slot for every running session");

struct client {
	int fd;
	struct peer peer;          /* who connected (SO_PEERCRED) */
	size_t len;
	char buf[2 * WIRE_MAX_REQUEST + 2];
};

static struct {
	bool foreground;
	bool raw_tracepoints;      /* -r: never tp_btf for the sensors */
	unsigned sensors_on;       /* -S: the SENSOR_ bits (-n: runqlat alone) */
	const char *socket_path, *bpffs_dir, *group, *trace_dir, *user, *trace_group;
	gid_t gid;                 /* -g's group, (gid_t)-1 without -g */
	gid_t trace_gid;           /* -G's group, -g's without -G: reads traces */
	uid_t peer_uid;            /* -u's user, (uid_t)-1 without -u */
	char instance[64];
	struct sensors sensors;
	struct probe *probes[MAX_PROBES];
	size_t nprobes;
	struct trace_session *traces[MAX_TRACES];
	size_t ntraces;
	struct trace_budget budget;   /* -B -Q -R -K -A */
	const char *policy_path;      /* -P (NULL: POLICY_DEFAULT_PATH, may be absent) */
	struct policy policy;         /* what may be hooked */
	struct client clients[MAX_CLIENTS];
	size_t nclients;
	/* fds the reply being built carries (a maps request), sent with its
	 * first byte and closed after */
	int reply_fds[SENSORS_SHARED_MAPS];
	size_t nreply_fds;
} helper = { .socket_path = DEFAULT_SOCKET, .trace_dir = DEFAULT_TRACE_DIR,
	     .gid = (gid_t)-1, .trace_gid = (gid_t)-1, .peer_uid = (uid_t)-1,
	     .sensors_on = SENSOR_ALL };

static volatile sig_atomic_t stopping, reloading;

static void say(int level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (helper.foreground) {
		fputs("clustermon-kprobe: ", stderr);
		vfprintf(stderr, fmt, ap);
		fputc('\n', stderr);
	} else {
		vsyslog(level, fmt, ap);
	}
	va_end(ap);
}

static int libbpf_log(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_DEBUG)
		return 0;
	if (helper.foreground)
		return vfprintf(stderr, fmt, ap);
	vsyslog(LOG_WARNING, fmt, ap);
	return 0;
}

static void on_signal(int sig)
{
	(void)sig;
	stopping = 1;
}

static void on_hangup(int sig)
{
	(void)sig;
	reloading = 1;
}

/* ------------------------------------------------------------ policy */

/* Reads the policy (-P, or the default path, which may be absent): 0, or
 * -1 with why, the policy in force unchanged. */
static int load_policy(char *why, size_t whylen)
{
	const char *path = helper.policy_path ? helper.policy_path : POLICY_DEFAULT_PATH;
	int rc = policy_load(path, helper.policy_path == NULL, &helper.policy, why, whylen);

	if (rc < 0)
		return -1;
	say(LOG_INFO, "hooks allowed by %s (%zu rules)", rc == 1 ? "the built-in policy" : path,
	    helper.policy.nrules);
	return 0;
}

/* SIGHUP: the policy again, for the requests that follow (hooks made
 * already stay); a file now bad leaves the old one in force. */
static void reload_policy(void)
{
	char why[512];

	reloading = 0;
	if (load_policy(why, sizeof(why)) != 0)
		say(LOG_ERR, "%s; the policy in force stays", why);
}

/* A hook the policy denies is refused, the rule named. */
static bool hook_allowed(const struct wire_request *r, FILE *out)
{
	char why[WIRE_MAX_REASON + 1];

	if (policy_allows_request(&helper.policy, r, why, sizeof(why)))
		return true;
	say(LOG_NOTICE, "refused: %s", why);
	wire_write_err(out, WIRE_ERR_INVALID, "%s", why);
	return false;
}

/* ------------------------------------------------------------ probes */

static struct probe **find_probe(uint32_t id)
{
	for (size_t i = 0; i < helper.nprobes; i++)
		if (helper.probes[i]->id == id)
			return &helper.probes[i];
	return NULL;
}

/* Pinned for inspection with bpftool (map show pinned DIR/probe-ID). */
static void pin_path(uint32_t id, char *buf, size_t len)
{
	snprintf(buf, len, "%s/probe-%u", helper.bpffs_dir, id);
}

static void remove_probe(struct probe **slot)
{
	struct probe *p = *slot;
	char path[4096];

	if (helper.bpffs_dir != NULL) {
		pin_path(p->id, path, sizeof(path));
		unlink(path);
	}
	probe_detach(p);
	free(p);
	*slot = helper.probes[--helper.nprobes];
}

static bool same_probe(const struct probe *p, const struct wire_request *r)
{
	return memcmp(&p->spec, &r->spec, sizeof(r->spec)) == 0 &&
	       memcmp(&p->filter, &r->filter, sizeof(r->filter)) == 0;
}

static void do_add(const struct wire_request *r, FILE *out)
{
	struct probe **old = find_probe(r->id), *p;
	char why[256], path[4096];
	enum probe_error err;

	if (old != NULL && same_probe(*old, r)) {
		wire_write_ok(out, WIRE_OK_UNCHANGED);
		return;
	}
	if (old == NULL && helper.nprobes == MAX_PROBES) {
		wire_write_err(out, WIRE_ERR_BUSY, "at most %d probes", MAX_PROBES);
		return;
	}
	p = calloc(1, sizeof(*p));
	if (p == NULL) {
		wire_write_err(out, WIRE_ERR_FAILED, "out of memory");
		return;
	}
	p->id = r->id;
	p->spec = r->spec;
	p->filter = r->filter;
	err = probe_attach(p, why, sizeof(why));
	if (err != PROBE_OK) {
		wire_write_err(out, err == PROBE_UNSUPPORTED ? WIRE_ERR_UNSUPPORTED : WIRE_ERR_FAILED,
			       "%s", why);
		free(p);
		return;
	}
	if (old != NULL)
		remove_probe(old);
	helper.probes[helper.nprobes++] = p;
	if (helper.bpffs_dir != NULL) {
		pin_path(p->id, path, sizeof(path));
		unlink(path); /* left by a helper that was killed */
		probe_pin(p, path);
	}
	wire_write_ok(out, WIRE_OK_ATTACHED);
}

static void do_del(const struct wire_request *r, FILE *out)
{
	struct probe **p = find_probe(r->id);

	if (p == NULL) {
		wire_write_err(out, WIRE_ERR_INVALID, "no probe %u", r->id);
		return;
	}
	remove_probe(p);
	wire_write_ok(out, WIRE_OK_PLAIN);
}

static int report_probe(const struct probe *p, FILE *out)
{
	unsigned n = possible_cpus();
	__u64 *per_cpu = calloc(n, sizeof(*per_cpu));
	uint64_t *col = calloc(n, sizeof(*col));
	struct wire_reply line = { .kind = WIRE_R_COUNTS, .ncpu = n, .cpu = col };
	struct cm_probe_stats t;
	struct cm_hist h;
	int lines;

	if (per_cpu == NULL || col == NULL || probe_read(p, &t, per_cpu, n) != 0) {
		free(per_cpu);
		free(col);
		return 0;
	}
	for (unsigned c = 0; c < n; c++)
		col[c] = per_cpu[c];
	line.u.counts.id = p->id;
	line.u.counts.hits = t.hits;
	line.u.counts.sampled = t.sampled;
	line.u.counts.lost = t.lost;
	lines = wire_write_reply(out, &line) == 0;
	free(per_cpu);
	free(col);
	if (lines == 0 || !spec_is_latency(&p->spec) || probe_read_hist(p, &h) != 0)
		return lines;
	hist_report(out, p->id, &h);
	return 2;
}

/* Replies with a line count first: the body goes to a scratch stream, and
 * counts only the lines body wrote. */
static void counted_reply(FILE *out, int (*body)(FILE *))
{
	char *text = NULL;
	size_t len = 0;
	FILE *tmp = open_memstream(&text, &len);
	int lines;

	if (tmp == NULL) {
		wire_write_err(out, WIRE_ERR_FAILED, "out of memory");
		return;
	}
	lines = body(tmp);
	fclose(tmp);
	wire_write_count(out, (uint64_t)lines);
	fputs(text ? text : "", out);
	free(text);
}

static int list_lines(FILE *out)
{
	struct wire_reply line = { .kind = WIRE_R_PROBE };
	int lines = 0;

	for (size_t i = 0; i < helper.nprobes; i++) {
		line.u.probe.id = helper.probes[i]->id;
		line.u.probe.spec = helper.probes[i]->spec;
		line.u.probe.filter = helper.probes[i]->filter;
		lines += wire_write_reply(out, &line) == 0;
	}
	return lines;
}

static int read_lines(FILE *out)
{
	int lines = 0;

	for (size_t i = 0; i < helper.nprobes; i++)
		lines += report_probe(helper.probes[i], out);
	return lines + sensors_report(&helper.sensors, out);
}

/* ------------------------------------------------------------ traces */

static struct trace_session **find_trace(uint32_t id)
{
	for (size_t i = 0; i < helper.ntraces; i++)
		if (helper.traces[i]->id == id)
			return &helper.traces[i];
	return NULL;
}

static void remove_trace(struct trace_session **slot)
{
	trace_free(*slot);
	free(*slot);
	*slot = helper.traces[--helper.ntraces];
}

/* The directory the trace writes into; one too long for the protocol is
 * still named, as a failure, so the client hears why. */
static void reply_started(FILE *out, const char *dir)
{
	struct wire_reply r = { .kind = WIRE_R_STARTED };
	size_t n = strlen(dir);

	if (n <= WIRE_MAX_DIR)
		memcpy(r.u.started, dir, n + 1);
	if (n > WIRE_MAX_DIR || wire_write_reply(out, &r) != 0)
		wire_write_err(out, WIRE_ERR_FAILED, "trace directory name unfit for the protocol");
}

static void do_trace(const struct wire_request *r, FILE *out)
{
	struct trace_session **old = find_trace(r->id), *t;
	char why[256];
	int rc;

	if (old != NULL && (*old)->state == TRACE_RUNNING) {
		wire_write_err(out, WIRE_ERR_BUSY, "trace %u is running (stop it first)", r->id);
		return;
	}
	if (old == NULL && helper.ntraces == MAX_TRACES) {
		wire_write_err(out, WIRE_ERR_BUSY, "at most %d traces", MAX_TRACES);
		return;
	}
	t = calloc(1, sizeof(*t));
	if (t == NULL) {
		wire_write_err(out, WIRE_ERR_FAILED, "out of memory");
		return;
	}
	t->id = r->id;
	t->spec = r->spec;
	t->filter = r->filter;
	t->limits = r->limits;
	t->budget = &helper.budget;
	rc = trace_start(t, helper.trace_dir, helper.trace_gid, why, sizeof(why));
	if (rc != 0) {
		if (rc == -2)
			say(LOG_NOTICE, "trace %u refused: %s", t->id, why);
		wire_write_err(out, rc == -2 ? WIRE_ERR_BUSY : WIRE_ERR_FAILED, "%s", why);
		free(t);
		return;
	}
	if (old != NULL)
		remove_trace(old);
	helper.traces[helper.ntraces++] = t;
	say(LOG_INFO, "trace %u started into %s", t->id, t->dir);
	reply_started(out, t->dir);
}

/* Retention (-K, -A) after a session ended, and at start. */
static void retain_traces(void)
{
	char why[256];
	int fd = trace_open_base(helper.trace_dir, helper.trace_gid, why, sizeof(why)), n;

	if (fd < 0)
		return;
	n = budget_retain(&helper.budget, fd, time(NULL));
	close(fd);
	if (n > 0)
		say(LOG_INFO, "removed %d finished trace%s under %s (-K %u, -A %llu)", n,
		    n == 1 ? "" : "s", helper.trace_dir, helper.budget.lim.keep,
		    (unsigned long long)helper.budget.lim.max_age_s);
}

static void do_stop(const struct wire_request *r, FILE *out)
{
	struct trace_session **t = find_trace(r->id);

	if (t == NULL) {
		wire_write_err(out, WIRE_ERR_INVALID, "no trace %u", r->id);
		return;
	}
	if ((*t)->state == TRACE_RUNNING) {
		trace_drain(*t, cm_clock_ns());
		trace_end(*t, TRACE_FINISHED, "stopped");
		retain_traces();
	}
	wire_write_ok(out, WIRE_OK_PLAIN);
}

static int trace_lines(FILE *out)
{
	uint64_t now = cm_clock_ns();
	int lines = 0;

	for (size_t i = 0; i < helper.ntraces; i++)
		lines += trace_report(helper.traces[i], now, out);
	return lines;
}

/* Drains every running session; the poll timeout until the next drain or
 * duration limit (-1: no session runs). */
static int drain_traces(void)
{
	uint64_t now = cm_clock_ns();
	bool ended = false;
	int timeout = -1;

	for (size_t i = 0; i < helper.ntraces; i++) {
		struct trace_session *t = helper.traces[i];
		int left;

		if (t->state != TRACE_RUNNING)
			continue;
		trace_drain(t, now);
		if (t->state != TRACE_RUNNING) {
			say(LOG_INFO, "trace %u %s: %s", t->id,
			    t->state == TRACE_FAILED ? "failed" : "finished", t->reason);
			ended = true;
			continue;
		}
		left = trace_next_drain_ms(t, now);
		if (timeout < 0 || left < timeout)
			timeout = left;
	}
	if (ended)
		retain_traces();
	return timeout;
}

static int procs_lines(FILE *out)
{
	return sensors_report_procs(&helper.sensors, out);
}

static void reply_procs(FILE *out)
{
	if (!helper.sensors.per_process || helper.sensors.skel == NULL)
		wire_write_err(out, WIRE_ERR_UNSUPPORTED, "no per-process accounting (-S without proc, or no sensors)");
	else
		counted_reply(out, procs_lines);
}

/* Hands the fds share() gives over with this reply: one maps request
 * per reply, and only when the sensors run. The maps reply's are
 * writable: serve_request gives them to the trusted peer alone (peers.h). */
static bool share_fds(FILE *out, int (*share)(const struct sensors *, int *), size_t n,
		      const char *what)
{
	if (helper.nreply_fds != 0) {
		wire_write_err(out, WIRE_ERR_INVALID, "one maps request per reply");
		return false;
	}
	if (share(&helper.sensors, helper.reply_fds) != 0) {
		wire_write_err(out, WIRE_ERR_UNSUPPORTED, "no %s accounting (-S without it, or no sensors)", what);
		return false;
	}
	helper.nreply_fds = n;
	return true;
}

_Static_assert(SENSORS_SHARED_MAPS == WIRE_MAPS_FDS, "the maps reply carries what the sensors share");

static void reply_maps(FILE *out)
{
	struct wire_reply r = { .kind = WIRE_R_MAPS };

	if (!share_fds(out, sensors_share_fds, WIRE_MAPS_FDS, "per-process"))
		return;
	r.u.maps.slots = helper.sensors.nslots;
	r.u.maps.rings = helper.sensors.nrings;
	r.u.maps.ncpu = possible_cpus();
	wire_write_reply(out, &r);
}

/* The per-cgroup waits' map, read-only (clustermond's cgroup source). */
static void reply_cgmaps(FILE *out)
{
	struct wire_reply r = { .kind = WIRE_R_CGMAPS };

	r.u.cgmaps.entries = CM_MAX_CGROUPS;
	r.u.cgmaps.ncpu = possible_cpus();
	if (share_fds(out, sensors_share_cgroup_fds, WIRE_CGMAPS_FDS, "per-cgroup"))
		wire_write_reply(out, &r);
}

/* The exit log's ring: its fd can move the ring's consumer position,
 * so serve_request gives it to the trusted peer alone. */
static void reply_exits(FILE *out)
{
	struct wire_reply r = { .kind = WIRE_R_EXITS };

	if (!share_fds(out, sensors_share_exit_fd, WIRE_EXITS_FDS, "exit log"))
		return;
	r.u.exits = CM_EXIT_RING_BYTES;
	wire_write_reply(out, &r);
}

static void reply_hello(FILE *out)
{
	struct wire_reply r = { .kind = WIRE_R_HELLO, .u.hello.protocol = WIRE_PROTOCOL };

	snprintf(r.u.hello.instance, sizeof(r.u.hello.instance), "%s", helper.instance);
	wire_write_reply(out, &r);
}

static void serve_request(const struct client *c, const char *line, FILE *out)
{
	struct wire_request r;
	char why[256];

	if (wire_parse_request(line, &r, why, sizeof(why)) != 0) {
		wire_write_err(out, WIRE_ERR_INVALID, "%s", why);
		return;
	}
	if (!peer_may(&c->peer, r.verb, helper.user, why, sizeof(why))) {
		wire_write_err(out, WIRE_ERR_FAILED, "%s", why);
		return;
	}
	if (!hook_allowed(&r, out))
		return;
	if (dists_serve(&r, out))
		return;
	switch (r.verb) {
	case WIRE_HELLO:
		reply_hello(out);
		break;
	case WIRE_ADD: do_add(&r, out); break;
	case WIRE_DEL: do_del(&r, out); break;
	case WIRE_LIST: counted_reply(out, list_lines); break;
	case WIRE_READ: counted_reply(out, read_lines); break;
	case WIRE_TRACE: do_trace(&r, out); break;
	case WIRE_STOP: do_stop(&r, out); break;
	case WIRE_TRACES: counted_reply(out, trace_lines); break;
	case WIRE_PROCS: reply_procs(out); break;
	case WIRE_MAPS: reply_maps(out); break;
	case WIRE_CGMAPS: reply_cgmaps(out); break;
	case WIRE_EXITS: reply_exits(out); break;
	default: break;   /* the dist verbs, served above */
	}
}

/* ------------------------------------------------------------ clients */

static int send_all(int fd, const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t n = send(fd, buf, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* The reply's first byte with the fds it carries, then the rest. */
static int send_reply(int fd, const char *buf, size_t len)
{
	char control[CMSG_SPACE(sizeof(helper.reply_fds))] = { 0 };
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control,
			      .msg_controllen = CMSG_SPACE(helper.nreply_fds * sizeof(int)) };
	struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);
	ssize_t n;

	if (helper.nreply_fds == 0)
		return send_all(fd, buf, len);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(helper.nreply_fds * sizeof(int));
	memcpy(CMSG_DATA(cm), helper.reply_fds, helper.nreply_fds * sizeof(int));
	do
		n = sendmsg(fd, &msg, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	while (helper.nreply_fds > 0)
		close(helper.reply_fds[--helper.nreply_fds]);
	return n == 1 ? send_all(fd, buf + 1, len - 1) : -1;
}

static void drop_client(size_t i)
{
	close(helper.clients[i].fd);
	helper.clients[i] = helper.clients[--helper.nclients];
}

/* Serves every complete line the client sent; false when it must go (it
 * closed, or sent a line over the limit). A partial line left when the
 * peer closes is never executed. */
static bool serve_client(struct client *c)
{
	char line[WIRE_MAX_REQUEST + 1], *reply = NULL;
	size_t len = 0;
	ssize_t n = recv(c->fd, c->buf + c->len, sizeof(c->buf) - c->len, 0);
	enum wire_line_status st;
	bool keep = true;
	FILE *out;

	if (n <= 0)
		return n < 0 && (errno == EINTR || errno == EAGAIN);
	c->len += (size_t)n;
	out = open_memstream(&reply, &len);
	if (out == NULL)
		return false;
	while ((st = wire_take_line(c->buf, &c->len, WIRE_MAX_REQUEST, line)) == WIRE_LINE)
		serve_request(c, line, out);
	if (st == WIRE_TOO_LONG) {
		wire_write_err(out, WIRE_ERR_INVALID, "request longer than %d bytes", WIRE_MAX_REQUEST);
		keep = false;
	}
	fclose(out);
	if (len > 0 && send_reply(c->fd, reply, len) != 0)
		keep = false;
	while (helper.nreply_fds > 0)
		close(helper.reply_fds[--helper.nreply_fds]);
	free(reply);
	return keep;
}

static void refuse_client(int fd, const char *why)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	if (out != NULL) {
		wire_write_err(out, WIRE_ERR_BUSY, "%s", why);
		fclose(out);
		send_all(fd, text, len);
		free(text);
	}
	close(fd);
}

/*
 * With -u, only root and that user may ask for BPF: the kernel's word on
 * who connected (SO_PEERCRED, the peer's credentials at connect), whatever
 * groups let it reach the socket. Without -u, whoever the socket's mode
 * lets in (root, and the -g group) is served, as before; only root and the
 * -u user are trusted with maps and procs (peers.h).
 */
static bool peer_allowed(int fd, const struct peer *p)
{
	char *text = NULL, who[32];
	size_t n = 0;
	FILE *out;

	if (helper.peer_uid == (uid_t)-1 || p->trusted)
		return true;
	if (p->uid == (uid_t)-1)
		snprintf(who, sizeof(who), "unknown uid");
	else
		snprintf(who, sizeof(who), "uid %lu", (unsigned long)p->uid);
	say(LOG_WARNING, "refused a client of %s (pid %ld): only root and %s may connect", who,
	    (long)p->pid, helper.user);
	out = open_memstream(&text, &n);
	if (out != NULL) {
		wire_write_err(out, WIRE_ERR_FAILED, "%s may not use clustermon-kprobe (only root and %s)",
			       who, helper.user);
		fclose(out);
		send_all(fd, text, n);
		free(text);
	}
	close(fd);
	return false;
}

/* A free slot within the peer's share (half of them at most), or why not. */
static bool slot_for(const struct peer *p, char *why, size_t whylen)
{
	uid_t held[MAX_CLIENTS];

	if (helper.nclients == MAX_CLIENTS) {
		snprintf(why, whylen, "too many clients");
		return false;
	}
	for (size_t i = 0; i < helper.nclients; i++)
		held[i] = helper.clients[i].peer.uid;
	return peer_share_ok(p->uid, held, helper.nclients, MAX_CLIENTS, why, whylen);
}

static void accept_client(int listener)
{
	struct timeval tv = { .tv_sec = 2 };
	int fd = accept4(listener, NULL, NULL, SOCK_CLOEXEC);
	struct peer p;
	char why[128];

	if (fd < 0)
		return;
	peer_of(fd, helper.peer_uid, &p);
	if (!peer_allowed(fd, &p))
		return;
	if (!slot_for(&p, why, sizeof(why))) {
		say(LOG_NOTICE, "refused a client of uid %lu (pid %ld): %s", (unsigned long)p.uid,
		    (long)p.pid, why);
		refuse_client(fd, why);
		return;
	}
	/* A client that stops reading must not stall the others for long. */
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	helper.clients[helper.nclients].fd = fd;
	helper.clients[helper.nclients].peer = p;
	helper.clients[helper.nclients].len = 0;
	helper.nclients++;
}

/* Clients first in pfd, then the running trace sessions' buffers. */
static void serve(int listener)
{
	struct pollfd pfd[MAX_CLIENTS + 1 + MAX_TRACES];
	int timeout = -1;

	while (!stopping) {
		size_t n = helper.nclients + 1;

		if (reloading)
			reload_policy();

		pfd[0] = (struct pollfd){ .fd = listener, .events = POLLIN };
		for (size_t i = 0; i < helper.nclients; i++)
			pfd[i + 1] = (struct pollfd){ .fd = helper.clients[i].fd, .events = POLLIN };
		for (size_t i = 0; i < helper.ntraces; i++)
			if (trace_fd(helper.traces[i]) >= 0)
				pfd[n++] = (struct pollfd){ .fd = trace_fd(helper.traces[i]),
							    .events = POLLIN };
		if (poll(pfd, n, timeout) < 0)
			continue;
		timeout = drain_traces();
		/* Backwards: drop_client moves the last client into slot i. */
		for (size_t i = helper.nclients; i-- > 0;)
			if (pfd[i + 1].revents && !serve_client(&helper.clients[i]))
				drop_client(i);
		if (pfd[0].revents & POLLIN)
			accept_client(listener);
	}
}

/* ------------------------------------------------------------ start-up */

static void fatal(const char *fmt, const char *arg)
{
	char msg[512];

	snprintf(msg, sizeof(msg), fmt, arg, strerror(errno));
	say(LOG_ERR, "%s", msg);
	exit(1);
}

/* A socket another helper still answers is not ours to take over. */
static void claim_socket_path(const struct sockaddr_un *addr)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd >= 0 && connect(fd, (const struct sockaddr *)addr, sizeof(*addr)) == 0) {
		errno = EADDRINUSE;
		fatal("another clustermon-kprobe answers on %s: %s", addr->sun_path);
	}
	if (fd >= 0)
		close(fd);
	unlink(addr->sun_path);
}

static void make_parent_dir(const char *path)
{
	char dir[sizeof(((struct sockaddr_un *)0)->sun_path)];
	char *slash;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (slash == NULL || slash == dir)
		return;
	*slash = '\0';
	if (mkdir(dir, 0755) != 0 && errno != EEXIST)
		fatal("cannot create %s: %s", dir);
}

static int open_socket(void)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	struct group *gr = NULL;
	mode_t old_umask;
	bool bound;
	int fd;

	if (strlen(helper.socket_path) >= sizeof(addr.sun_path)) {
		errno = ENAMETOOLONG;
		fatal("socket path %s: %s", helper.socket_path);
	}
	if (helper.group != NULL && (gr = getgrnam(helper.group)) == NULL) {
		errno = ENOENT;
		fatal("unknown group %s: %s", helper.group);
	}
	if (gr != NULL)
		helper.gid = gr->gr_gid;
	strcpy(addr.sun_path, helper.socket_path);
	make_parent_dir(addr.sun_path);
	claim_socket_path(&addr);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	/* The socket file is made 0600 (umask 0177 over bind): nobody else
	 * connects in the instant before the chmod below opens it to the group. */
	old_umask = umask(0177);
	bound = fd >= 0 && bind(fd, (struct sockaddr *)&addr, sizeof(addr)) == 0;
	umask(old_umask);
	if (!bound || listen(fd, 16) != 0)
		fatal("cannot listen on %s: %s", addr.sun_path);
	/* Owner and group may read counters and manage probes; nobody else.
	 * By name: a socket's fd does not reach its file's mode; the name is in
	 * the socket's directory, root's, where nobody else swaps it. */
	if (chmod(addr.sun_path, gr ? 0660 : 0600) != 0 ||
	    (gr != NULL && chown(addr.sun_path, 0, gr->gr_gid) != 0))
		fatal("cannot set the mode of %s: %s", addr.sun_path);
	return fd;
}

/* Who reads traces: -G's group (looked up before the socket is made), or
 * the socket's (-g) as before. */
static void set_trace_group(void)
{
	struct group *gr;

	if (helper.trace_group == NULL) {
		helper.trace_gid = helper.gid;
		return;
	}
	if ((gr = getgrnam(helper.trace_group)) == NULL) {
		errno = ENOENT;
		fatal("unknown group %s: %s", helper.trace_group);
	}
	helper.trace_gid = gr->gr_gid;
}

/* Tracepoint ids come from tracefs; a bare system may not have it mounted. */
static void mount_if_missing(const char *probe_file, const char *dir, const char *type)
{
	if (access(probe_file, F_OK) == 0)
		return;
	mkdir(dir, 0700);
	if (mount("nodev", dir, type, 0, NULL) != 0 && errno != EBUSY)
		say(LOG_WARNING, "cannot mount %s on %s: %s", type, dir, strerror(errno));
}

/* Pins a killed helper left: their probes went with it. */
static void remove_stale_pins(void)
{
	DIR *d = opendir(helper.bpffs_dir);
	struct dirent *e;
	char path[4096];

	while (d != NULL && (e = readdir(d)) != NULL) {
		if (strncmp(e->d_name, "probe-", 6) != 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", helper.bpffs_dir, e->d_name);
		unlink(path);
	}
	if (d != NULL)
		closedir(d);
}

static void prepare_bpffs(void)
{
	struct statfs fs;

	if (statfs("/sys/fs/bpf", &fs) != 0 || fs.f_type != BPF_FS_MAGIC)
		mount_if_missing("/nonexistent", "/sys/fs/bpf", "bpf");
	if (mkdir(helper.bpffs_dir, 0700) != 0 && errno != EEXIST) {
		say(LOG_WARNING, "cannot create %s (maps stay unpinned): %s", helper.bpffs_dir,
		    strerror(errno));
		helper.bpffs_dir = NULL;
		return;
	}
	remove_stale_pins();
}

static void usage(void)
{
	fprintf(stderr, "usage: clustermon-kprobe [-f] [-s CONTROL-SOCKET] [-b BPFFS-DIR] "
		"[-g GROUP] [-G TRACE-GROUP] [-u USER] [-t TRACE-DIR] [-r] [-n]\n"
		"       [-S SENSORS]"
		" [-B RING-BYTES] [-Q DISK-BYTES] [-R RESERVE-PERCENT] [-K KEEP] [-A SECONDS]\n"
		"       [-P POLICY-FILE]\n");
	exit(2);
}

static void parse_args(int argc, char **argv)
{
	char why[128];
	int opt;

	budget_defaults(&helper.budget.lim);
	while ((opt = getopt(argc, argv, "fs:b:g:G:u:t:rnS:B:Q:R:K:A:P:h")) != -1) {
		switch (opt) {
		case 'f': helper.foreground = true; break;
		case 'r': helper.raw_tracepoints = true; break;
		case 'n': helper.sensors_on = SENSOR_RUNQLAT; break;
		case 'S':
			if (sensors_parse(optarg, &helper.sensors_on, why, sizeof(why)) != 0) {
				fprintf(stderr, "clustermon-kprobe: -S %s: %s\n", optarg, why);
				exit(2);
			}
			break;
		case 's': helper.socket_path = optarg; break;
		case 'b': helper.bpffs_dir = optarg; break;
		case 'g': helper.group = optarg; break;
		case 'G': helper.trace_group = optarg; break;
		case 'u': helper.user = optarg; break;
		case 't': helper.trace_dir = optarg; break;
		case 'P': helper.policy_path = optarg; break;
		case 'B': case 'Q': case 'R': case 'K': case 'A':
			if (budget_option(opt, optarg, &helper.budget.lim) != 0) {
				fprintf(stderr, "clustermon-kprobe: -%c %s: not a %s\n", opt, optarg,
					opt == 'R' ? "percentage of 0 to 90" :
					opt == 'B' || opt == 'Q' ? "size (BYTES, or N with K, M, G or T)" :
					"number");
				exit(2);
			}
			break;
		default: usage();
		}
	}
	if (optind != argc)
		usage();
}

static void shut_down(int listener)
{
	while (helper.ntraces > 0)
		remove_trace(&helper.traces[helper.ntraces - 1]);
	while (helper.nprobes > 0)
		remove_probe(&helper.probes[helper.nprobes - 1]);
	dists_clear();
	sensors_stop(&helper.sensors);
	close(listener);
	unlink(helper.socket_path);
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct timespec now;
	char why[256];
	int listener;

	parse_args(argc, argv);
	openlog("clustermon-kprobe", LOG_PID, LOG_DAEMON);
	/* A bad policy is no policy: refused before anything is hooked. */
	if (load_policy(why, sizeof(why)) != 0) {
		say(LOG_ERR, "%s", why);
		exit(1);
	}
	if (helper.user != NULL) {
		struct passwd *pw = getpwnam(helper.user);

		if (pw == NULL) {
			errno = ENOENT;
			fatal("unknown user %s: %s", helper.user);
		}
		helper.peer_uid = pw->pw_uid;
	}
	libbpf_set_print(libbpf_log);
	if (geteuid() != 0)
		say(LOG_WARNING, "not root: loading BPF programs needs CAP_BPF and CAP_PERFMON");
	mount_if_missing("/sys/kernel/tracing/events", "/sys/kernel/tracing", "tracefs");
	if (helper.bpffs_dir != NULL)
		prepare_bpffs();
	if (helper.trace_group != NULL)
		set_trace_group();
	listener = open_socket();
	if (helper.trace_group == NULL)
		set_trace_group();
	/* A trace must not be the first to find the directory missing. */
	if (trace_make_base(helper.trace_dir, helper.trace_gid, why, sizeof(why)) != 0)
		say(LOG_WARNING, "%s; traces fail until it can be created", why);
	else
		retain_traces();
	if (!helper.foreground && daemon(0, 0) != 0)
		fatal("cannot become a daemon%s: %s", "");
	clock_gettime(CLOCK_REALTIME, &now);
	snprintf(helper.instance, sizeof(helper.instance), "%d-%lld%09ld", (int)getpid(),
		 (long long)now.tv_sec, now.tv_nsec);
	if (sensors_start(&helper.sensors, helper.raw_tracepoints, helper.sensors_on, why,
			  sizeof(why)) != 0)
		say(LOG_WARNING, "%s; running without them", why);
	else
		say(LOG_INFO, "scheduler sensors on %s%s", helper.sensors.btf ?
		    "BTF tracepoints with task storage" : "raw tracepoints",
		    helper.sensors.cgroup_storage ? ", per-cgroup sums in cgroup storage" : "");
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sa.sa_handler = on_hangup;
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	say(LOG_INFO, "listening on %s", helper.socket_path);
	serve(listener);
	shut_down(listener);
	return 0;
}
