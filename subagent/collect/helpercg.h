/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * helpercg.h - the run-queue waits of each cgroup's tasks, as the helper's
 * sched_switch program keeps them (issue 32): one "cgmaps" request over
 * the control socket hands a BPF_F_RDONLY fd of the LRU hash keyed by the
 * unified tree's cgroup id (clustermon_kprobe.h: cgroup_runqlat); the
 * cgroup source looks its rows up in it at every sample, one lookup each.
 * The fd is checked as helpermaps.c checks its maps (type, key and value
 * sizes, entries), and the connection stays open so that its close says
 * the helper went.
 */
#ifndef CLUSTERMON_COLLECT_HELPERCG_H
#define CLUSTERMON_COLLECT_HELPERCG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/log2hist.h"

struct helper_cgmap;

/* Connects to the helper at path, sends "hello" and "cgmaps", receives and
 * checks the fd: a reader, or NULL with why (an old helper answers "err
 * invalid unknown request", one with -n "err unsupported"). */
struct helper_cgmap *helper_cgmap_attach(const char *path, int timeout_ms, char *why,
					 size_t whylen);
void helper_cgmap_detach(struct helper_cgmap *m);
/* False once the helper closed the connection (it stopped or restarted). */
bool helper_cgmap_alive(const struct helper_cgmap *m);
/* The waits of the tasks of cgroup id (ns) into h, 64 log2 buckets as
 * sched.runqlat's: 0; 1 when none of its tasks waited since the helper
 * started (or the entry aged out); -1 when the lookup failed. */
int helper_cgmap_waits(const struct helper_cgmap *m, uint64_t id, struct log2hist *h);

#endif
