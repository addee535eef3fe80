/* SPDX-License-Identifier: BSD-2-Clause */
/* top.h - the top-N tables (top.c) and the cgroup end log (cgroupend.c):
 * tables of the proc and cgroup groups kept in files of their own. */
#ifndef CLUSTERMON_MIB_TOP_H
#define CLUSTERMON_MIB_TOP_H

#include "engine/group.h"

extern const struct mib_table mib_proc_top_table;
extern const struct mib_table mib_cgroup_top_table;

/* clusterMonCgroupEndTable (cgroupend.c), whose columns up to
 * clusterMonCgroupEndSchedCpuNs are the live table's, numbered alike:
 * served by mib_cgroup_row_get (cgrouprow.c) from a removed cgroup's last row. */
struct cgroup_row;
int mib_cgroup_row_get(const struct cgroup_row *r, unsigned col, struct mib_value *v);
extern const struct mib_table mib_cgroup_end_table;
int mib_cgroup_end_logged(void *view, struct mib_value *v);

#endif
