/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * dists.h - distribution rows of clustermon-kprobe behind clusterMonDistTable.
 *
 * As for traces (traces.h), the SNMP thread only says what it wants, a
 * SOURCE_CMD_DIST_ROWS command to the probes source, whose thread owns the
 * helper's socket: it takes the rows (dists_want) and, at each of its
 * samples, attaches what is missing, removes what is no longer wanted and
 * reads every row (dists_sync). Each active row is the distribution source
 * dist.N (dist.h), cumulative across helper restarts and re-attachments.
 */
#ifndef CLUSTERMON_SOURCES_DISTS_H
#define CLUSTERMON_SOURCES_DISTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/distspec.h"

/* A spec (200), filters with a cgroup path (200) and the rest: dists.c
 * checks it against distspec.h, which this header does not need. */
#define DIST_LINE_MAX 480
#define DIST_ERROR_MAX 256
#define DIST_UNIT_MAX 16
/* clusterMonDistRecentP99 covers the values of about this long. */
#define DIST_RECENT_MS 5000u

/* clusterMonDistOperStatus */
enum dist_oper { DOPER_UP = 1, DOPER_DOWN, DOPER_FAILED };

/* A row of the table as the source needs it. */
struct dist_want {
	uint32_t id;
	struct dist_spec spec;      /* what the helper is asked for */
	struct dist_filter filter;
	char unit[DIST_UNIT_MAX + 1];
	bool active;
};

struct dist_reading {
	uint32_t id;
	int oper;                   /* enum dist_oper */
	char error[DIST_ERROR_MAX];
	uint64_t hits, sampled, misses;
	unsigned source;            /* clusterMonHistSourceIndex of dist.N; 0 none */
	uint64_t recent_p99;
};

struct dists_view {
	size_t n;
	struct dist_reading *rows;  /* ascending id */
};

/* Every row of the table (on the probes source's thread, from its command). */
void dists_want(const struct dist_want *rows, size_t n);
/* One round with the helper (on the probes source's thread); instance is
 * the helper's (hello), NULL when it did not answer. */
void dists_sync(const char *socket, const char *instance);
struct dists_view *dists_view_take(void);
void dists_view_free(struct dists_view *v);
/* Forgets everything (at exit). */
void dists_clear(void);

#endif
