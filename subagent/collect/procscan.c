/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * procscan.c - following every process without the helper: list /proc now
 * and then, read each known process through the reader (procread.c) every
 * sample, less often when it has been idle.
 *
 * A process is known by (pid, start time): a start time that changes under
 * a pid is a new process.
 */
#include "proc.h"
#include "procread.h"
#include "collect.h"
#include "parse.h"

#include <dirent.h>
#include <signal.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* What a followed process keeps between samples: what identifies it, and
 * what is read less often than every sample. No file stays open here: the
 * reader keeps a bounded set for the processes that ran. */
struct proc_entry {
	pid_t pid;
	bool known;               /* start_ticks holds the first sample's */
	bool ran;                 /* its CPU time moved at the last read */
	uint8_t idle_reads;       /* reads in a row that found it had not run */
	uint64_t start_ticks, ticks;
	bool have_sched;          /* single-threaded: its last schedstat read */
	uint64_t cpu_ns, run_delay_ns;
	bool have_status;
	uint32_t uid;
	uint64_t vol_ctxsw, invol_ctxsw;
	/* what stat said at the last status read: a status turn skips a
	 * process that has not run since (issue 30) */
	uint64_t status_ticks, status_minflt;
	char status_state;
	uint8_t status_skipped;
	char cmdline[PROC_CMDLINE_MAX];
};

struct proc_scanner {
	char root[256];
	struct proc_reader *reader;
	struct proc_entry **e;    /* followed processes, ascending pid */
	struct proc_entry **next; /* a rescan merges into this one, then swaps */
	size_t n, cap;
	pid_t *pids;              /* the last listing of /proc, reused */
	size_t pids_cap;
	size_t status_quota;      /* statuses the next sample reads besides */
	pid_t status_cursor;      /* the last pid whose status that read */
	void (*tick)(void *);     /* proc_scanner_on_tick */
	void *tick_ctx;
	pid_t *pending;           /* proc_scanner_add: joins at the next sample */
	size_t npending, pending_cap;
	uint64_t pass;            /* samples taken: whose idle turn it is */
};

/* How one read of a process turned out. */
enum sample_rc { S_OK, S_SKIP, S_GONE };

struct proc_scanner *proc_scanner_new(const char *root, size_t max_hot)
{
	struct proc_scanner *ps;

	if (strlen(root) >= sizeof(ps->root)) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	ps = calloc(1, sizeof(*ps));
	if (ps == NULL)
		return NULL;
	strcpy(ps->root, root);
	ps->reader = proc_reader_new(root, max_hot);
	if (ps->reader == NULL) {
		free(ps);
		return NULL;
	}
	return ps;
}

void proc_scanner_free(struct proc_scanner *ps)
{
	if (ps == NULL)
		return;
	for (size_t i = 0; i < ps->n; i++)
		free(ps->e[i]);
	free(ps->e);
	free(ps->next);
	free(ps->pids);
	free(ps->pending);
	proc_reader_free(ps->reader);
	free(ps);
}

size_t proc_scanner_count(const struct proc_scanner *ps)
{
	return ps->n;
}

struct proc_reader *proc_scanner_reader(struct proc_scanner *ps)
{
	return ps->reader;
}

/* The command line, read when a process is first seen: it is long, and
 * changes only when a process rewrites its argv. */
static struct proc_entry *entry_new(struct proc_scanner *ps, pid_t pid)
{
	struct proc_entry *e = calloc(1, sizeof(*e));

	if (e == NULL)
		return NULL;
	e->pid = pid;
	if (proc_read_cmdline(ps->reader, pid, e->cmdline, sizeof(e->cmdline)) != 0 &&
	    (errno == ESRCH || errno == EMFILE || errno == ENFILE)) {
		free(e);
		return NULL;
	}
	return e;
}

static enum sample_rc sample_rc_of(void)
{
	return errno == ESRCH ? S_GONE : S_SKIP;
}

/* status into the entry; a bad read keeps the last values. */
static enum sample_rc entry_status(struct proc_scanner *ps, struct proc_entry *e)
{
	struct proc_sample tmp;

	tmp.have_status = false;
	if (proc_read(ps->reader, e->pid, PROC_READ_STATUS, false, &tmp) != 0)
		return errno == ESRCH ? S_GONE : S_OK;
	if (tmp.have_status) {
		e->have_status = true;
		e->uid = tmp.uid;
		e->vol_ctxsw = tmp.vol_ctxsw;
		e->invol_ctxsw = tmp.invol_ctxsw;
	}
	return S_OK;
}

