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
 * Helper-fed (clustermon-kprobe's per-process accounting): each sample asks
 * the helper which processes ran, appeared (MARK 3: a fork or an exec) or
 * exited since the last one, and touches those alone. A process seen for the
 * first time has its identity read (stat, status, cmdline, and what it used
 * before the helper counted); one that ran has its CPU time and run delay
 * from the helper every sample, and its slow fields (state, memory, faults,
 * context switches, cmdline) from /proc at most once a second. /proc is
 * listed only by a consistency sweep every 30 s, whose corrections are
 * counted (clusterMonProcSweepFixes): with no event lost there are none.
 *
 * Without the helper the scanner reads every process's stat every sample
 * (schedstat when its ticks moved; status at a turn once a second spread
 * over the samples, and only if the process ran since its last); rows that
 * read the same are still shared. New processes are found from the pids
 * the kernel handed out since the last look (look_for_new), not by
 * listing /proc, which it does every 30 s as a check. At 10,000
 * processes a sample takes a few hundred ms on two CPUs, so a 100 ms
 * interval is not kept there: CpuNs is as of the last sample.
 * In a PID namespace of its own (a container, a node of the fleet in
 * docs/fleet.md) it is always the scanner: the helper names processes by
 * the kernel's pids.
 */
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "../collect/cgroup.h"
#include "../collect/collect.h"
#include "../collect/helper.h"
#include "../collect/helpermaps.h"
#include "../collect/proc.h"
#include "common/clock.h"
#include "common/number.h"
#include "../core/counter.h"
#include "probes.h"
#include "proctab.h"
#include "sources.h"
#include "top.h"

struct snapshot_slot proc_slot = SNAPSHOT_SLOT_INIT;

#define SEC_NS 1000000000ull
/* The scanner reads every process's status about this often, spread over
 * its samples. */
#define RESCAN_NS SEC_NS
/* Slow fields of a process that ran, at most this often. */
#define SLOW_NS SEC_NS
/* The helper-fed table is checked against a listing of /proc this often. */
#define SWEEP_NS (30 * SEC_NS)
/* A helper that does not answer in this long is taken as gone; one that is
 * not there is asked again after a rescan interval. */
#define HELPER_TIMEOUT_MS 200
#define HELPER_GRACE_NS (300 * 1000000ull)
#define HELPER_MISSES 3
/* The scanner looks for new processes at most this often during a pass,
 * tries at most this many new pids one by one, and lists /proc this often. */
#define NEW_LOOK_NS (100 * 1000000ull)
#define NEW_PROBE_MAX 4096u
#define LIST_NS (30 * SEC_NS)
/* Processes whose stat and schedstat stay open (two fds each): the ones
 * that ran most recently, within a sixteenth of the fd limit and never more
 * than HOT_MAX, so the rest of clustermond keeps its descriptors. */
#define HOT_MAX 512

static atomic_bool helper_fed;

const char *proc_method(void)
{
	return atomic_load(&helper_fed) ? "helper" : "scanner";
}

/* What the source keeps of one process between samples. */
struct pstate {
	int32_t pid;                /* 0: a free slot */
	uint64_t start_ticks;
	bool have_ticks;            /* utime and stime hold the last stat read's */
	uint64_t utime, stime;
	uint64_t slow_ns;           /* the last read of its slow fields */
	uint64_t read_ns;           /* scanner: its last read (idle ones rest) */
	uint64_t ran;               /* the sample it last ran in (helper-fed) */
	uint32_t mark;              /* the scan or sweep that last saw it */
	bool queued;                /* on the slow list */
	bool busy;                  /* its row's util is not 0 */
	struct proc_acct acct;
};

/* A list of pids (kept small: what ran lately). */
struct pidlist {
	int32_t *v;
	size_t n, cap;
};

struct proc_source {
	struct proc_scanner *scanner;
	struct proc_reader *reader;
	struct proctab tab;
	struct pstate *st;          /* open addressing on pid, linear probing */
	size_t st_cap, st_n;
	struct pidlist slow, busy, zombies;
	struct proc_sample *cur;    /* the scanner's output */
	size_t cur_cap;
	uint64_t prev_ns, last_rescan_ns, last_sweep_ns, last_self_ns, nsample;
	uint64_t now_ns;            /* the scanner sample's start */
	uint32_t mark;
	uint64_t sweep_fixes;
	struct self_cost agent;     /* clustermond's own cost, once a second */
	char image_path[PATH_MAX];  /* the image's, whose size is part of it */
	unsigned hz;
	long page_kb;
	uint64_t boot_time;
	struct proc_filter filter;  /* this thread's own: set by configure and commands */
	struct cg_pid_cache *cgroups; /* each process's cgroup, re-read every 10 s */
	char root[256];
	/* helper-fed mode */
	bool child_pidns;           /* the helper's pids are not ours: scanner only */
	char helper_socket[PROBE_SOCKET_MAX]; /* helperSocket, by configure */
	bool fed;                   /* the last sample was */
	bool synced;                /* helper-fed: every process joined */
	uint64_t last_try_ns;       /* of the helper, when it was not there */
	uint64_t last_fed_ns;       /* its last answer */
	unsigned helper_misses;     /* answers missed since */
	char instance[64];          /* the helper's: a new one counts from zero */
	struct helper_maps *maps;   /* its maps, read here (NULL: ask it) */
	uint64_t last_maps_try_ns;
	/* scanner: new processes looked for during a pass (look_for_new) */
	struct procfile loadavg;    /* kept open; fd -1 where it cannot be */
	uint32_t last_pid;          /* its last pid at the last look */
	uint64_t last_look_ns, last_list_ns;
	pid_t *listed;
	size_t listed_cap;
};

/* ------------------------------------------------------------ pid state */

static size_t slot_of(const struct proc_source *src, int32_t pid)
{
	return ((uint32_t)pid * 2654435761u) & (src->st_cap - 1);
}

static struct pstate *ps_find(struct proc_source *src, int32_t pid)
{
	if (src->st_cap == 0)
		return NULL;
	for (size_t i = slot_of(src, pid);; i = (i + 1) & (src->st_cap - 1)) {
		if (src->st[i].pid == pid)
			return &src->st[i];
		if (src->st[i].pid == 0)
			return NULL;
	}
}

static int ps_grow(struct proc_source *src)
{
	size_t old_cap = src->st_cap, cap = old_cap ? old_cap * 2 : 1024;
	struct pstate *old = src->st, *fresh = calloc(cap, sizeof(*fresh));

	if (fresh == NULL)
		return -1;
	src->st = fresh;
	src->st_cap = cap;
	for (size_t i = 0; i < old_cap; i++) {
		size_t j = slot_of(src, old[i].pid);

		if (old[i].pid == 0)
			continue;
		while (fresh[j].pid != 0)
			j = (j + 1) & (cap - 1);
		fresh[j] = old[i];
	}
	free(old);
	return 0;
}

/* pid's state, made (zeroed) when there is none; NULL when out of memory. */
static struct pstate *ps_get(struct proc_source *src, int32_t pid)
{
	struct pstate *s = ps_find(src, pid);
	size_t i;

	if (s != NULL)
		return s;
	if ((src->st_n + 1) * 2 > src->st_cap && ps_grow(src) != 0)
		return NULL;
	for (i = slot_of(src, pid); src->st[i].pid != 0; i = (i + 1) & (src->st_cap - 1))
		;
	memset(&src->st[i], 0, sizeof(src->st[i]));
	src->st[i].pid = pid;
	src->st_n++;
	return &src->st[i];
}

/* Removal with backward shift: no tombstones, lookups stay short. */
static void ps_del(struct proc_source *src, struct pstate *s)
{
	size_t mask = src->st_cap - 1, i = (size_t)(s - src->st), j = i;

	src->st[i].pid = 0;
	src->st_n--;
	for (;;) {
		size_t home;

		j = (j + 1) & mask;
		if (src->st[j].pid == 0)
			return;
		home = slot_of(src, src->st[j].pid);
		/* j may move to i unless its home lies cyclically in (i, j]. */
		if ((j > i && (home <= i || home > j)) || (j < i && home <= i && home > j)) {
			src->st[i] = src->st[j];
			src->st[j].pid = 0;
			i = j;
		}
	}
}

static void pl_add(struct pidlist *l, int32_t pid)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 64;
		int32_t *grown = realloc(l->v, cap * sizeof(*grown));

		if (grown == NULL)
			return; /* a refresh missed, not an error */
		l->v = grown;
		l->cap = cap;
	}
	l->v[l->n++] = pid;
}

