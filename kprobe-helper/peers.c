/* SPDX-License-Identifier: BSD-2-Clause */
/* peers.c - the helper's clients and what each may ask (peers.h). */
#include "peers.h"

#include <stdio.h>
#include <sys/socket.h>

void peer_of(int fd, uid_t user, struct peer *p)
{
	struct ucred cred = { .pid = 0, .uid = (uid_t)-1, .gid = (gid_t)-1 };
	socklen_t len = sizeof(cred);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0 || len != sizeof(cred))
		cred.uid = (uid_t)-1;
	p->uid = cred.uid;
	p->pid = cred.pid;
	p->trusted = cred.uid == 0 || (user != (uid_t)-1 && cred.uid == user);
}

bool peer_share_ok(uid_t uid, const uid_t *held, size_t n, size_t max, char *why,
		   size_t whylen)
{
	size_t mine = 0;

	for (size_t i = 0; i < n; i++)
		mine += held[i] == uid;
	if (mine < max / 2)
		return true;
	snprintf(why, whylen, "uid %lu holds %zu of the %zu client slots (at most half each)",
		 (unsigned long)uid, mine, max);
	return false;
}

bool peer_may(const struct peer *p, enum wire_verb verb, const char *user, char *why,
	      size_t whylen)
{
	const char *what = verb == WIRE_MAPS    ? "maps (its fds are writable)"
			   : verb == WIRE_EXITS ? "exits (its fd is writable)"
						: "procs (it drains clustermond's list)";

	if (p->trusted || (verb != WIRE_MAPS && verb != WIRE_PROCS && verb != WIRE_EXITS))
		return true;
	snprintf(why, whylen, "uid %lu may not ask for %s: only root%s%s", (unsigned long)p->uid,
		 what, user != NULL ? " and " : "", user != NULL ? user : "");
	return false;
}
