/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * sockowner.h - which process holds a socket: inode -> pid from the
 * "socket:[INODE]" links in ROOT/proc/PID/fd, the way ss -p finds owners.
 * Reading every process's fd links costs far more than a socket dump, so
 * the caller decides how often to rebuild, or adds only the processes that
 * ran (sock_owners_add). No net-snmp, no threads.
 */
#ifndef CLUSTERMON_SOCKOWNER_H
#define CLUSTERMON_SOCKOWNER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct sock_owner {
	uint32_t inode, pid;
};

/* Start zeroed; the arrays are kept between rebuilds. */
struct sock_owners {
	struct sock_owner *v;     /* ascending inode, then pid */
	size_t n, cap;
	pid_t *pids;              /* the last listing of ROOT/proc */
	size_t pids_cap;
};

/* Rebuilds the table from ROOT/proc (root as in collect.h, "" = live).
 * -1 when ROOT/proc cannot be listed (the table is then empty). A process
 * that exits meanwhile, or whose fds we may not read, is skipped; a socket
 * held by several processes goes to the lowest pid. */
int sock_owners_read(struct sock_owners *so, const char *root);
/* Adds the sockets the given processes hold (their fd links) to the table,
 * which stays sorted: for a caller that knows which processes ran, so a new
 * socket's owner is found without reading every process's fds. */
void sock_owners_add(struct sock_owners *so, const char *root, const pid_t *pids, size_t n);
/* Keeps only the entries whose inode is in inodes[] (ascending). */
void sock_owners_keep(struct sock_owners *so, const uint32_t *inodes, size_t n);
/* The owner of a socket inode, 0 when unknown (inode 0 included). */
uint32_t sock_owners_pid(const struct sock_owners *so, uint32_t inode);
void sock_owners_free(struct sock_owners *so);

/* "socket:[INODE]" (a readlink of /proc/PID/fd/N) -> inode; false for
 * anything else, or an inode that does not fit 32 bits. */
bool sock_link_inode(const char *link, uint32_t *inode);

#endif
