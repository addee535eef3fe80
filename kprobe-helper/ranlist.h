/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ranlist.h - reading the per-CPU "ran" rings of the helper's per-process
 * accounting (clustermon_kprobe.h): the entries since the last drain, one
 * per process. Pure C: the rings are memory the BPF programs write, so
 * nothing read from them is trusted.
 */
#ifndef CLUSTERMON_RANLIST_H
#define CLUSTERMON_RANLIST_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "clustermon_kprobe.h"

struct ran_news {
	uint32_t tgid, mark, gen;   /* mark: CM_RAN, CM_EXITED or CM_NEW */
	uint64_t cpu_ns, run_delay_ns;
};

/* Copies the ring's entries since the last take into out (room for
 * CM_RAN_RING) and hands their room back to the programs: how many. */
size_t ran_take(struct cm_ran_ring *r, uint64_t *out);
/* Entries into v (room for n); malformed ones are dropped: how many. */
size_t ran_decode(const uint64_t *ent, size_t n, struct ran_news *v);
/* Sorts by tgid and keeps one entry per tgid (sums left 0): CM_EXITED if
 * the process exited, unless a new one took its pid after it (a newer
 * gen), else CM_NEW if new or exec'd, else CM_RAN. How many are left. */
size_t ran_merge(struct ran_news *v, size_t n);
/* The entry of tgid among the first n (sorted by ran_merge), or NULL. */
struct ran_news *ran_find(struct ran_news *v, size_t n, uint32_t tgid);
/* Whether gen a is newer than b (gens count modulo 2^30). */
bool ran_gen_newer(uint32_t a, uint32_t b);

#endif
