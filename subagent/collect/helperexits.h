/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * helperexits.h - the helper's exit log (issue 43): one "exits" request
 * hands clustermond the fd of exit_ring, a BPF ring buffer the
 * sched_process_exit and oom:mark_victim programs write a record into
 * (clustermon_kprobe.h). clustermond maps it (its consumer page read-write,
 * as a ring's reader must move its position there; the data read-only) and
 * drains it on the proc source's thread, with no system call per record.
 *
 * Nothing in the ring is trusted: positions, lengths and kinds are checked
 * (exitring_walk, a pure function over the mapped bytes), strings are cut
 * to their arrays, and a record of the wrong size is skipped and counted.
 *
 * No net-snmp or libbpf here: the bpf(2) calls are made directly.
 */
#ifndef CLUSTERMON_COLLECT_HELPEREXITS_H
#define CLUSTERMON_COLLECT_HELPEREXITS_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/clustermon_kprobe.h"
#include "common/wire.h"

/* One record as drained: kind says which member holds it. */
union exit_ring_rec {
	uint32_t kind;                  /* CM_REC_EXIT or CM_REC_OOM */
	struct cm_exit_rec exit;
	struct cm_oom_rec oom;
};

typedef void (*exit_rec_fn)(void *ctx, const union exit_ring_rec *r);

/*
 * The records between *cons and prod in a ring of size bytes (a power of
 * two) whose data is mapped twice at data (as the kernel maps a ring
 * buffer), each copied, checked and handed to fn; stops at a record still
 * being written, and after max records. *cons moves past what was read;
 * *bad counts records skipped as malformed. Positions that make no sense
 * (prod behind *cons, or more than size ahead) skip to prod. Pure: the
 * fuzz target and unit test call it on plain memory. How many were handed.
 */
size_t exitring_walk(uint64_t *cons, uint64_t prod, const unsigned char *data, size_t size,
		     size_t max, exit_rec_fn fn, void *ctx, uint64_t *bad);

struct helper_exits;

/* The two rings the "exits" reply hands over, in its order. */
enum exit_ring { EXIT_RING_EXITS, EXIT_RING_OOM };

/* Connects to the helper at path, asks for "exits", checks and maps one of
 * its rings: a reader, or NULL with why (an older helper answers "err
 * invalid unknown request", one with -S without exits "err unsupported"). */
struct helper_exits *helper_exits_attach(const char *path, enum exit_ring which,
					 int timeout_ms, char *why, size_t whylen);
void helper_exits_detach(struct helper_exits *x);
/* False once the helper closed the connection (it stopped or restarted). */
bool helper_exits_alive(const struct helper_exits *x);
/* Up to max records handed to fn (helper_exits_walk); the count. */
size_t helper_exits_drain(struct helper_exits *x, size_t max, exit_rec_fn fn, void *ctx);
/* Records skipped as malformed so far. */
uint64_t helper_exits_bad(const struct helper_exits *x);
/* The ring's fd, which polls readable when a woken record (an OOM
 * victim's) is there. */
int helper_exits_fd(const struct helper_exits *x);

#endif
