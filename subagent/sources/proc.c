/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * proc.c - the "proc" source (WallMon): every process at 10-100 Hz from the
 * kept-open files of collect/proc.c, turned into rates and a filtered,
 * pid-sorted proc_snapshot. It runs on a thread of its own.
 *
 * When clustermon-kprobe runs with its per-process accounting, the source is
 * helper-fed: each sample asks the helper which processes ran since the last
 * one (with their CPU time and run delay summed over threads) and touches only
 * those; /proc is read in full once a second (new processes, names, uids,
 * memory, faults, context switches, exits the helper did not report).
 * Without the helper the scanner reads every process every sample.
 */
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "../collect/collect.h"
#include "../collect/helper.h"
#include "../collect/proc.h"
#include "../core/clock.h"
#include "../core/number.h"
#include "../core/counter.h"
#include "probes.h"
#include "sources.h"

struct snapshot_slot proc_slot = SNAPSHOT_SLOT_INIT;

/* A full rescan of /proc for new PIDs at most this often. */
#define RESCAN_NS 1000000000ull
/* A helper that does not answer in this long is taken as gone; one that is
 * not there is asked again after a rescan interval. */
#define HELPER_TIMEOUT_MS 200

static atomic_bool helper_fed;

const char *proc_method(void)
{
	return atomic_load(&helper_fed) ? "helper" : "scanner";
}

struct proc_source {
	struct proc_scanner *scanner;
	struct proc_sample *cur, *prev;
	size_t cur_cap, prev_cap, nprev;
	uint64_t prev_ns, last_rescan_ns;
	unsigned hz;
	long page_kb;
	uint64_t boot_time;
	struct proc_filter filter; /* this thread's own: set by configure and commands */
	char root[256];
	/* helper-fed mode */
	char helper_socket[PROBE_SOCKET_MAX]; /* helperSocket, by configure */
	bool fed;                   /* the last sample was */
	uint64_t last_try_ns;       /* of the helper, when it was not there */
	char instance[64];          /* the helper's: a new one counts from zero */
	struct helper_proc *pending; /* processes that ran, not followed yet */
	size_t npending, pending_cap;
};

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

/* One fd per file per process: make room for tens of thousands. */
static void raise_fd_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

static void proc_fini(void *ctx)
{
	struct proc_source *src = ctx;

	if (src == NULL)
		return;
	if (src->scanner)
		proc_scanner_free(src->scanner);
	free(src->cur);
	free(src->prev);
	free(src->pending);
	free(src);
}

static void *proc_init(const char *root)
{
	struct proc_source *src = calloc(1, sizeof(*src));

	if (src == NULL)
		return NULL;
	raise_fd_limit();
	snprintf(src->root, sizeof(src->root), "%s", root);
	snprintf(src->helper_socket, sizeof(src->helper_socket), "%s", PROBES_DEFAULT_SOCKET);
	src->filter.uid = -1;
	src->scanner = proc_scanner_new(root);
	src->hz = (unsigned)sysconf(_SC_CLK_TCK);
	src->page_kb = sysconf(_SC_PAGESIZE) / 1024;
	src->boot_time = read_boot_time(root);
	if (src->scanner == NULL) {
		proc_fini(src);
		return NULL;
	}
	return src;
}

/* The previous sample of the same process (same pid and start time). */
static const struct proc_sample *previous(const struct proc_source *src,
					  const struct proc_sample *p)
{
	size_t lo = 0, hi = src->nprev;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (src->prev[mid].pid < p->pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < src->nprev && src->prev[lo].pid == p->pid &&
	    src->prev[lo].start_ticks == p->start_ticks)
		return &src->prev[lo];
	return NULL;
}

/* CPU share of one CPU over the interval: schedstat ns where the kernel has
 * it (exact), else USER_HZ ticks (coarse at 10 ms). */
static uint32_t interval_util(const struct proc_source *src, const struct proc_sample *p,
			      const struct proc_sample *q, uint64_t elapsed_ns)
{
	uint64_t used_ns;

	if (q == NULL || elapsed_ns == 0)
		return 0;
	if (p->have_schedstat && q->have_schedstat)
		used_ns = p->cpu_ns >= q->cpu_ns ? p->cpu_ns - q->cpu_ns : 0;
	else
		used_ns = (p->utime_ticks + p->stime_ticks - q->utime_ticks - q->stime_ticks) *
			  (1000000000u / src->hz);
	return (uint32_t)((used_ns * 10000 + elapsed_ns / 2) / elapsed_ns);
}

