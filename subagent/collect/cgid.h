/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * cgid.h - a cgroup's path from its id (the unified hierarchy's directory
 * inode, what BPF programs read as cgroups->dfl_cgrp->kn->id): the exit
 * log names the cgroup of a process that is gone, whose /proc/PID/cgroup
 * went with it. A miss walks the unified tree again (at most once per
 * min_gap_ns); paths found stay known while the cgroup lives and a while
 * after, so a job's cgroup removed soon after its last process is still
 * named.
 */
#ifndef CLUSTERMON_COLLECT_CGID_H
#define CLUSTERMON_COLLECT_CGID_H

#include <stddef.h>
#include <stdint.h>

struct cgid_map;

/* The hierarchy a map walks: the unified one (what the exit log's ids
 * name), or the memory controller's (v1's where it is mounted, else the
 * unified one): an OOM victim's memory cgroup. */
enum cgid_tree { CGID_UNIFIED, CGID_MEMORY };

struct cgid_map *cgid_map_new(uint64_t min_gap_ns, enum cgid_tree tree);
void cgid_map_free(struct cgid_map *m);
/* The path of cgroup id (relative to the hierarchy's root, "/" for the
 * root itself, as clusterMonCgroupPath) into out; "" when unknown. ROOT
 * prefixes the mount table and the tree (tests). Returns out. */
const char *cgid_map_path(struct cgid_map *m, const char *root, uint64_t id, uint64_t now_ns,
			  char *out, size_t cap);

#endif
