/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * proc.c - the "proc" source (WallMon): every process at 10-100 Hz, as a
 * pid-sorted table that keeps its state across samples. It runs on a thread
 * of its own.
 *
 * Cost follows change (issue 23). A sample touches only the processes that
 * changed, and the snapshot it publishes shares every other row with the
 * last one (sources/proctab.h).
 *
 * Two ways to learn what changed, each in a file of its own: fed by
 * clustermon-kprobe (procfed.c) or scanning /proc (procscanner.c). The state
 * both keep of each process is procpids.c's; this file sets the source up,
 * picks the way for each sample and publishes.
 *
 * In a PID namespace of its own (a container, a node of the fleet in
 * docs/fleet.md) it is always the scanner: the helper names processes by
 * the kernel's pids.
 */
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <syslog.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/number.h"
#include "procsrc.h"
#include "source_cmd.h"
#include "oomwatch.h"
#include "top.h"
#include "../runtime/logq.h"

static struct snapshot_slot proc_slot = SNAPSHOT_SLOT_INIT;

/* ------------------------------------------------------------ set-up */

/* btime from /proc/stat: process start times are relative to boot. */
static uint64_t read_boot_time(const char *root)
{
	struct procfile pf;
	char buf[8192], *p;
	uint64_t t = 0;

	if (procfile_open(&pf, root, "proc/stat") != 0)
		return 0;
	if (procfile_read(&pf, buf, sizeof(buf)) > 0 || errno == EFBIG)
		if ((p = strstr(buf, "\nbtime ")) != NULL)
			if (num_scan_u64(p + 7, NULL, &t) != NUM_OK)
				t = 0;
	procfile_close(&pf);
	return t;
}

static size_t hot_capacity(void)
{
	struct rlimit rl;
	size_t n = HOT_MAX;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
		n = (size_t)rl.rlim_cur / 16;
	return n < HOT_MAX ? n : HOT_MAX;
}

static void proc_fini(void *ctx)
{
	struct proc_source *src = ctx;

	if (src == NULL)
		return;
	proc_scanner_free(src->scanner);
	if (src->root[0] == '\0' && !src->child_pidns)
		oomwatch_stop();
	procexits_fini(src);
	helper_maps_detach(src->maps);
	procfile_close(&src->loadavg);
	free(src->listed);
	proctab_free(&src->tab);
	free(src->st);
	free(src->slow.v);
	free(src->busy.v);
	free(src->zombies.v);
	free(src->cur);
	cg_pid_cache_free(src->cgroups);
	free(src);
}

static void look_for_new(void *ctx);

static void *proc_init(const char *root)
{
	struct proc_source *src = calloc(1, sizeof(*src));

	if (src == NULL)
		return NULL;
	src->loadavg.fd = -1;
	snprintf(src->root, sizeof(src->root), "%s", root);
	snprintf(src->helper_socket, sizeof(src->helper_socket), "%s", PROBES_DEFAULT_SOCKET);
	snprintf(src->image_path, sizeof(src->image_path), "%s", SOURCES_DEFAULT_IMAGE);
	src->filter.uid = -1;
	proctab_init(&src->tab);
	exitlog_init(&src->exit_log);
	src->exits_from_ns = cm_clock_ns();
	src->scanner = proc_scanner_new(root, hot_capacity());
	/* Processes seldom change cgroups after start; 10,000 of them re-read
	 * every second would cost 5% of a core. */
	src->cgroups = cg_pid_cache_new(10 * RESCAN_NS);
	src->hz = (unsigned)sysconf(_SC_CLK_TCK);
	src->page_kb = sysconf(_SC_PAGESIZE) / 1024;
	src->boot_time = read_boot_time(root);
	src->child_pidns = proc_self_in_child_pidns(root);
	if (src->scanner == NULL) {
		proc_fini(src);
		return NULL;
	}
	src->reader = proc_scanner_reader(src->scanner);
	if (procfile_open(&src->loadavg, root, "proc/loadavg") != 0)
		src->loadavg.fd = -1;
	proc_scanner_on_tick(src->scanner, look_for_new, src);
	return src;
}

/* ------------------------------------------------------------ a sample */

static bool passes(const struct proc_filter *f, const struct proc_row *r)
{
	if (f->uid >= 0 && (int64_t)r->uid != f->uid)
		return false;
	return f->name[0] == '\0' || fnmatch(f->name, r->comm, 0) == 0;
}

static int by_util_desc(const void *a, const void *b)
{
	const struct proc_row *x = *(const struct proc_row *const *)a;
	const struct proc_row *y = *(const struct proc_row *const *)b;

	if (x->util != y->util)
		return x->util < y->util ? 1 : -1;
	return (x->pid > y->pid) - (x->pid < y->pid);
}