/* A process gone: its row, its state, and its open files. */
static void forget(struct proc_source *src, int32_t pid)
{
	struct pstate *s = ps_find(src, pid);

	proctab_del(&src->tab, pid);
	proc_reader_forget(src->reader, pid);
	if (s != NULL)
		ps_del(src, s);
}

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

static void look_for_new(void *ctx);

static void proc_fini(void *ctx)
{
	struct proc_source *src = ctx;

	if (src == NULL)
		return;
	proc_scanner_free(src->scanner);
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

/* ------------------------------------------------------------ rows */

/* The fields a stat, status and cmdline read give. */
static void fill_fields(const struct proc_source *src, const struct proc_sample *p,
			struct proc_row *r)
{
	r->pid = p->pid;
	r->state = p->state;
	r->uid = p->have_status ? p->uid : 0;
	r->threads = p->threads;
	r->user_ms = ticks_to_ms(p->utime_ticks, src->hz);
	r->system_ms = ticks_to_ms(p->stime_ticks, src->hz);
	r->rss_kb = p->rss_pages * (uint64_t)src->page_kb;
	r->minflt = p->minflt;
	r->majflt = p->majflt;
	r->vol_ctxsw = p->have_status ? p->vol_ctxsw : 0;
	r->invol_ctxsw = p->have_status ? p->invol_ctxsw : 0;
	r->start_time = src->boot_time + p->start_ticks / src->hz;
	snprintf(r->comm, sizeof(r->comm), "%s", p->comm);
	snprintf(r->cmdline, sizeof(r->cmdline), "%s", p->cmdline);
	snprintf(r->cgroup, sizeof(r->cgroup), "%s", cg_pid_cache_get(src->cgroups, src->root,
		 p->pid, p->start_ticks, cm_clock_ns()));
}

static uint32_t share_of(uint64_t used_ns, uint64_t elapsed_ns)
{
	if (elapsed_ns == 0)
		return 0;
	return (uint32_t)((used_ns * 10000 + elapsed_ns / 2) / elapsed_ns);
}

/* The share of its CPU time spent in the kernel: over the interval when
 * the ticks moved, else over the lifetime. */
static uint32_t system_share(const struct proc_sample *p, const struct pstate *s)
{
	uint64_t u = p->utime_ticks, st = p->stime_ticks;

	if (s->have_ticks && u >= s->utime && st >= s->stime && u + st > s->utime + s->stime) {
		u -= s->utime;
		st -= s->stime;
	}
	return u + st == 0 ? 0 : util_hundredths(st, u + st);
}

static void keep_ticks(struct pstate *s, const struct proc_sample *p)
{
	s->have_ticks = true;
	s->utime = p->utime_ticks;
	s->stime = p->stime_ticks;
}

/* Sets pid's row; a row whose util is not 0 must be revisited when the
 * process stops running, so it goes on the busy list. */
static void put_row(struct proc_source *src, struct pstate *s, const struct proc_row *r)
{
	if (r->util != 0 && !s->busy) {
		s->busy = true;
		pl_add(&src->busy, r->pid);
	}
	proctab_put(&src->tab, r);
}

/* ------------------------------------------------------------ scanner */

/* CPU used since the last row: schedstat where both have it (exact), else
 * USER_HZ ticks (coarse at 10 ms). */
static uint64_t used_ns(const struct proc_source *src, const struct pstate *s,
			const struct proc_sample *p, const struct proc_row *old,
			const struct proc_row *r)
{
	uint64_t t = p->utime_ticks + p->stime_ticks;

	if (old->have_schedstat && r->have_schedstat)
		return r->cpu_ns - old->cpu_ns;
	if (!s->have_ticks || t < s->utime + s->stime)
		return 0;
	return (t - s->utime - s->stime) * (SEC_NS / src->hz);
}

/* From the helper to the scanner, a counter never goes back. */
static void not_back(struct proc_row *r, const struct proc_row *old)
{
	if (old == NULL || !old->have_schedstat || !r->have_schedstat)
		return;
	if (r->cpu_ns < old->cpu_ns)
		r->cpu_ns = old->cpu_ns;
	if (r->run_delay_ns < old->run_delay_ns)
		r->run_delay_ns = old->run_delay_ns;
}

/* A multi-threaded process's schedstat is its threads' summed: read again
 * only when its ticks moved (it ran), the last sum kept otherwise. */
static void threads_schedstat(struct proc_source *src, const struct pstate *s,
			      const struct proc_sample *p, const struct proc_row *old,
			      struct proc_row *r)
{
	bool moved = !s->have_ticks || p->utime_ticks + p->stime_ticks != s->utime + s->stime;

	if (old != NULL && old->have_schedstat && !moved) {
		r->have_schedstat = true;
		r->cpu_ns = old->cpu_ns;
		r->run_delay_ns = old->run_delay_ns;
		return;
	}
	r->have_schedstat = proc_threads_schedstat(src->root, p->pid, &r->cpu_ns,
						   &r->run_delay_ns) == 0;
	if (!r->have_schedstat)
		r->cpu_ns = r->run_delay_ns = 0;
}

/* One process as the scanner read it, against its last row. */
static void scan_row(struct proc_source *src, const struct proc_sample *p, uint64_t elapsed)
{
	struct pstate *s = ps_get(src, p->pid);
	const struct proc_row *old;
	struct proc_row r;

	if (s == NULL)
		return;
	old = proctab_find(&src->tab, p->pid);
	if (s->start_ticks != p->start_ticks) {
		memset(&s->acct, 0, sizeof(s->acct));
		s->start_ticks = p->start_ticks;
		s->have_ticks = false;
		old = NULL;
	}
	memset(&r, 0, sizeof(r));
	fill_fields(src, p, &r);
	r.have_schedstat = p->have_schedstat;
	r.cpu_ns = p->have_schedstat ? p->cpu_ns : 0;
	r.run_delay_ns = p->have_schedstat ? p->run_delay_ns : 0;
	if (!p->have_schedstat && p->threads > 1)
		threads_schedstat(src, s, p, old, &r);
	not_back(&r, old);
	/* An idle process is read every few samples: its use is over the
	 * time since its last read. */
	if (s->read_ns != 0 && src->now_ns > s->read_ns)
		elapsed = src->now_ns - s->read_ns;
	r.util = old != NULL ? share_of(used_ns(src, s, p, old, &r), elapsed) : 0;
	r.system_share = system_share(p, s);
	keep_ticks(s, p);
	s->read_ns = src->now_ns;
	s->mark = src->mark;
	put_row(src, s, &r);
}

static int publish(struct proc_source *src, size_t followed);

/* /proc/loadavg's last pid: 0 when it cannot be read. */
static uint32_t last_pid(struct proc_source *src)
{
	char buf[128];
	uint32_t pid;

	if (procfile_read(&src->loadavg, buf, sizeof(buf)) <= 0 ||
	    loadavg_last_pid_parse(buf, &pid) != 0)
		return 0;
	return pid;
}

/* A pid the table lacks, if it is a process (a thread's /proc/TID reads
 * too): read and added, the scanner told to follow it. true if added. */
static bool take_new(struct proc_source *src, pid_t pid)
{
	struct proc_sample p;

	if (ps_find(src, (int32_t)pid) != NULL)
		return false;
	memset(&p, 0, sizeof(p));
	if (proc_read(src->reader, pid, PROC_READ_STAT | PROC_READ_STATUS | PROC_READ_CMDLINE,
		      false, &p) != 0 || !p.have_status || p.tgid != (uint32_t)pid)
		return false;
	scan_row(src, &p, 0);
	proc_scanner_add(src->scanner, pid);
	return true;
}

/*
 * New processes without listing /proc (issues 30 and 35). Listing 10,000
 * pids costs the kernel about 25 ms (proc_pid_readdir: most of what the
 * scanner cost, measured with perf), so the scanner lists only every
 * LIST_NS. /proc/loadavg's last field is the last pid the kernel handed
 * out: the pids after the one seen at the last look are the only
 * candidates, each tried directly (a thread's is refused by its Tgid).
 * Looked at before a pass and every PROC_SCAN_TICK processes during it, at
 * most every NEW_LOOK_NS: a new row waits for the interval and a tick's
 * reads, not for a pass over every process. A range too long or wrapped
 * past pid_max falls back to one listing.
 */
static void look_for_new(void *ctx)
{
	struct proc_source *src = ctx;
	uint64_t now = cm_clock_ns();
	uint32_t last, from;
	size_t added = 0;
	ssize_t n;

	if (src->fed || src->prev_ns == 0 || now - src->last_look_ns < NEW_LOOK_NS)
		return;
	src->last_look_ns = now;
	if ((last = last_pid(src)) == 0 || last == src->last_pid)
		return;
	from = src->last_pid;
	src->last_pid = last;
	if (from != 0 && last > from && last - from <= NEW_PROBE_MAX) {
		for (uint32_t pid = from + 1; pid <= last; pid++)
			added += take_new(src, (pid_t)pid);
	} else if ((n = proc_list_pids(src->root, &src->listed, &src->listed_cap)) > 0) {
		for (ssize_t i = 0; i < n; i++)
			added += take_new(src, src->listed[i]);
	}
	if (added > 0)
		publish(src, src->tab.nrows);
}

static int scanner_sample(struct proc_source *src, uint64_t now, uint64_t elapsed)
{
	bool status = src->last_rescan_ns == 0;
	int n;

	/* Status (the costliest file) of every process once a second, spread:
	 * each sample reads the share of them its interval is of a second,
	 * so no sample a second is several times as long as the rest. */
	/* /proc is listed every LIST_NS (a safety net: look_for_new finds the
	 * new pids, a failed read the gone ones), or when the candidates
	 * cannot be followed. Rows look_for_new adds carry this mark. */
	bool list = status || src->last_pid == 0 || now - src->last_list_ns >= LIST_NS;

	src->now_ns = now;

	src->mark++;
	if (list) {
		src->last_pid = last_pid(src);
		src->last_list_ns = now;
	}
	src->last_look_ns = 0; /* look now, before the pass */
	if (!status)
		proc_scanner_status_quota(src->scanner,
					  (size_t)((proc_scanner_count(src->scanner) *
						    (elapsed < RESCAN_NS ? elapsed : RESCAN_NS) +
						    RESCAN_NS - 1) / RESCAN_NS));
	n = proc_scanner_sample(src->scanner, (list ? PROC_SCAN_LIST : 0) |
				(status ? PROC_SCAN_STATUS : 0), &src->cur, &src->cur_cap);
	if (n < 0)
		return -1;
	if (status)
		src->last_rescan_ns = now;
	for (int i = 0; i < n; i++) {
		struct pstate *s;

		if (!src->cur[i].skipped)
			scan_row(src, &src->cur[i], elapsed);
		else if ((s = ps_find(src, src->cur[i].pid)) != NULL)
			s->mark = src->mark; /* resting: its row stands */
	}
	/* Unread processes are gone (or unreadable now): O(n), as the scan. */
	for (size_t i = 0; i < src->st_cap; i++)
		if (src->st[i].pid != 0 && src->st[i].mark != src->mark) {
			forget(src, src->st[i].pid);
			i--; /* a backward shift may have moved another here */
		}
	src->busy.n = 0; /* every row was recomputed */
	for (size_t i = 0; i < src->st_cap; i++)
		src->st[i].busy = false;
	return n;
}

/* ------------------------------------------------ fed by clustermon-kprobe */

/* The helper's news read from its maps, without asking it (issue 30): 0,
 * or -1 when it cannot hand them out (an older helper, -n) or went. Asked
 * again at most once a rescan interval. */
static int maps_poll(struct proc_source *src, uint64_t now, struct helper_procs *hp)
{
	char why[256];

	if (src->maps != NULL && !helper_maps_alive(src->maps)) {
		helper_maps_detach(src->maps);
		src->maps = NULL;
	}
	if (src->maps == NULL) {
		if (src->last_maps_try_ns != 0 && now - src->last_maps_try_ns < RESCAN_NS)
			return -1;
		src->last_maps_try_ns = now;
		src->maps = helper_maps_attach(src->helper_socket, HELPER_TIMEOUT_MS, why,
					       sizeof(why));
		if (src->maps == NULL)
			return -1;
	}
	if (helper_maps_procs(src->maps, hp) == 0)
		return 0;
	helper_maps_detach(src->maps);
	src->maps = NULL;
	return -1;
}

/* The processes that ran since the last call: 0, or -1 when the helper is
 * not there, does no per-process accounting, or said something malformed.
 * Read from its maps where it hands them out, else asked (procs). */
static int helper_poll(struct proc_source *src, uint64_t now, struct helper_procs *hp)
{
	char why[256], *reply = NULL;
	int rc = -1;

	if (src->root[0] != '\0' || src->child_pidns ||
	    (!src->fed && src->last_try_ns != 0 && now - src->last_try_ns < RESCAN_NS))
		return -1;
	if (maps_poll(src, now, hp) == 0)
		return 0;
	src->last_try_ns = now;
	if (helper_ask(src->helper_socket, HELPER_ASK_PROCS, HELPER_TIMEOUT_MS, &reply, why,
		       sizeof(why)) == HELPER_OK &&
	    helper_parse_procs(reply, hp, why, sizeof(why)) == 0)
		rc = 0;
	free(reply);
	return rc;
}

/* What a process used before the helper counted it: the sum over its
 * threads now, less what the helper has for it. */
static void join(struct proc_source *src, struct pstate *s)
{
	uint64_t cpu, delay;

	s->acct.joined = true;
	s->acct.cpu_base = s->acct.run_delay_base = 0;
	/* The helper's figure as of now, not of the drain: a busy process
	 * ran meanwhile, and that stretch would be in the base and again in
	 * the helper's next figures. */
	if (src->maps != NULL)
		helper_maps_sums(src->maps, (uint32_t)s->pid, &s->acct.cpu_ns,
				 &s->acct.run_delay_ns);
	if (proc_threads_schedstat(src->root, s->pid, &cpu, &delay) != 0)
		return;
	s->acct.cpu_base = cpu > s->acct.cpu_ns ? cpu - s->acct.cpu_ns : 0;
	s->acct.run_delay_base = delay > s->acct.run_delay_ns ? delay - s->acct.run_delay_ns : 0;
}

/* The helper's figures into r, never going back from old. */
static void fed_counters(const struct pstate *s, const struct proc_row *old, struct proc_row *r)
{
	r->have_schedstat = true;
	r->cpu_ns = s->acct.cpu_ns + s->acct.cpu_base;
	r->run_delay_ns = s->acct.run_delay_ns + s->acct.run_delay_base;
	not_back(r, old);
}

/*
 * A process read whole (identity and slow fields): one new to the table, or
 * one whose slow fields are due. A start time other than the one known is
 * another process under the same pid: it joins afresh. -1 when it is gone.
 */
static int read_whole(struct proc_source *src, int32_t pid, const struct helper_proc *e,
		      bool hot, uint64_t now)
{
	struct proc_sample p;
	const struct proc_row *old;
	struct pstate *s;
	struct proc_row r;

	memset(&p, 0, sizeof(p));
	if (proc_read(src->reader, pid, PROC_READ_STAT | PROC_READ_STATUS | PROC_READ_CMDLINE,
		      hot, &p) != 0)
		return errno == ESRCH ? -1 : 0;
	if ((s = ps_get(src, pid)) == NULL)
		return 0;
	old = proctab_find(&src->tab, pid);
	if (old == NULL || s->start_ticks != p.start_ticks || !s->acct.joined) {
		memset(&s->acct, 0, sizeof(s->acct));
		s->start_ticks = p.start_ticks;
		s->have_ticks = false;
		old = NULL;
		if (e != NULL)
			s->acct.cpu_ns = e->cpu_ns, s->acct.run_delay_ns = e->run_delay_ns;
		join(src, s);
	}
	memset(&r, 0, sizeof(r));
	fill_fields(src, &p, &r);
	fed_counters(s, old, &r);
	r.util = old != NULL ? old->util : 0;
	r.system_share = system_share(&p, s);
	keep_ticks(s, &p);
	s->slow_ns = now;
	s->mark = src->mark;
	put_row(src, s, &r);
	return 0;
}

/* A known process ran: its counters and share of the interval; its slow
 * fields queued. */
static void ran(struct proc_source *src, struct pstate *s, const struct helper_proc *e,
		uint64_t elapsed)
{
	const struct proc_row *old = proctab_find(&src->tab, s->pid);
	struct proc_row r;

	if (old == NULL)
		return;
	s->acct.cpu_ns = e->cpu_ns;
	s->acct.run_delay_ns = e->run_delay_ns;
	r = *old;
	fed_counters(s, old, &r);
	r.util = share_of(r.cpu_ns >= old->cpu_ns ? r.cpu_ns - old->cpu_ns : 0, elapsed);
	s->ran = src->nsample;
	if (!s->queued) {
		s->queued = true;
		pl_add(&src->slow, s->pid);
	}
	put_row(src, s, &r);
}

/* The helper's news: MARK 3 (fork or exec) and pids not in the table are
 * read whole; exits are checked until the process is reaped. */
static void apply_news(struct proc_source *src, const struct helper_procs *hp, uint64_t now,
		       uint64_t elapsed)
{
	for (size_t i = 0; i < hp->n; i++) {
		const struct helper_proc *e = &hp->v[i];
		struct pstate *s = ps_find(src, (int32_t)e->tgid);

		if (s != NULL && s->acct.joined)
			ran(src, s, e, elapsed);
		if (e->exited) {
			if (s != NULL)
				pl_add(&src->zombies, (int32_t)e->tgid);
		} else if (s == NULL || e->mark == HELPER_PROC_NEW || !s->acct.joined) {
			read_whole(src, (int32_t)e->tgid, e, true, now);
		}
	}
}

/* A process whose leader exited stays until it is reaped (a zombie's stat
 * still reads). */
static void reap(struct proc_source *src)
{
	size_t kept = 0;

	for (size_t i = 0; i < src->zombies.n; i++) {
		struct proc_sample p;
		int32_t pid = src->zombies.v[i];

		if (proc_read(src->reader, pid, PROC_READ_STAT, false, &p) != 0 && errno == ESRCH)
			forget(src, pid);
		else if (ps_find(src, pid) != NULL)
			src->zombies.v[kept++] = pid;
	}
	src->zombies.n = kept;
}

/* Rows whose util is not 0 for processes that did not run this sample. */
static void settle(struct proc_source *src)
{
	size_t kept = 0;

	for (size_t i = 0; i < src->busy.n; i++) {
		struct pstate *s = ps_find(src, src->busy.v[i]);
		const struct proc_row *old;
		struct proc_row r;

		if (s == NULL)
			continue;
		if (s->ran == src->nsample) {
			src->busy.v[kept++] = s->pid;
			continue;
		}
		s->busy = false;
		if ((old = proctab_find(&src->tab, s->pid)) != NULL && old->util != 0) {
			r = *old;
			r.util = 0;
			proctab_put(&src->tab, &r);
		}
	}
	src->busy.n = kept;
}

/* Slow fields of the processes that ran, each at most once a second. */
static void refresh_slow(struct proc_source *src, uint64_t now)
{
	size_t kept = 0;

	for (size_t i = 0; i < src->slow.n; i++) {
		int32_t pid = src->slow.v[i];
		struct pstate *s = ps_find(src, pid);

		if (s == NULL)
			continue;
		if (now - s->slow_ns < SLOW_NS) {
			src->slow.v[kept++] = pid;
			continue;
		}
		s->queued = false;
		if (read_whole(src, pid, NULL, true, now) != 0)
			forget(src, pid);
	}
	src->slow.n = kept;
}

/*
 * The table against a listing of /proc: a process listed that the table
 * lacks is read whole, a row whose process is not listed goes. Counted as
 * corrections once the table was synced: the helper's events should have
 * said. The first sweep after the helper appears joins every process.
 */
static int sweep(struct proc_source *src, uint64_t now)
{
	pid_t *pids = NULL;
	size_t cap = 0, fixes = 0;
	ssize_t n = proc_list_pids(src->root, &pids, &cap);

	if (n < 0) {
		free(pids);
		return -1;
	}
	src->mark++;
	for (ssize_t i = 0; i < n; i++) {
		struct pstate *s = ps_find(src, (int32_t)pids[i]);

		if (s != NULL && s->acct.joined) {
			s->mark = src->mark;
			continue;
		}
		if (read_whole(src, (int32_t)pids[i], NULL, false, now) != 0)
			forget(src, (int32_t)pids[i]);
		else if (s == NULL && ps_find(src, (int32_t)pids[i]) != NULL)
			fixes++;
	}
	free(pids);
	for (size_t i = 0; i < src->st_cap; i++)
		if (src->st[i].pid != 0 && src->st[i].mark != src->mark) {
			forget(src, src->st[i].pid);
			fixes++;
			i--; /* a backward shift may have moved another here */
		}
	if (src->synced)
		src->sweep_fixes += fixes;
	src->synced = true;
	src->last_sweep_ns = now;
	return 0;
}

static int fed_sample(struct proc_source *src, const struct helper_procs *hp, uint64_t now,
		      uint64_t elapsed)
{
	if (strcmp(hp->instance, src->instance) != 0) {
		/* Another helper counts from zero: every process joins again. */
		snprintf(src->instance, sizeof(src->instance), "%s", hp->instance);
		for (size_t i = 0; i < src->st_cap; i++)
			src->st[i].acct.joined = false;
		src->synced = false;
	}
	/* News went missing (the maps reader lost entries, or just started):
	 * every process is listed as ran, and a sweep finds who came and went. */
	if (hp->lost)
		src->synced = false;
	/* The processes in the reply join with the helper's figure for them
	 * first; the sweep then joins the rest (which did not run lately). */
	apply_news(src, hp, now, elapsed);
	if (!src->synced && sweep(src, now) != 0)
		return -1;
	reap(src);
	settle(src);
	refresh_slow(src, now);
	if (now - src->last_sweep_ns >= SWEEP_NS)
		sweep(src, now);
	return 0;
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

static int publish(struct proc_source *src, size_t followed)
{
	struct proc_snapshot *snap = proctab_publish(&src->tab);

	if (snap == NULL)
		return -1;
	if (top_rank_procs(snap) != 0 || filter_view(snap, &src->filter) != 0) {
		snap->hdr.destroy(&snap->hdr);
		return -1;
	}
	snap->followed = followed;
	snap->sweep_fixes = src->sweep_fixes;
	snap->agent_rss_kb = src->agent.rss_kb;
	snap->agent = src->agent;
	snapshot_publish(&proc_slot, &snap->hdr);
	return 0;
}

/* One sample, fed by hp when it is not NULL, else by the scanner. */
static int sample_with(struct proc_source *src, const struct helper_procs *hp, uint64_t now)
{
	uint64_t elapsed = src->prev_ns ? now - src->prev_ns : 0;
	int rc;

	src->nsample++;
	if (hp != NULL) {
		rc = fed_sample(src, hp, now, elapsed);
	} else {
		src->synced = false;
		if (src->fed)
			src->last_rescan_ns = 0; /* back to the scanner: list /proc now */
		rc = scanner_sample(src, now, elapsed);
	}
	src->fed = hp != NULL;
	atomic_store(&helper_fed, src->fed);
	if (rc < 0)
		return -1;
	if (now - src->last_self_ns >= SEC_NS) {
		self_cost_read(&src->agent, src->image_path);
		src->last_self_ns = now;
	}
	src->prev_ns = now;
	return publish(src, src->tab.nrows);
}

static int proc_sample(void *ctx)
{
	struct proc_source *src = ctx;
	uint64_t now = cm_clock_ns();
	struct helper_procs hp;
	int rc;

	if (helper_poll(src, now, &hp) != 0) {
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
	snprintf(src->helper_socket, sizeof(src->helper_socket), "%s",
		 c->helper_socket[0] ? c->helper_socket : PROBES_DEFAULT_SOCKET);
	snprintf(src->image_path, sizeof(src->image_path), "%s",
		 c->image_path[0] ? c->image_path : SOURCES_DEFAULT_IMAGE);
	src->last_self_ns = 0; /* the image may have moved: read again now */
}

static void proc_command(void *ctx, const struct source_cmd *cmd)
{
	if (cmd->kind == SOURCE_CMD_PROC_FILTER)
		((struct proc_source *)ctx)->filter = cmd->proc_filter;
}

const struct source_ops proc_source_ops = {
	.name = "proc",
	/* 1 Hz by default: without the helper a node with thousands of
	 * processes pays milliseconds a sample. sampleInterval proc 100 (or
	 * 10) gives WallMon's rates. */
	.default_interval_ms = 1000,
	.own_thread = true,
	.init = proc_init,
	.sample = proc_sample,
	.fini = proc_fini,
	.configure = proc_configure,
	.command = proc_command,
};
