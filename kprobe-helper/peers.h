/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * peers.h - who the helper's clients are (issue 40, part 4), by the
 * kernel's word (SO_PEERCRED: the peer's credentials at connect).
 *
 * The trusted peer is root, or the -u user (clustermond's): only it gets
 * the maps reply's fds, writable because the kernel maps a BPF array only
 * through a fd that may write, and only it drains procs, whose list has
 * one reader so that clustermond's process table misses no process that
 * ran. Every uid, root included, holds at most half of the client slots,
 * so no one peer can lock the others out.
 */
#ifndef CLUSTERMON_PEERS_H
#define CLUSTERMON_PEERS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "common/wire.h"

struct peer {
	uid_t uid;     /* (uid_t)-1 when the kernel did not say */
	pid_t pid;
	bool trusted;
};

/* The peer on the connected socket fd; trusted when root or user (the -u
 * user's uid, (uid_t)-1 without -u). */
void peer_of(int fd, uid_t user, struct peer *p);
/* Whether a peer of uid may take one more slot while the n slots held
 * belong to held[i]: at most max / 2 to any one uid. false with why. */
bool peer_share_ok(uid_t uid, const uid_t *held, size_t n, size_t max, char *why,
		   size_t whylen);
/* Whether the peer may make request verb (maps, procs: only the trusted
 * peer); false with why, naming the peer and the verb. */
bool peer_may(const struct peer *p, enum wire_verb verb, const char *user, char *why,
	      size_t whylen);

#endif