/* The pid now belongs to another process: forget what the old one had. */
static void renew(struct proc_scanner *ps, struct proc_entry *e)
{
	e->known = false;
	e->have_status = false;
	e->have_sched = false;
	if (proc_read_cmdline(ps->reader, e->pid, e->cmdline, sizeof(e->cmdline)) != 0)
		e->cmdline[0] = '\0';
}

/*
 * A single-threaded process's schedstat, read again only when its stat
 * ticks moved: utime + stime is the kernel's sum_exec_runtime in USER_HZ
 * ticks (cputime_adjust scales the sampled split to it), so a process whose
 * ticks stayed has run under 20 ms since, and at 10,000 idle processes this
 * halves what a sample opens and reads. Its run delay is refreshed with it.
 */
static void entry_sched(struct proc_scanner *ps, struct proc_entry *e, bool moved,
			struct proc_sample *o)
{
	if (o->threads == 1 && e->have_sched && !moved) {
		o->have_schedstat = true;
		o->cpu_ns = e->cpu_ns;
		o->run_delay_ns = e->run_delay_ns;
		return;
	}
	proc_read_sched_kept(ps->reader, e->pid, o);
	e->have_sched = o->have_schedstat;
	e->cpu_ns = o->have_schedstat ? o->cpu_ns : 0;
	e->run_delay_ns = o->have_schedstat ? o->run_delay_ns : 0;
}

/*
 * Whether a status turn reads the process's status: the costliest file
 * (about 9 us), and at 10,000 processes a second's turns were most of what
 * the scanner cost. A process that has not run since its last status read
 * (the same ticks, faults and state in stat) has the same context switch
 * counts and uid as then, but for sub-tick runs: so it is skipped, and read
 * anyway every STATUS_SKIPS turns, as the helper-fed mode reads the slow
 * fields of processes that ran.
 */
#define STATUS_SKIPS 30

static bool status_due(struct proc_entry *e, const struct proc_sample *o)
{
	if (e->have_status && o->utime_ticks + o->stime_ticks == e->status_ticks &&
	    o->minflt == e->status_minflt && o->state == e->status_state &&
	    ++e->status_skipped < STATUS_SKIPS)
		return false;
	e->status_ticks = o->utime_ticks + o->stime_ticks;
	e->status_minflt = o->minflt;
	e->status_state = o->state;
	e->status_skipped = 0;
	return true;
}

/* One process into o: stat fields fresh, schedstat when it ran (or as last
 * read), status fields as last read. */
static enum sample_rc sample_entry(struct proc_scanner *ps, struct proc_entry *e,
				   struct proc_sample *o, bool with_status, bool force_status)
{
	bool moved;

	if (proc_read_stat_kept(ps->reader, e->pid, e->ran || !e->known, false, o) != 0)
		return sample_rc_of();
	if (e->known && o->start_ticks != e->start_ticks)
		renew(ps, e);
	moved = !e->known || o->utime_ticks + o->stime_ticks != e->ticks;
	if (!e->known) {
		e->known = true;
		e->start_ticks = o->start_ticks;
		e->ticks = o->utime_ticks + o->stime_ticks;
		with_status = true;
	}
	e->ran = o->utime_ticks + o->stime_ticks != e->ticks;
	e->ticks = o->utime_ticks + o->stime_ticks;
	if (e->ran || o->state == 'R' || o->state == 'D')
		e->idle_reads = 0;
	else if (e->idle_reads < UINT8_MAX)
		e->idle_reads++;
	entry_sched(ps, e, moved, o);
	if (with_status && !status_due(e, o) && !force_status)
		with_status = false;
	if (with_status && entry_status(ps, e) == S_GONE)
		return S_GONE;
	o->have_status = e->have_status;
	o->uid = e->have_status ? e->uid : 0;
	o->vol_ctxsw = e->have_status ? e->vol_ctxsw : 0;
	o->invol_ctxsw = e->have_status ? e->invol_ctxsw : 0;
	memcpy(o->cmdline, e->cmdline, strlen(e->cmdline) + 1);
	return S_OK;
}

static int compare_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

/* Room for want entries: doubling, from 256, so rescans rarely realloc. */
static size_t grown(size_t cap, size_t want)
{
	size_t c = cap ? cap : 256;

	while (c < want)
		c *= 2;
	return c;
}

/* Both entry arrays keep the same capacity, ps->cap: a rescan merges one
 * into the other. */