static uint32_t system_share(const struct proc_sample *p, const struct proc_sample *q)
{
	uint64_t u = p->utime_ticks, s = p->stime_ticks;

	/* Over the interval when the ticks moved, else over the lifetime. */
	if (q != NULL && u + s > q->utime_ticks + q->stime_ticks) {
		u -= q->utime_ticks;
		s -= q->stime_ticks;
	}
	return u + s == 0 ? 0 : util_hundredths(s, u + s);
}

static void fill_row(const struct proc_source *src, const struct proc_sample *p,
		     uint64_t elapsed_ns, struct proc_row *r)
{
	const struct proc_sample *q = previous(src, p);

	r->pid = p->pid;
	r->state = p->state;
	r->uid = p->uid;
	r->threads = p->threads;
	r->util = interval_util(src, p, q, elapsed_ns);
	r->system_share = system_share(p, q);
	r->user_ms = ticks_to_ms(p->utime_ticks, src->hz);
	r->system_ms = ticks_to_ms(p->stime_ticks, src->hz);
	r->have_schedstat = p->have_schedstat;
	r->cpu_ns = p->cpu_ns;
	r->run_delay_ns = p->run_delay_ns;
	r->rss_kb = p->rss_pages * (uint64_t)src->page_kb;
	r->minflt = p->minflt;
	r->majflt = p->majflt;
	r->vol_ctxsw = p->vol_ctxsw;
	r->invol_ctxsw = p->invol_ctxsw;
	r->start_time = src->boot_time + p->start_ticks / src->hz;
	snprintf(r->comm, sizeof(r->comm), "%s", p->comm);
	snprintf(r->cmdline, sizeof(r->cmdline), "%s", p->cmdline);
}

static bool passes(const struct proc_filter *f, const struct proc_row *r)
{
	if (f->uid >= 0 && (int64_t)r->uid != f->uid)
		return false;
	return f->name[0] == '\0' || fnmatch(f->name, r->comm, 0) == 0;
}

static int by_util_desc(const void *a, const void *b)
{
	const struct proc_row *x = a, *y = b;

	if (x->util != y->util)
		return x->util < y->util ? 1 : -1;
	return (x->pid > y->pid) - (x->pid < y->pid);
}

static int by_pid(const void *a, const void *b)
{
	const struct proc_row *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

/* Keeps the top N busiest rows, back in pid order. */
static void keep_top(struct proc_snapshot *snap, uint32_t top)
{
	if (top == 0 || snap->nrows <= top)
		return;
	qsort(snap->rows, snap->nrows, sizeof(snap->rows[0]), by_util_desc);
	snap->nrows = top;
	qsort(snap->rows, snap->nrows, sizeof(snap->rows[0]), by_pid);
}

/* ------------------------------------------------ fed by clustermon-kprobe */

/* The processes that ran since the last call: 0, or -1 when the helper is
 * not there, does no per-process accounting, or said something malformed. */
static int helper_poll(struct proc_source *src, uint64_t now, struct helper_procs *hp)
{
	char why[256], *reply = NULL;
	int rc = -1;

	if (src->root[0] != '\0' ||
	    (!src->fed && src->last_try_ns != 0 && now - src->last_try_ns < RESCAN_NS))
		return -1;
	src->last_try_ns = now;
	if (helper_exchange(src->helper_socket, HELPER_PROCS_REQUEST, HELPER_TIMEOUT_MS, &reply, why,
			    sizeof(why)) == HELPER_OK &&
	    helper_parse_procs(reply, hp, why, sizeof(why)) == 0)
		rc = 0;
	free(reply);
	return rc;
}

static struct proc_sample *find_pid(struct proc_sample *v, size_t n, pid_t pid)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && v[lo].pid == pid ? &v[lo] : NULL;
}

/* Between full reads the rows are the last sample's, touched where the
 * helper has news. */
static int carry_previous(struct proc_source *src)
{
	if (src->cur_cap < src->nprev) {
		struct proc_sample *bigger = realloc(src->cur, src->nprev * sizeof(*bigger));

		if (bigger == NULL)
			return -1;
		src->cur = bigger;
		src->cur_cap = src->nprev;
	}
	memcpy(src->cur, src->prev, src->nprev * sizeof(*src->cur));
	return (int)src->nprev;
}

