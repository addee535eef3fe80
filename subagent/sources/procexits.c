// SPDX-License-Identifier: BSD-2-Clause
/*
 * procexits.c - the proc source's exit log (issue 43), kept on its thread.
 *
 * With the helper: its sched_process_exit program writes a record when a
 * process's last thread exits, into a ring buffer this thread drains at
 * each sample; the figures are the kernel's and the helper's at the exit,
 * so a process that lived 5 ms between two samples is there, exactly.
 *
 * Without it (an older helper, -S without exits, a container's own pid
 * namespace, no helper): a process the table forgets is logged from its
 * last row, marked approximate: what the scanner last read (up to an
 * interval before the end), the last RSS for the peak, no I/O, no exit
 * status, and nothing of a process that lived between two samples. We
 * chose this over taskstats (its netlink exit multicast gives exact
 * records to anyone): that needs CAP_NET_ADMIN to register a CPU mask, a
 * capability clustermond drops, and the helper already runs where exact
 * records are wanted.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "procsrc.h"
#include "common/clock.h"

/* Records drained at most per sample (the ring holds about 5,000). */
#define DRAIN_MAX 20000
/* cgroup ids not known yet: the unified tree is walked again this often. */
#define CGID_GAP_NS SEC_NS
/* cgroups named lately, by id: a build farm's thousands of exits a second
 * come from a few cgroups, each named once in a while rather than once an
 * exit (a cgroup renamed shows under its new name within the while). */
#define NAMES 64
#define NAME_TTL_NS (10 * SEC_NS)

struct exit_name {
	uint64_t cgid, until_ns;
	char cgroup[EXIT_CGROUP_MAX];
	char workload[WORKLOAD_MAX];
};

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * SEC_NS + (uint64_t)ts.tv_nsec;
}

/* CLOCK_MONOTONIC ns (the helper's times) to ms since the epoch. */
static uint64_t epoch_ms(uint64_t mono_ns)
{
	uint64_t real = clock_ns(CLOCK_REALTIME), mono = clock_ns(CLOCK_MONOTONIC);

	return (mono_ns <= mono ? real - (mono - mono_ns) : real) / 1000000u;
}

/* The command line's NUL-separated arguments, spaced as ps shows them. */
static void spaced(char *out, size_t cap, const char *args, size_t len)
{
	size_t n = len < cap - 1 ? len : cap - 1;

	while (n > 0 && args[n - 1] == '\0')
		n--;
	for (size_t i = 0; i < n; i++)
		out[i] = args[i] == '\0' ? ' ' : args[i];
	out[n] = '\0';
}

/* What the table knew of the process, when the row is still its. */
static const struct proc_row *row_of(struct proc_source *src, uint32_t pid, uint64_t start_ms)
{
	const struct proc_row *r = proctab_find(&src->tab, (int32_t)pid);
	uint64_t s = start_ms / 1000;

	if (r == NULL || r->start_time + 1 < s || r->start_time > s + 1)
		return NULL;
	return r;
}

static void exit_status(struct exit_entry *e, uint32_t status)
{
	e->have_exit = true;
	e->exit_signal = (int32_t)(status & 0x7f);
	e->exit_code = e->exit_signal ? -1 : (int32_t)((status >> 8) & 0xff);
}

/* The path and workload of cgroup cgid into e. */
static void name_cgroup(struct proc_source *src, uint64_t cgid, uint64_t now,
			struct exit_entry *e)
{
	struct exit_name *n;

	if (src->names == NULL)
		src->names = calloc(NAMES, sizeof(*src->names));
	n = src->names != NULL ? &src->names[cgid % NAMES] : NULL;
	if (n != NULL && n->cgid == cgid && now < n->until_ns) {
		memcpy(e->cgroup, n->cgroup, sizeof(e->cgroup));
		memcpy(e->workload, n->workload, sizeof(e->workload));
		return;
	}
	cgid_map_path(src->cgids, src->root, cgid, now, e->cgroup, sizeof(e->cgroup));
	workload_name(e->cgroup, e->workload, sizeof(e->workload));
	if (n != NULL && e->cgroup[0] != '\0') { /* an unknown one is looked for again */
		n->cgid = cgid;
		n->until_ns = now + NAME_TTL_NS;
		memcpy(n->cgroup, e->cgroup, sizeof(n->cgroup));
		memcpy(n->workload, e->workload, sizeof(n->workload));
	}
}

