/*
 * proc.c - the "proc" source (WallMon): every process at 10-100 Hz from the
 * kept-open files of collect/proc.c, turned into rates and a filtered,
 * pid-sorted proc_snapshot. It runs on a thread of its own.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "../collect/collect.h"
#include "../collect/proc.h"
#include "../core/clock.h"
#include "../core/number.h"
#include "../core/counter.h"
#include "sources.h"

struct snapshot_slot proc_slot = SNAPSHOT_SLOT_INIT;

/* A full rescan of /proc for new PIDs at most this often. */
#define RESCAN_NS 1000000000ull

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
	free(src);
}

static void *proc_init(const char *root)
{
	struct proc_source *src = calloc(1, sizeof(*src));

	if (src == NULL)
		return NULL;
	raise_fd_limit();
	snprintf(src->root, sizeof(src->root), "%s", root);
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

static void proc_snapshot_destroy(struct snapshot *s)
{
	free(s);
}

static int proc_sample(void *ctx)
{
	struct proc_source *src = ctx;
	uint64_t now = cm_clock_ns();
	bool rescan = src->last_rescan_ns == 0 || now - src->last_rescan_ns >= RESCAN_NS;
	int n = proc_scanner_sample(src->scanner, rescan, &src->cur, &src->cur_cap);
	struct proc_snapshot *snap;
	struct proc_filter f;
	struct proc_sample *swap;
	size_t swap_cap;

	if (n < 0)
		return -1;
	if (rescan)
		src->last_rescan_ns = now;
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
	((struct proc_source *)ctx)->filter = c->proc_filter;
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