/* After a read by the scanner: each process keeps its account (unless the
 * helper is a new one), and one the helper reported before it was followed
 * takes that. */
static void adopt_accounts(struct proc_source *src, size_t n, bool fresh)
{
	for (size_t i = 0; i < n; i++) {
		struct proc_sample *p = &src->cur[i];
		const struct proc_sample *q = fresh ? NULL : previous(src, p);

		p->acct = q ? q->acct : (struct proc_acct){ 0 };
		for (size_t j = src->npending; !p->acct.joined && j-- > 0;)
			if ((pid_t)src->pending[j].tgid == p->pid) {
				p->acct.cpu_ns = src->pending[j].cpu_ns;
				p->acct.run_delay_ns = src->pending[j].run_delay_ns;
				break;
			}
	}
	src->npending = 0;
}

static void remember_pending(struct proc_source *src, const struct helper_proc *e)
{
	if (src->npending == src->pending_cap) {
		size_t cap = src->pending_cap ? src->pending_cap * 2 : 64;
		struct helper_proc *grown;

		if (cap > HELPER_MAX_PROCS ||
		    (grown = realloc(src->pending, cap * sizeof(*grown))) == NULL)
			return;
		src->pending = grown;
		src->pending_cap = cap;
	}
	src->pending[src->npending++] = *e;
}

/* The helper's news into the rows. */
static void apply_news(struct proc_source *src, size_t n, const struct helper_procs *hp)
{
	for (size_t i = 0; i < hp->n; i++) {
		const struct helper_proc *e = &hp->v[i];
		struct proc_sample *p = find_pid(src->cur, n, (pid_t)e->tgid);

		if (p == NULL) {
			if (!e->exited)
				remember_pending(src, e);
			continue;
		}
		p->acct.exited = p->acct.exited || e->exited;
		p->acct.cpu_ns = e->cpu_ns;
		p->acct.run_delay_ns = e->run_delay_ns;
	}
}

/* A process seen first: what it used before the helper counted (the sum
 * over its threads now, less what the helper has for it). */
static void join(struct proc_source *src, struct proc_sample *p)
{
	uint64_t cpu, delay;

	p->acct.joined = true;
	if (proc_threads_schedstat(src->root, p->pid, &cpu, &delay) != 0)
		return;
	p->acct.cpu_base = cpu > p->acct.cpu_ns ? cpu - p->acct.cpu_ns : 0;
	p->acct.run_delay_base = delay > p->acct.run_delay_ns ? delay - p->acct.run_delay_ns : 0;
}

/* Rows with the helper's figures, gone ones dropped (a process whose leader
 * exited, as soon as it is reaped: checked every sample, zombies are few);
 * the count left.
 * Carried rows still hold the last sample's values: none goes back (the
 * helper's figure for a running task may fall short of the last one's by a
 * stretch it had not yet seen). */
static int fed_rows(struct proc_source *src, size_t n, const struct helper_procs *hp,
		    bool carried)
{
	size_t kept = 0;

	apply_news(src, n, hp);
	for (size_t i = 0; i < n; i++) {
		struct proc_sample *p = &src->cur[i];
		uint64_t cpu, delay;

		if (p->acct.exited && kill(p->pid, 0) != 0 && errno == ESRCH)
			continue;
		if (!p->acct.joined)
			join(src, p);
		cpu = p->acct.cpu_ns + p->acct.cpu_base;
		delay = p->acct.run_delay_ns + p->acct.run_delay_base;
		if (carried && cpu < p->cpu_ns)
			cpu = p->cpu_ns;
		if (carried && delay < p->run_delay_ns)
			delay = p->run_delay_ns;
		p->have_schedstat = true;
		p->cpu_ns = cpu;
		p->run_delay_ns = delay;
		src->cur[kept++] = *p;
	}
	return (int)kept;
}

/* Switching between the helper and the scanner (or to a new helper) must
 * not take a counter back: the two agree to within what ran while one of
 * them was read. */
static void keep_monotonic(struct proc_source *src, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct proc_sample *p = &src->cur[i];
		const struct proc_sample *q = previous(src, p);

		if (q == NULL || !p->have_schedstat || !q->have_schedstat)
			continue;
		if (p->cpu_ns < q->cpu_ns)
			p->cpu_ns = q->cpu_ns;
		if (p->run_delay_ns < q->run_delay_ns)
			p->run_delay_ns = q->run_delay_ns;
	}
}