static int reserve_entries(struct proc_scanner *ps, size_t want)
{
	size_t c = grown(ps->cap, want);
	struct proc_entry **bigger;

	if (c == ps->cap)
		return 0;
	bigger = realloc(ps->e, c * sizeof(*bigger));
	if (bigger == NULL)
		return -1;
	ps->e = bigger;
	bigger = realloc(ps->next, c * sizeof(*bigger));
	if (bigger == NULL)
		return -1; /* ps->e is larger than ps->cap says: harmless */
	ps->next = bigger;
	ps->cap = c;
	return 0;
}

static int reserve_pids(pid_t **pids, size_t *cap, size_t want)
{
	size_t c = grown(*cap, want);
	pid_t *bigger;

	if (c == *cap)
		return 0;
	bigger = realloc(*pids, c * sizeof(*bigger));
	if (bigger == NULL)
		return -1;
	*pids = bigger;
	*cap = c;
	return 0;
}

static bool pid_name(const char *name, pid_t *pid)
{
	uint64_t v;

	if (name[0] < '1' || name[0] > '9' || !scan_u64(&name, &v) || *name != '\0' ||
	    v > INT_MAX)
		return false;
	*pid = (pid_t)v;
	return true;
}

ssize_t proc_list_pids(const char *root, pid_t **pids, size_t *cap)
{
	char path[300];
	struct dirent *de;
	size_t n = 0;
	bool sorted = true;
	DIR *d;

	if ((size_t)snprintf(path, sizeof(path), "%s/proc", root) >= sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	d = opendir(path);
	if (d == NULL)
		return -1;
	while ((de = readdir(d)) != NULL) {
		pid_t pid;

		if (!pid_name(de->d_name, &pid))
			continue;
		if (n == *cap && reserve_pids(pids, cap, n + 1) != 0) {
			closedir(d);
			return -1;
		}
		sorted = sorted && (n == 0 || (*pids)[n - 1] < pid);
		(*pids)[n++] = pid;
	}
	closedir(d);
	/* procfs lists in pid order; fixture directories need not. */
	if (!sorted)
		qsort(*pids, n, sizeof(**pids), compare_pid);
	return (ssize_t)n;
}

/*
 * Merges the fresh listing into the followed set: pids no longer listed are
 * dropped, new ones added (one that cannot be read, because it is gone already
 * or we are out of descriptors, is skipped and tried again next rescan). Both
 * lists ascend, so one pass does it.
 */
static int rescan(struct proc_scanner *ps)
{
	ssize_t listed = proc_list_pids(ps->root, &ps->pids, &ps->pids_cap);
	size_t npids, i = 0, j = 0, k = 0;
	struct proc_entry **out;

	if (listed < 0)
		return -1;
	npids = (size_t)listed;
	if (reserve_entries(ps, npids) != 0)
		return -1;
	out = ps->next;
	while (i < ps->n || j < npids) {
		if (j == npids || (i < ps->n && ps->e[i]->pid < ps->pids[j])) {
			proc_reader_forget(ps->reader, ps->e[i]->pid);
			free(ps->e[i++]);
		} else if (i == ps->n || ps->pids[j] < ps->e[i]->pid) {
			struct proc_entry *e = entry_new(ps, ps->pids[j++]);

			if (e != NULL)
				out[k++] = e;
		} else {
			out[k++] = ps->e[i++];
			j++;
		}
	}
	ps->next = ps->e;
	ps->e = out;
	ps->n = k;
	return 0;
}

/* An idle process whose turn this sample is not (SCAN_IDLE_EVERY). */
static bool resting(const struct proc_scanner *ps, const struct proc_entry *e, unsigned how)
{
	/* kill() asks the live system: a fixture root is always read */
	return ps->root[0] == '\0' && !(how & PROC_SCAN_STATUS) && e->known &&
	       e->idle_reads >= SCAN_IDLE_READS &&
	       ((uint64_t)e->pid + ps->pass) % SCAN_IDLE_EVERY != 0;
}

void proc_scanner_add(struct proc_scanner *ps, pid_t pid)
{
	if (ps->npending == ps->pending_cap &&
	    reserve_pids(&ps->pending, &ps->pending_cap, ps->npending + 1) != 0)
		return; /* found by the next listing instead */
	ps->pending[ps->npending++] = pid;
}

/* The pids proc_scanner_add queued, merged in as a rescan merges a
 * listing (one pass over both sorted lists). */
static int join_pending(struct proc_scanner *ps)
{
	size_t i = 0, j = 0, k = 0;
	struct proc_entry **out;

	if (ps->npending == 0)
		return 0;
	if (reserve_entries(ps, ps->n + ps->npending) != 0)
		return -1;
	qsort(ps->pending, ps->npending, sizeof(*ps->pending), compare_pid);
	out = ps->next;
	while (i < ps->n || j < ps->npending) {
		if (j == ps->npending || (i < ps->n && ps->e[i]->pid < ps->pending[j])) {
			out[k++] = ps->e[i++];
		} else if (i < ps->n && ps->e[i]->pid == ps->pending[j]) {
			j++;
		} else {
			struct proc_entry *e = entry_new(ps, ps->pending[j++]);

			if (e != NULL)
				out[k++] = e;
			while (j < ps->npending && ps->pending[j] == ps->pending[j - 1])
				j++;
		}
	}
	ps->next = ps->e;
	ps->e = out;
	ps->n = k;
	ps->npending = 0;
	return 0;
}

static int reserve_out(struct proc_sample **out, size_t *cap, size_t n)
{
	struct proc_sample *bigger;

	if (*cap >= n)
		return 0;
	bigger = realloc(*out, n * sizeof(*bigger));
	if (bigger == NULL)
		return -1;
	*out = bigger;
	*cap = n;
	return 0;
}

/* The entries whose status a sample without PROC_SCAN_STATUS reads, by
 * quota: [lo, hi) after the cursor, then [0, wrap). */
struct status_window {
	size_t lo, hi, wrap;
};

static struct status_window status_window(struct proc_scanner *ps, unsigned how)
{
	struct status_window w = { 0, 0, 0 };
	size_t q = ps->status_quota < ps->n ? ps->status_quota : ps->n;

	ps->status_quota = 0;
	if (!(how & PROC_SCAN_STATUS) && q > 0) {
		while (w.lo < ps->n && ps->e[w.lo]->pid <= ps->status_cursor)
			w.lo++;
		w.hi = w.lo + q <= ps->n ? w.lo + q : ps->n;
		w.wrap = q - (w.hi - w.lo);
		ps->status_cursor = w.wrap > 0 ? ps->e[w.wrap - 1]->pid : ps->e[w.hi - 1]->pid;
	}
	return w;
}

/* How a followed process's turn in a sample ended. */
enum turn { T_REPORTED, T_FOLLOWED, T_GONE };

static enum turn take_turn(struct proc_scanner *ps, struct proc_entry *e, unsigned how,
			   bool status, struct proc_sample *o)
{
	if (resting(ps, e, how)) {
		if (kill(e->pid, 0) != 0 && errno == ESRCH)
			return T_GONE;
		o->pid = e->pid;
		o->skipped = true;
		return T_REPORTED;
	}
	o->skipped = false;
	switch (sample_entry(ps, e, o, status, how & PROC_SCAN_STATUS)) {
	case S_OK:
		return T_REPORTED;
	case S_SKIP:
		return T_FOLLOWED; /* alive but unreadable now: follow, don't report */
	case S_GONE:
		break;
	}
	return T_GONE;
}

int proc_scanner_sample(struct proc_scanner *ps, unsigned how, struct proc_sample **out,
			size_t *cap)
{
	struct status_window w;
	size_t kept = 0, nout = 0;

	if ((how & PROC_SCAN_LIST) && rescan(ps) != 0)
		return -1;
	if ((how & PROC_SCAN_LIST))
		ps->npending = 0; /* the listing has every one that lives */
	else if (join_pending(ps) != 0)
		return -1;
	if (reserve_out(out, cap, ps->n) != 0)
		return -1;
	w = status_window(ps, how);
	ps->pass++;
	for (size_t i = 0; i < ps->n; i++) {
		struct proc_entry *e = ps->e[i];
		bool status = (how & PROC_SCAN_STATUS) || (i >= w.lo && i < w.hi) || i < w.wrap;
		enum turn t;

		if (ps->tick != NULL && i % PROC_SCAN_TICK == 0)
			ps->tick(ps->tick_ctx);
		t = take_turn(ps, e, how, status, &(*out)[nout]);
		if (t == T_GONE) {
			proc_reader_forget(ps->reader, e->pid);
			free(e);
			continue;
		}
		nout += t == T_REPORTED;
		ps->e[kept++] = e;
	}
	ps->n = kept;
	return (int)nout;
}

void proc_scanner_status_quota(struct proc_scanner *ps, size_t n)
{
	ps->status_quota = n;
}

void proc_scanner_on_tick(struct proc_scanner *ps, void (*fn)(void *ctx), void *ctx)
{
	ps->tick = fn;
	ps->tick_ctx = ctx;
}
