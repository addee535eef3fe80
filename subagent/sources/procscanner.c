/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * procscanner.c - the proc source without the helper.
 *
 * Without the helper the scanner reads every process's stat every sample
 * (schedstat when its ticks moved; status at a turn once a second spread
 * over the samples, and only if the process ran since its last); rows that
 * read the same are still shared. New processes are found from the pids
 * the kernel handed out since the last look (procscan_look_for_new), not by
 * listing /proc, which it does every 30 s as a check. At 10,000
 * processes a sample takes a few hundred ms on two CPUs, so a 100 ms
 * interval is not kept there: CpuNs is as of the last sample.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "procsrc.h"
#include "common/clock.h"

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
	ps_fill_fields(src, p, &r);
	r.have_schedstat = p->have_schedstat;
	r.cpu_ns = p->have_schedstat ? p->cpu_ns : 0;
	r.run_delay_ns = p->have_schedstat ? p->run_delay_ns : 0;
	if (!p->have_schedstat && p->threads > 1)
		threads_schedstat(src, s, p, old, &r);
	ps_not_back(&r, old);
	/* An idle process is read every few samples: its use is over the
	 * time since its last read. */
	if (s->read_ns != 0 && src->now_ns > s->read_ns)
		elapsed = src->now_ns - s->read_ns;
	r.util = old != NULL ? ps_share_of(used_ns(src, s, p, old, &r), elapsed)
			     : ps_first_share(src, p, &r);
	r.system_share = ps_system_share(p, s);
	ps_keep_ticks(s, p);
	s->read_ns = src->now_ns;
	s->mark = src->mark;
	ps_put_row(src, s, &r);
}

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
size_t procscan_look_for_new(struct proc_source *src)
{
	uint64_t now = cm_clock_ns();
	uint32_t last, from;
	size_t added = 0;
	ssize_t n;

	if (src->fed || src->prev_ns == 0 || now - src->last_look_ns < NEW_LOOK_NS)
		return 0;
	src->last_look_ns = now;
	if ((last = last_pid(src)) == 0 || last == src->last_pid)
		return 0;
	from = src->last_pid;
	src->last_pid = last;
	if (from != 0 && last > from && last - from <= NEW_PROBE_MAX) {
		for (uint32_t pid = from + 1; pid <= last; pid++)
			added += take_new(src, (pid_t)pid);
	} else if ((n = proc_list_pids(src->root, &src->listed, &src->listed_cap)) > 0) {
		for (ssize_t i = 0; i < n; i++)
			added += take_new(src, src->listed[i]);
	}
	return added;
}

int procscan_sample(struct proc_source *src, uint64_t now, uint64_t elapsed)
{
	bool status = src->last_rescan_ns == 0;
	int n;

	/* Status (the costliest file) of every process once a second, spread:
	 * each sample reads the share of them its interval is of a second,
	 * so no sample a second is several times as long as the rest. */
	/* /proc is listed every LIST_NS (a safety net: procscan_look_for_new finds the
	 * new pids, a failed read the gone ones), or when the candidates
	 * cannot be followed. Rows procscan_look_for_new adds carry this mark. */
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
			ps_forget(src, src->st[i].pid);
			i--; /* a backward shift may have moved another here */
		}
	src->busy.n = 0; /* every row was recomputed */
	for (size_t i = 0; i < src->st_cap; i++)
		src->st[i].busy = false;
	return n;
}