/* What the record says of the process, but for its names. */
static void from_record(const struct cm_exit_rec *x, struct exit_entry *e)
{
	memset(e, 0, sizeof(*e));
	e->pid = x->tgid;
	e->ppid = x->ppid;
	e->uid = x->uid;
	exit_status(e, x->exit_code);
	e->oom_killed = x->flags & CM_EXIT_OOM;
	e->start_ms = epoch_ms(x->start_ns);
	e->end_ms = epoch_ms(x->end_ns);
	e->cpu_ns = x->cpu_ns;
	e->user_ns = x->utime_ns;
	e->system_ns = x->stime_ns;
	e->run_delay_ns = x->run_delay_ns;
	e->peak_rss_kb = x->maxrss_kb;
	e->majflt = x->majflt;
	e->have_io = true;
	e->read_bytes = x->read_bytes;
	e->write_bytes = x->write_bytes;
	snprintf(e->comm, sizeof(e->comm), "%s", x->comm);
}

/* Its command line, cgroup and workload: from the record, or the table's
 * row while it is the process's, or the cgroup's id. */
static void name_entry(struct proc_source *src, const struct cm_exit_rec *x,
		       struct exit_entry *e, uint64_t now)
{
	const struct proc_row *r = row_of(src, x->tgid, e->start_ms);

	if (x->flags & CM_EXIT_HAS_ARGS)
		spaced(e->cmdline, sizeof(e->cmdline), x->args, x->args_len);
	else if (r != NULL)
		snprintf(e->cmdline, sizeof(e->cmdline), "%s", r->cmdline);
	if (r != NULL && r->cgroup[0] != '\0') {
		snprintf(e->cgroup, sizeof(e->cgroup), "%s", r->cgroup);
		workload_name(e->cgroup, e->workload, sizeof(e->workload));
	} else {
		name_cgroup(src, x->cgid, now, e);
	}
}

struct drain_ctx {
	struct proc_source *src;
	uint64_t now;
};

static void on_record(void *arg, const union exit_ring_rec *rec)
{
	struct drain_ctx *d = arg;
	struct proc_source *src = d->src;
	struct exit_entry e;
	uint64_t seq = rec->kind == CM_REC_EXIT ? rec->exit.seq : rec->oom.seq;

	if (src->exit_seq_known && seq > src->exit_seq)
		src->exits_lost += seq - src->exit_seq;
	if (!src->exit_seq_known || seq >= src->exit_seq)
		src->exit_seq = seq + 1;
	src->exit_seq_known = true;
	if (rec->kind != CM_REC_EXIT || rec->exit.end_ns < src->exits_from_ns)
		return;
	from_record(&rec->exit, &e);
	/* One the filters refuse anyway is not named (exitlog_add counts it). */
	if (exitlog_passes_unnamed(&src->exit_conf, &e))
		name_entry(src, &rec->exit, &e, d->now);
	exitlog_add(&src->exit_log, &src->exit_conf, &e, d->now);
}

/* The ring, attached when due (at most once a rescan interval). */
static bool ring_ready(struct proc_source *src, uint64_t now)
{
	char why[256];

	if (src->exits != NULL && !helper_exits_alive(src->exits)) {
		helper_exits_detach(src->exits);
		src->exits = NULL;
	}
	if (src->exits != NULL)
		return true;
	if (src->root[0] != '\0' || src->child_pidns ||
	    (src->last_exits_try_ns != 0 && now - src->last_exits_try_ns < RESCAN_NS))
		return false;
	src->last_exits_try_ns = now;
	src->exits = helper_exits_attach(src->helper_socket, EXIT_RING_EXITS, HELPER_TIMEOUT_MS,
					 why, sizeof(why));
	if (src->exits == NULL)
		return false;
	/* A new ring (or helper) numbers from wherever it is. The ring still
	 * holds what no reader took: the exits since our start, unless the
	 * process table logged some meanwhile (approximate), which would then
	 * be logged twice; and never those before our start (a ring nobody
	 * read holds the helper's first 5,000). */
	src->exit_seq_known = false;
	if (src->approx_logged || src->exits_from_ns == 0)
		src->exits_from_ns = now;
	src->approx_logged = false;
	return true;
}

