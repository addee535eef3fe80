/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * procfed.c - the proc source fed by clustermon-kprobe.
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
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "procsrc.h"
#include "common/clock.h"

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
int procfed_poll(struct proc_source *src, uint64_t now, struct helper_procs *hp)
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
	ps_not_back(r, old);
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
	ps_fill_fields(src, &p, &r);
	fed_counters(s, old, &r);
	if (old == NULL) {
		/* Its lifetime's share stands for this sample (settle keeps it). */
		r.util = ps_first_share(src, &p, &r);
		s->ran = src->nsample;
	} else {
		r.util = old->util;
	}
	r.system_share = ps_system_share(&p, s);
	ps_keep_ticks(s, &p);
	s->slow_ns = now;
	s->mark = src->mark;
	ps_put_row(src, s, &r);
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
	r.util = ps_share_of(r.cpu_ns >= old->cpu_ns ? r.cpu_ns - old->cpu_ns : 0, elapsed);
	s->ran = src->nsample;
	if (!s->queued) {
		s->queued = true;
		pl_add(&src->slow, s->pid);
	}
	ps_put_row(src, s, &r);
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
			ps_forget(src, pid);
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
			ps_forget(src, pid);
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
			ps_forget(src, (int32_t)pids[i]);
		else if (s == NULL && ps_find(src, (int32_t)pids[i]) != NULL)
			fixes++;
	}
	free(pids);
	for (size_t i = 0; i < src->st_cap; i++)
		if (src->st[i].pid != 0 && src->st[i].mark != src->mark) {
			ps_forget(src, src->st[i].pid);
			fixes++;
			i--; /* a backward shift may have moved another here */
		}
	if (src->synced)
		src->sweep_fixes += fixes;
	src->synced = true;
	src->last_sweep_ns = now;
	return 0;
}

int procfed_sample(struct proc_source *src, const struct helper_procs *hp, uint64_t now,
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
