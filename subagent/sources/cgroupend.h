/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * cgroupend.h - the cgroup source's end log (issue 43): each removed
 * cgroup's last row, with when it was first seen and found gone, under the
 * next index (never reused while clustermond runs), the oldest going as
 * exitLog's entries and age say. Rows are shared by reference with the
 * snapshots that served them; a view is rebuilt only when the log changed.
 */
#ifndef CLUSTERMON_SOURCES_CGROUPEND_H
#define CLUSTERMON_SOURCES_CGROUPEND_H

#include <stdbool.h>
#include <stdint.h>

#include "cgroup.h"
#include "../core/exitlog.h"

struct cgend_log {
	struct cgroup_end *v;       /* a ring of cap, n from head */
	size_t head, n, cap;
	uint32_t next_index;
	uint64_t logged;
	bool changed;
	struct cgroup_ends *view;   /* the last made: shared while unchanged */
};

uint64_t cgend_now_ms(void);
/* Logs row (a reference taken): first seen at start_ms, gone now. */
void cgend_add(struct cgend_log *l, const struct exit_conf *c, struct cgroup_row *row,
	       uint64_t start_ms, uint64_t now_ns);
void cgend_expire(struct cgend_log *l, const struct exit_conf *c, uint64_t now_ns);
/* The log as it is now (a reference the caller drops), or NULL. */
struct cgroup_ends *cgend_view(struct cgend_log *l);
void cgend_free(struct cgend_log *l);

#endif