static int by_pid(const void *a, const void *b)
{
	const struct proc_row *x = *(const struct proc_row *const *)a;
	const struct proc_row *y = *(const struct proc_row *const *)b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

/* With a filter, the rows it passes (the top N busiest, in pid order):
 * O(rows), paid only while a filter is set. */
static int filter_view(struct proc_snapshot *snap, const struct proc_filter *f)
{
	const struct proc_row **view;
	size_t n = 0;

	if (f->name[0] == '\0' && f->uid < 0 && f->top == 0)
		return 0;
	view = malloc((snap->nall ? snap->nall : 1) * sizeof(*view));
	if (view == NULL)
		return -1;
	for (size_t i = 0; i < snap->nall; i++) {
		const struct proc_row *r = proc_snapshot_row(snap, i);

		if (passes(f, r))
			view[n++] = r;
	}
	if (f->top != 0 && n > f->top) {
		qsort(view, n, sizeof(*view), by_util_desc);
		n = f->top;
		qsort(view, n, sizeof(*view), by_pid);
	}
	snap->view = view;
	snap->nrows = n;
	return 0;
}

static int proc_publish(struct proc_source *src, size_t followed)
{
	struct proc_snapshot *snap = proctab_publish(&src->tab);

	if (snap == NULL)
		return -1;
	if (top_rank_procs(&src->tab, snap) != 0 || filter_view(snap, &src->filter) != 0) {
		snap->hdr.destroy(&snap->hdr);
		return -1;
	}
	snap->followed = followed;
	snap->sweep_fixes = src->sweep_fixes;
	snap->helper_fed = src->fed;
	snap->agent_rss_kb = src->agent.rss_kb;
	snap->agent = src->agent;
	snapshot_publish(&proc_slot, &snap->hdr);
	procexits_publish(src);
	return 0;
}

/* The scanner's tick, during a pass too: new processes published at once
 * (the scanner finds them, this file publishes, so procscanner.c calls
 * nothing here). */
static void look_for_new(void *ctx)
{
	struct proc_source *src = ctx;

	if (procscan_look_for_new(src) > 0)
		proc_publish(src, src->tab.nrows);
}

/* One sample, fed by hp when it is not NULL, else by the scanner. */
static int sample_with(struct proc_source *src, const struct helper_procs *hp, uint64_t now)
{
	uint64_t elapsed = src->prev_ns ? now - src->prev_ns : 0;
	int rc;

	src->nsample++;
	if (hp != NULL) {
		rc = procfed_sample(src, hp, now, elapsed);
	} else {
		src->synced = false;
		if (src->fed)
			src->last_rescan_ns = 0; /* back to the scanner: list /proc now */
		rc = procscan_sample(src, now, elapsed);
	}
	src->fed = hp != NULL;
	if (rc < 0)
		return -1;
	if (now - src->last_self_ns >= SEC_NS) {
		self_cost_read(&src->agent, src->image_path);
		src->last_self_ns = now;
	}
	src->prev_ns = now;
	return proc_publish(src, src->tab.nrows);
}

/* Nobody reads the table (sampler.h's demand): the exit ring is drained
 * all the same, or it would fill and refuse exits, the log aged and
 * published: a reader of the log alone wakes nothing (mib/exits.c). */
static int proc_sample_idle(void *ctx)
{
	procexits_poll(ctx, cm_clock_ns());
	procexits_publish(ctx);
	return 0;
}

static int proc_sample(void *ctx)
{
	struct proc_source *src = ctx;
	uint64_t now = cm_clock_ns();
	struct helper_procs hp;
	int rc;

	procexits_poll(src, now);
	if (procfed_poll(src, now, &hp) != 0) {
		/* A helper that missed an answer or two (a loaded machine)
		 * keeps its table: the next answer covers the gap. Falling
		 * back to the scanner and returning would cost two full
		 * reads of /proc. */
		if (src->fed && (++src->helper_misses < HELPER_MISSES ||
				 now - src->last_fed_ns < HELPER_GRACE_NS))
			return 0;
		return sample_with(src, NULL, now);
	}
	src->helper_misses = 0;
	src->last_fed_ns = now;
	rc = sample_with(src, &hp, now);
	helper_procs_free(&hp);
	return rc;
}

int proc_source_feed(void *ctx, const char *reply)
{
	struct helper_procs hp;
	char why[256];
	int rc;

	if (helper_parse_procs(reply, &hp, why, sizeof(why)) != 0)
		return -1;
	rc = sample_with(ctx, &hp, cm_clock_ns());
	helper_procs_free(&hp);
	return rc;
}

static void proc_configure(void *ctx, const struct sources_conf *c)
{
	struct proc_source *src = ctx;

	src->filter = c->proc_filter;
	src->exit_conf = c->exits;
	snprintf(src->helper_socket, sizeof(src->helper_socket), "%s",
		 c->helper_socket[0] ? c->helper_socket : PROBES_DEFAULT_SOCKET);
	snprintf(src->image_path, sizeof(src->image_path), "%s",
		 c->image_path[0] ? c->image_path : SOURCES_DEFAULT_IMAGE);
	src->last_self_ns = 0; /* the image may have moved: read again now */
	/* OOM victims come from the helper by pid: not from a fixture root or
	 * a pid namespace of our own. */
	if (src->root[0] == '\0' && !src->child_pidns && oomwatch_start(src->helper_socket) != 0)
		logq_printf(LOG_WARNING, "clustermond: cannot start the OOM watcher thread");
}

static void proc_command(void *ctx, const struct source_cmd *cmd)
{
	if (cmd->kind == SOURCE_CMD_PROC_FILTER)
		((struct proc_source *)ctx)->filter = cmd->proc_filter;
}

struct proc_snapshot *proc_snapshot_take(void)
{
	return (struct proc_snapshot *)snapshot_acquire(&proc_slot);
}

void proc_snapshot_drop(struct proc_snapshot *s)
{
	if (s != NULL)
		snapshot_release(&proc_slot, &s->hdr);
}

static const char *proc_method(const struct snapshot *s)
{
	return ((const struct proc_snapshot *)s)->helper_fed ? "helper" : "scanner";
}

const struct source_ops proc_source_ops = {
	.index = SOURCE_PROC,
	.name = "proc",
	.slot = &proc_slot,
	.method = proc_method,
	/* 1 Hz by default: without the helper a node with thousands of
	 * processes pays milliseconds a sample. sampleInterval proc 100 (or
	 * 10) gives WallMon's rates. */
	.default_interval_ms = 1000,
	.own_thread = true,
	.init = proc_init,
	.sample = proc_sample,
	.sample_idle = proc_sample_idle,
	.fini = proc_fini,
	.configure = proc_configure,
	.command = proc_command,
};
