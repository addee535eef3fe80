/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * helpercg.h - each cgroup's run-queue waits and CPU time, as the helper's
 * sched_switch program keeps them (issue 32): one "cgmaps" request over
 * the control socket hands either the link of an iterator over the
 * cgroups' own storage (clustermon_kprobe.h: struct cm_cgroup_rec), one
 * read of which walks every cgroup with sums, or, where the kernel has no
 * cgroup storage, a BPF_F_RDONLY fd of the LRU hash keyed by the unified
 * tree's cgroup id (cgroup_sched), read a batch of entries a system call.
 * The cgroup source reads them whole at every sample. The fd is checked as
 * helpermaps.c checks its maps (a link's type; a map's type, key and value
 * sizes, entries), and the connection stays open so that its close says
 * the helper went.
 */
#ifndef CLUSTERMON_COLLECT_HELPERCG_H
#define CLUSTERMON_COLLECT_HELPERCG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

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
/* One cgroup's entry. */
struct helper_cg {
	uint64_t id;
	uint64_t cpu_ns;          /* its tasks ran, charged at switch-out */
	struct log2hist waits;    /* ns, 64 log2 buckets as sched.runqlat's */
};
/* Every entry of the map, in the map's order, into m's own array (valid
 * until the next call): the count, or -1 when the map could not be read. */
ssize_t helper_cgmap_read(struct helper_cgmap *m, const struct helper_cg **out);
/* True when the last read had only the first of the cgroups (an
 * iterator's session ends at its buffer: helpercg.c, read_iter). */
bool helper_cgmap_partial(const struct helper_cgmap *m);
/* The entry of id in what the last read returned, or NULL. */
const struct helper_cg *helper_cgmap_find(const struct helper_cgmap *m, uint64_t id);

#endif
