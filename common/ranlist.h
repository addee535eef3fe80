/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ranlist.h - reading the per-CPU "ran" rings and the tgid-slotted sums of
 * the helper's per-process accounting (clustermon_kprobe.h): the processes
 * that ran, appeared or exited since the last drain, one entry per process.
 * Pure C, used by the helper (its text procs reply) and by clustermond
 * (which maps the same maps read-only: collect/helpermaps.h). The rings and
 * slots are memory the BPF programs write, so nothing read from them is
 * trusted.
 */
#ifndef CLUSTERMON_RANLIST_H
#define CLUSTERMON_RANLIST_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "clustermon_kprobe.h"

struct ran_news {
	uint32_t tgid, mark, gen;   /* mark: CM_RAN, CM_EXITED or CM_NEW */
	uint64_t cpu_ns, run_delay_ns;
};

/* Copies the ring's entries after *tail (the reader's own) into out (room
 * for CM_RAN_RING) and moves *tail to the head: how many. *lost is set
 * when entries were overwritten before they were read (the reader fell a
 * ring behind, or head and tail make no sense). */
size_t ran_take(const struct cm_ran_ring *r, uint64_t *tail, uint64_t *out, bool *lost);
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

/* A process handed out by a drain, handed out again (its sums reread)
 * until a drain in epoch `until` or later. */
struct ran_carry {
	uint32_t tgid, until;
};

/* One reader of the rings: its tails, what it carries, its buffers. */
struct ran_reader {
	size_t nrings;
	uint64_t *tail;             /* nrings */
	uint64_t *ent;              /* CM_RAN_RING: one ring's entries */
	struct ran_news *news, *out;
	size_t news_cap, out_cap;
	struct ran_carry *carry, *carry_next;
	size_t ncarry, carry_cap, next_cap;
	bool started;
};

/* 0, or -1 out of memory. */
int ran_reader_init(struct ran_reader *rd, size_t nrings);
void ran_reader_free(struct ran_reader *rd);
/*
 * The processes to read since the last drain, sorted by tgid, sums 0, into
 * rd->out: the news of every ring (rings: nrings cm_ran_ring one after the
 * other), and the processes of earlier drains whose later runs in an epoch
 * in which they were already listed went unlisted (CM_RAN). epoch: now's
 * (CLOCK_MONOTONIC >> CM_EPOCH_SHIFT). Room is left after them for `extra`
 * more entries. The first drain starts at the rings' heads and sets *lost,
 * as does a ring overrun: the caller then rereads every process. The
 * count, or -1 out of memory.
 */
ssize_t ran_drain(struct ran_reader *rd, const unsigned char *rings, uint32_t epoch,
		  size_t extra, bool *lost);

/* A process's sums from its slot (slots: nslots, a power of two) into p:
 * true when the slot holds p->tgid (else the spill hash may have it). */
bool ran_read_slot(const struct cm_proc_slot *slots, size_t nslots, struct ran_news *p);
/* Every process holding a slot into v (room for nslots), as CM_RAN with
 * its sums, sorted by tgid: what a reader that lost entries reads. */
size_t ran_all_slots(const struct cm_proc_slot *slots, size_t nslots, struct ran_news *v);
/*
 * The tasks on a CPU now (c: the cpu_state values of ncpu CPUs, read at
 * now) have run since `since` without a switch that accounts it: added to
 * their processes' entries in v (the first `sorted` sorted, n in all),
 * appending one (its sums read by sums(ctx, p)) where none is. The new
 * count (at most n + ncpu).
 */
size_t ran_add_running(struct ran_news *v, size_t sorted, size_t n,
		       const struct cm_sched_cpu *c, unsigned ncpu, uint64_t now,
		       void (*sums)(void *ctx, struct ran_news *p), void *ctx);

#endif