void procexits_poll(struct proc_source *src, uint64_t now)
{
	struct drain_ctx d = { src, now };

	if (src->cgids == NULL)
		src->cgids = cgid_map_new(CGID_GAP_NS, CGID_UNIFIED);
	if (src->cgids != NULL && ring_ready(src, now))
		helper_exits_drain(src->exits, DRAIN_MAX, on_record, &d);
	exitlog_expire(&src->exit_log, &src->exit_conf, now);
}

void procexits_gone(struct proc_source *src, const struct proc_row *r)
{
	struct exit_entry e;

	if (src->exits != NULL || r == NULL)
		return;
	memset(&e, 0, sizeof(e));
	e.approximate = true;
	e.pid = (uint32_t)r->pid;
	e.uid = r->uid;
	e.exit_code = -1;
	e.start_ms = r->start_time * 1000;
	e.end_ms = clock_ns(CLOCK_REALTIME) / 1000000u;
	e.user_ns = r->user_ms * 1000000u;
	e.system_ns = r->system_ms * 1000000u;
	e.cpu_ns = r->have_schedstat ? r->cpu_ns : e.user_ns + e.system_ns;
	e.run_delay_ns = r->run_delay_ns;
	e.peak_rss_kb = r->rss_kb;
	e.majflt = r->majflt;
	snprintf(e.comm, sizeof(e.comm), "%s", r->comm);
	snprintf(e.cmdline, sizeof(e.cmdline), "%s", r->cmdline);
	snprintf(e.cgroup, sizeof(e.cgroup), "%s", r->cgroup);
	workload_name(e.cgroup, e.workload, sizeof(e.workload));
	exitlog_add(&src->exit_log, &src->exit_conf, &e, cm_clock_ns());
	src->approx_logged = true;
}

static struct snapshot_slot exit_slot = SNAPSHOT_SLOT_INIT;
/* The last published snapshot's exact, for readers that need no view. */
static atomic_bool exact_now;

bool proc_exits_exact(void)
{
	return atomic_load_explicit(&exact_now, memory_order_relaxed);
}

struct exit_snapshot *proc_exits_take(void)
{
	return (struct exit_snapshot *)snapshot_acquire(&exit_slot);
}

void proc_exits_drop(struct exit_snapshot *s)
{
	if (s != NULL)
		snapshot_release(&exit_slot, &s->hdr);
}

static void exit_snapshot_destroy(struct snapshot *s)
{
	exit_view_drop(((struct exit_snapshot *)s)->log);
	free(s);
}

void procexits_publish(struct proc_source *src)
{
	bool exact = src->exits != NULL;
	struct exit_snapshot *snap;

	if (src->exit_gen != 0 && !src->exit_log.changed && src->exit_pub_lost == src->exits_lost &&
	    src->exit_pub_exact == exact)
		return;
	if ((snap = calloc(1, sizeof(*snap))) == NULL)
		return;
	if ((snap->log = exitlog_view(&src->exit_log)) == NULL) {
		free(snap);
		return;
	}
	snap->log->lost = src->exits_lost;
	snap->exact = exact;
	snap->gen = ++src->exit_gen;
	snap->hdr.refs = 1;
	snap->hdr.destroy = exit_snapshot_destroy;
	src->exit_pub_lost = src->exits_lost;
	src->exit_pub_exact = exact;
	atomic_store_explicit(&exact_now, exact, memory_order_relaxed);
	snapshot_publish(&exit_slot, &snap->hdr);
}

void procexits_fini(struct proc_source *src)
{
	helper_exits_detach(src->exits);
	src->exits = NULL;
	snapshot_clear(&exit_slot);
	atomic_store(&exact_now, false);
	exitlog_free(&src->exit_log);
	cgid_map_free(src->cgids);
	src->cgids = NULL;
	free(src->names);
	src->names = NULL;
}
