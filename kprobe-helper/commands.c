/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * commands.c - the control socket's verbs (commands.h): probes added and
 * removed, counters read, trace sessions started and stopped, the maps'
 * fds handed over, every hook checked against the policy first.
 */
#include "commands.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "dists.h"
#include "state.h"
#include "common/wire.h"

/* ------------------------------------------------------------ policy */

int load_policy(char *why, size_t whylen)
{
	const char *path = helper.policy_path ? helper.policy_path : POLICY_DEFAULT_PATH;
	int rc = policy_load(path, helper.policy_path == NULL, &helper.policy, why, whylen);

	if (rc < 0)
		return -1;
	say(LOG_INFO, "hooks allowed by %s (%zu rules)", rc == 1 ? "the built-in policy" : path,
	    helper.policy.nrules);
	return 0;
}

void reload_policy(void)
{
	char why[512];

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

/* A new probe or session: room for it (n of max kept, unless it replaces
 * one) and its memory, zeroed; NULL with the refusal written if not. */
static void *new_entry(bool replaces, size_t n, size_t max, const char *what, size_t size,
		       FILE *out)
{
	void *e;

	if (!replaces && n == max) {
		wire_write_err(out, WIRE_ERR_BUSY, "at most %zu %s", max, what);
		return NULL;
	}
	if ((e = calloc(1, size)) == NULL)
		wire_write_err(out, WIRE_ERR_FAILED, "out of memory");
	return e;
}

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
	p = new_entry(old != NULL, helper.nprobes, MAX_PROBES, "probes", sizeof(*p), out);
	if (p == NULL)
		return;
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
	t = new_entry(old != NULL, helper.ntraces, MAX_TRACES, "traces", sizeof(*t), out);
	if (t == NULL)
		return;
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

void retain_traces(void)
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

int drain_traces(void)
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

void serve_request(const struct peer *peer, const char *line, FILE *out)
{
	struct wire_request r;
	char why[256];

	if (wire_parse_request(line, &r, why, sizeof(why)) != 0) {
		wire_write_err(out, WIRE_ERR_INVALID, "%s", why);
		return;
	}
	if (!peer_may(peer, r.verb, helper.user, why, sizeof(why))) {
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

void commands_stop_all(void)
{
	while (helper.ntraces > 0)
		remove_trace(&helper.traces[helper.ntraces - 1]);
	while (helper.nprobes > 0)
		remove_probe(&helper.probes[helper.nprobes - 1]);
	dists_clear();
}
