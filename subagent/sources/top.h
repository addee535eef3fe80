/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * top.h - the top-N rankings (top.c): made by the proc and cgroup sources
 * after each sample, published inside the sample's snapshot, read by
 * mib/top.c.
 */
#ifndef CLUSTERMON_SOURCES_TOP_H
#define CLUSTERMON_SOURCES_TOP_H

#include <stdbool.h>
#include <stdint.h>

#include "cgroup.h"
#include "proc.h"

struct proc_top {
	size_t n;
	void (*inner_destroy)(struct snapshot *); /* the snapshot's own */
	const struct proc_row *rows[];  /* rank 1 first; point into the snapshot */
};

struct cgroup_top_row {
	const struct cgroup_row *row;   /* into the same snapshot */
	uint32_t util;                  /* hundredths of a percent of one CPU */
};

struct cgroup_top {
	size_t n;
	struct cgroup_top_row rows[];   /* rank 1 first */
};

/* topRows from a (re)load (reload.c); the sources read it at each sample. */
void top_configure(const struct sources_conf *c);
uint32_t top_rows_now(void);

/* Ranks every row followed into snap->top (just published from tab),
 * before snap->view is made; -1 (snap->top stays NULL, the table is
 * empty) when out of memory. */
struct proctab;
int top_rank_procs(struct proctab *tab, struct proc_snapshot *snap);

/* The cgroup source's memory of each cgroup's CPU ns, for the shares. */
struct cgroup_top_state;
struct cgroup_top_state *cgroup_top_state_new(void);
void cgroup_top_state_free(struct cgroup_top_state *st);
/* Ranks snap's rows (ascending index) into snap->top, which the snapshot's
 * destroy frees; -1 when out of memory. */
int top_rank_cgroups(struct cgroup_top_state *st, struct cgroup_snapshot *snap,
		     uint64_t now_ns);

#endif
