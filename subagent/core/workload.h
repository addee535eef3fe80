/* SPDX-License-Identifier: BSD-2-Clause */
/* workload.h - a cgroup path's workload name (workload.c). */
#ifndef CLUSTERMON_CORE_WORKLOAD_H
#define CLUSTERMON_CORE_WORKLOAD_H

#include <stddef.h>

/* Room for the longest name made: "k8s pod " + a 36-character uid +
 * " container " + 12 hex digits, with some to spare; only a systemd unit's
 * name (up to 255 characters) can be longer, and is cut. The MIB's
 * clusterMonCgroupWorkload is SIZE (0..95) to match. */
#define WORKLOAD_MAX 96

/* The workload of cgroup path (as clusterMonCgroupPath names it) into out
 * ("" when its layout is none of workload.c's); returns out. */
const char *workload_name(const char *path, char *out, size_t cap);

#endif
