/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * dists.h - distribution rows in clustermon-kprobe: a loaded copy of
 * dist.bpf.c per row, and the control-socket verbs that manage them (the
 * helper's main loop passes every parsed request here first; common/wire.h
 * reads and writes the lines):
 *
 *   dist ID SPEC [pid=N] [cpu=N] [every=N] [cgroup=PATH] [inflight=N]
 *                     -> ok attached | ok unchanged | err CLASS REASON
 *   undist ID         -> ok | err invalid no dist ID
 *   dists             -> ok N, then N lines
 *                        "dist ID HITS SAMPLED MISSES SUM SLOT0 ... SLOT63"
 *
 * SPEC and the filters are distspec.h's; ID is 1..65535 (its own number
 * space); at most DIST_MAX_ROWS rows. Re-adding an ID with the same line
 * keeps its counts; with another line the row is replaced only once the
 * new one is attached (a failed replacement leaves the old row running).
 * A failed add leaves nothing in the kernel: the verifier's or the
 * attach's reason comes back after "err failed".
 */
#ifndef CLUSTERMON_DISTS_H
#define CLUSTERMON_DISTS_H

#include <stdbool.h>
#include <stdio.h>

#include "common/wire.h"

/* Serves req if it is one of the verbs above (the reply into out). */
bool dists_serve(const struct wire_request *req, FILE *out);
/* Detaches and frees every row (at exit). */
void dists_clear(void);

#endif
