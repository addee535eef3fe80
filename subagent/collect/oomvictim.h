/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * oomvictim.h - what clusterMonOomKill says of an OOM killer's victim, read
 * from /proc and the cgroup files the moment the helper reports it (the
 * task is dying but not yet reaped): its process, name, and the memory
 * cgroup that ran out, with that cgroup's limit and usage. On cgroup v1
 * (or hybrid) that is the memory controller's hierarchy, on v2 the unified
 * one. Every reader takes a root path (tests point it at fixtures).
 */
#ifndef CLUSTERMON_COLLECT_OOMVICTIM_H
#define CLUSTERMON_COLLECT_OOMVICTIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../core/readings.h"

struct cgid_map;


/* /proc/PID/cgroup text -> the memory cgroup's path ("memory" among a v1
 * line's controllers first, else the v2 "0::" line), *v1 set: 0, or -1. */
int oom_cgroup_parse(const char *buf, char *out, size_t cap, bool *v1);
/* The victim (task tid, any thread) read whole into v: 0, or -1 when it is
 * gone already (v->pid and v->comm may then be set from nothing). */
int oom_victim_read(const char *root, uint32_t tid, struct oom_victim *v);
/* The memory limit and usage of cgroup path (v1: the memory controller's
 * hierarchy) into v: 0, or -1. */
int oom_cgroup_memory(const char *root, const char *path, bool v1, struct oom_victim *v);
/* Whether v names its memory cgroup: not when the read failed, nor when
 * v1 said "/" of a task already exiting (the kernel hides its path then)
 * while the helper saw it elsewhere (memcg: the id it read, 0 unknown). */
bool oom_victim_placed(const struct oom_victim *v, uint64_t memcg);
/* v's memory cgroup from the helper's id, looked up in map (a CGID_MEMORY
 * one), with its limit and usage: 0, or -1 when the id names none. */
int oom_victim_memcg(const char *root, struct cgid_map *map, uint64_t memcg, uint64_t now_ns,
		     struct oom_victim *v);

#endif