/* One sample's rows into src->cur: the count, or -1. A new helper (another
 * instance) counts from zero, so every process joins again; the same one
 * after a failed exchange has kept counting, so the accounts stay. */
static int read_rows(struct proc_source *src, uint64_t now)
{
	uint64_t since = now - src->last_rescan_ns;
	/* Processes the helper saw run that are not followed yet: read /proc
	 * after half the interval, so they show within a second end to end. */
	bool rescan = src->last_rescan_ns == 0 || since >= RESCAN_NS ||
		      (src->fed && src->npending > 0 && since >= RESCAN_NS / 2);
	bool was_fed = src->fed, fresh = false, carried;
	struct helper_procs hp;
	int n;

	src->fed = helper_poll(src, now, &hp) == 0;
	if (src->fed && strcmp(hp.instance, src->instance) != 0) {
		fresh = true;
		snprintf(src->instance, sizeof(src->instance), "%s", hp.instance);
	}
	rescan = rescan || (src->fed && !was_fed);
	carried = src->fed && !rescan;
	if (carried) {
		n = carry_previous(src);
	} else {
		n = proc_scanner_sample(src->scanner, rescan, &src->cur, &src->cur_cap);
		if (n >= 0 && src->instance[0] != '\0') /* ever fed */
			adopt_accounts(src, (size_t)n, fresh);
	}
	if (n >= 0 && rescan)
		src->last_rescan_ns = now;
	if (n >= 0 && src->fed)
		n = fed_rows(src, (size_t)n, &hp, carried);
	if (n >= 0 && (src->fed || was_fed) && !carried)
		keep_monotonic(src, (size_t)n);
	if (src->fed)
		helper_procs_free(&hp);
	atomic_store(&helper_fed, src->fed);
	return n;
}

static void proc_snapshot_destroy(struct snapshot *s)
{
	free(s);
}

static int proc_sample(void *ctx)
{
	struct proc_source *src = ctx;
	uint64_t now = cm_clock_ns();
	int n = read_rows(src, now);
	struct proc_snapshot *snap;
	struct proc_filter f;
	struct proc_sample *swap;
	size_t swap_cap;

	if (n < 0)
		return -1;
	snap = malloc(sizeof(*snap) + (size_t)n * sizeof(snap->rows[0]));
	if (snap == NULL)
		return -1;
	snap->hdr.refs = 1;
	snap->hdr.destroy = proc_snapshot_destroy;
	snap->nrows = 0;
	snap->followed = (size_t)n;
	f = src->filter;
	for (int i = 0; i < n; i++) {
		fill_row(src, &src->cur[i], src->prev_ns ? now - src->prev_ns : 0,
			 &snap->rows[snap->nrows]);
		if (passes(&f, &snap->rows[snap->nrows]))
			snap->nrows++;
	}
	keep_top(snap, f.top);
	snapshot_publish(&proc_slot, &snap->hdr);
	/* This sample is the next one's baseline. */
	swap = src->prev, swap_cap = src->prev_cap;
	src->prev = src->cur, src->prev_cap = src->cur_cap, src->nprev = (size_t)n;
	src->cur = swap, src->cur_cap = swap_cap;
	src->prev_ns = now;
	return 0;
}

static void proc_configure(void *ctx, const struct sources_conf *c)
{
	struct proc_source *src = ctx;

	src->filter = c->proc_filter;
	snprintf(src->helper_socket, sizeof(src->helper_socket), "%s",
		 c->helper_socket[0] ? c->helper_socket : PROBES_DEFAULT_SOCKET);
}

static void proc_command(void *ctx, const struct source_cmd *cmd)
{
	if (cmd->kind == SOURCE_CMD_PROC_FILTER)
		((struct proc_source *)ctx)->filter = cmd->proc_filter;
}

const struct source_ops proc_source_ops = {
	.name = "proc",
	/* 1 Hz by default: a node with thousands of processes pays milliseconds
	 * a sample. sampleInterval proc 100 (or 10) gives WallMon's rates. */
	.default_interval_ms = 1000,
	.own_thread = true,
	.init = proc_init,
	.sample = proc_sample,
	.fini = proc_fini,
	.configure = proc_configure,
	.command = proc_command,
};
