/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * procpids.c - what the proc source keeps of each process between samples
 * (a pid-keyed open-addressing table) and how a reading becomes a row:
 * shared by the scanner and the helper-fed path.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "procsrc.h"
#include "common/clock.h"
#include "../core/counter.h"

/* ------------------------------------------------------------ pid state */

static size_t slot_of(const struct proc_source *src, int32_t pid)
{
	return ((uint32_t)pid * 2654435761u) & (src->st_cap - 1);
}

struct pstate *ps_find(struct proc_source *src, int32_t pid)
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
struct pstate *ps_get(struct proc_source *src, int32_t pid)
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
void ps_del(struct proc_source *src, struct pstate *s)
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

void pl_add(struct pidlist *l, int32_t pid)
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
void ps_forget(struct proc_source *src, int32_t pid)
{
	struct pstate *s = ps_find(src, pid);

	procexits_gone(src, proctab_find(&src->tab, pid));
	proctab_del(&src->tab, pid);
	proc_reader_forget(src->reader, pid);
	if (s != NULL)
		ps_del(src, s);
}

/* ------------------------------------------------------------ rows */

/* The fields a stat, status and cmdline read give. */
void ps_fill_fields(const struct proc_source *src, const struct proc_sample *p,
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

uint32_t ps_share_of(uint64_t used_ns, uint64_t elapsed_ns)
{
	if (elapsed_ns == 0)
		return 0;
	return (uint32_t)((used_ns * 10000 + elapsed_ns / 2) / elapsed_ns);
}

/* A process seen for the first time has no last interval: its share is of
 * its lifetime, as ps prints %CPU, so a poller that meets a busy process in
 * its first sample (every process, for a poller slower than its life) does
 * not read it as idle. Its start counts in whole ticks, rounded down, so
 * the age is never short and the share never more than it used. */
uint32_t ps_first_share(const struct proc_source *src, const struct proc_sample *p,
			const struct proc_row *r)
{
	uint64_t tick_ns = SEC_NS / src->hz, start_ns = p->start_ticks * tick_ns;
	uint64_t now = cm_boottime_ns(), used;

	if (now <= start_ns)
		return 0;
	used = r->have_schedstat ? r->cpu_ns : (p->utime_ticks + p->stime_ticks) * tick_ns;
	return ps_share_of(used, now - start_ns);
}

/* The share of its CPU time spent in the kernel: over the interval when
 * the ticks moved, else over the lifetime. */
uint32_t ps_system_share(const struct proc_sample *p, const struct pstate *s)
{
	uint64_t u = p->utime_ticks, st = p->stime_ticks;

	if (s->have_ticks && u >= s->utime && st >= s->stime && u + st > s->utime + s->stime) {
		u -= s->utime;
		st -= s->stime;
	}
	return u + st == 0 ? 0 : util_hundredths(st, u + st);
}

void ps_keep_ticks(struct pstate *s, const struct proc_sample *p)
{
	s->have_ticks = true;
	s->utime = p->utime_ticks;
	s->stime = p->stime_ticks;
}

/* Sets pid's row; a row whose util is not 0 must be revisited when the
 * process stops running, so it goes on the busy list. */
void ps_put_row(struct proc_source *src, struct pstate *s, const struct proc_row *r)
{
	if (r->util != 0 && !s->busy) {
		s->busy = true;
		pl_add(&src->busy, r->pid);
	}
	proctab_put(&src->tab, r);
}


/* From the helper to the scanner, a counter never goes back. */
void ps_not_back(struct proc_row *r, const struct proc_row *old)
{
	if (old == NULL || !old->have_schedstat || !r->have_schedstat)
		return;
	if (r->cpu_ns < old->cpu_ns)
		r->cpu_ns = old->cpu_ns;
	if (r->run_delay_ns < old->run_delay_ns)
		r->run_delay_ns = old->run_delay_ns;
}
