/* SPDX-License-Identifier: BSD-2-Clause */
/* top.h - the top-N tables (top.c), objects of the proc and cgroup groups. */
#ifndef CLUSTERMON_MIB_TOP_H
#define CLUSTERMON_MIB_TOP_H

#include "group.h"

extern const struct mib_table mib_proc_top_table;
extern const struct mib_table mib_cgroup_top_table;

#endif
