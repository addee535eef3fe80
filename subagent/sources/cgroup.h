/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * cgroup.h - the "cgroup" source as its readers see it: its rows, shared
 * between snapshots, the end log of removed cgroups it publishes with them
 * (clusterMonCgroupTable, clusterMonCgroupEndTable, the run-queue bucket
 * table) and its ops. Which cgroups it follows (cgroupMatch) is
 * configuration, sources.h's.
 */
#ifndef CLUSTERMON_SOURCES_CGROUP_H
#define CLUSTERMON_SOURCES_CGROUP_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "source_ops.h"
#include "../runtime/snapshot.h"
#include "../core/readings.h"
#include "../core/workload.h"

/* One row of clusterMonCgroupTable. */
enum cgroup_version { CGROUP_V1 = 1, CGROUP_V2 = 2, CGROUP_HYBRID = 3 };

/* A cgroup as the helper's scheduler sensor sees it (collect/helpercg.h). */
#define CGROUP_RQ_BUCKETS 64
struct cgroup_sched {
	bool have;               /* the helper runs and has its entry */
	uint64_t cpu_ns;         /* its tasks ran, since the helper started */
	uint64_t waits, p50, p90, p99;  /* run-queue waits: count; ns */
	unsigned nbuckets;       /* to the highest bucket a wait fell in */
	uint64_t bucket[CGROUP_RQ_BUCKETS]; /* log2hist's: [0, nbuckets) */
};

/* A row is immutable once published and shared by every snapshot taken
 * while it did not change (copy-on-write, as the process table's chunks):
 * a 10 ms sample of 500 mostly idle cgroups copies only the rows that
 * moved, not 500 x 1.2 kB. */
struct cgroup_row {
	atomic_uint refs;        /* the source's entry and each snapshot */
	uint32_t index;          /* see sources/cgroup.c: stable across restarts */
	uint8_t version;         /* enum cgroup_version: the trees that have it */
	char path[CG_PATH_MAX];  /* relative to the hierarchy's root */
	char workload[WORKLOAD_MAX]; /* what it is, from its path; "" unknown */
	struct cgroup_stats st;
	uint64_t st_ns;          /* when st was read (cm_clock_ns) */
	struct cgroup_sched rq;
	uint64_t gen;            /* the sample in which what it serves changed */
};

/* A removed cgroup's last row (clusterMonCgroupEndTable, issue 43). */
struct cgroup_end {
	uint32_t index;          /* clusterMonCgroupEndIndex: never reused */
	uint64_t start_ms, end_ms;   /* first seen, found removed: ms since the epoch */
	uint64_t logged_ns;      /* monotonic, for the age-out */
	struct cgroup_row *row;  /* one reference */
};

/* The end log as a snapshot serves it: immutable, counted (the SNMP and
 * publishing threads drop it). */
struct cgroup_ends {
	atomic_uint refs;
	size_t n;
	uint64_t logged;
	struct cgroup_end e[];   /* ascending index */
};

/* Drops one reference to a row; the last frees it (any thread: the SNMP
 * and publishing threads release snapshots). Inline: the source and its
 * end log (cgroupend.c) both drop rows, and neither calls the other's. */
static inline void cgroup_row_put(struct cgroup_row *r)
{
	if (r != NULL && atomic_fetch_sub_explicit(&r->refs, 1, memory_order_acq_rel) == 1)
		free(r);
}
void cgroup_ends_drop(struct cgroup_ends *v);

/* The rows ranked by CPU after a sample (sources/top.h). */
struct cgroup_top;

struct cgroup_snapshot {
	struct snapshot hdr;
	struct cgroup_ends *ends; /* removed cgroups' last rows; NULL: none yet */
	size_t nrows;
	size_t matched;          /* directories that matched, rows or not */
	size_t nrq;              /* rows of the bucket table: rq.nbuckets summed */
	uint64_t gen;            /* the sample it was taken in */
	struct cgroup_top *top;  /* the rows ranked (sources/top.c); NULL: none */
	size_t *rq_first;        /* [nrows]: each row's first row of the bucket table */
	struct cgroup_row *rows[]; /* ascending index; one reference each */
};

extern const struct source_ops cgroup_source_ops;
/* The patterns served when the configuration names none. */
extern const char *const cgroup_default_patterns[];

#endif
