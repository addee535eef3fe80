/* SPDX-License-Identifier: BSD-2-Clause */
/* sockowner.c - socket inode -> owning pid from /proc/PID/fd links. */
#include "sockowner.h"
#include "proc.h"
#include "common/number.h"
#include "core/lowerbound.h"

#include <dirent.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

bool sock_link_inode(const char *link, uint32_t *inode)
{
	static const char prefix[] = "socket:[";
	const char *end;
	uint64_t v;

	if (strncmp(link, prefix, sizeof(prefix) - 1) != 0 ||
	    num_scan_u64(link + sizeof(prefix) - 1, &end, &v) != NUM_OK ||
	    strcmp(end, "]") != 0 || v > UINT32_MAX)
		return false;
	*inode = (uint32_t)v;
	return true;
}

static void add(struct sock_owners *so, uint32_t inode, uint32_t pid)
{
	if (so->n == so->cap) {
		size_t n = so->cap ? so->cap * 2 : 1024;
		struct sock_owner *grown = realloc(so->v, n * sizeof(*grown));

		if (grown == NULL)
			return; /* an owner unknown, not an error */
		so->v = grown;
		so->cap = n;
	}
	so->v[so->n++] = (struct sock_owner){ inode, pid };
}

/* The sockets one process holds. */
static void scan_fds(struct sock_owners *so, const char *root, pid_t pid)
{
	char path[300], link[64];
	struct dirent *e;
	DIR *d;

	if ((size_t)snprintf(path, sizeof(path), "%s/proc/%d/fd", root, (int)pid) >=
	    sizeof(path))
		return;
	d = opendir(path);
	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		ssize_t n = readlinkat(dirfd(d), e->d_name, link, sizeof(link) - 1);
		uint32_t inode;

		if (n <= 0)
			continue;
		link[n] = '\0';
		if (sock_link_inode(link, &inode))
			add(so, inode, (uint32_t)pid);
	}
	closedir(d);
}

static int by_inode(const void *a, const void *b)
{
	const struct sock_owner *x = a, *y = b;

	if (x->inode != y->inode)
		return (x->inode > y->inode) - (x->inode < y->inode);
	return (x->pid > y->pid) - (x->pid < y->pid);
}

int sock_owners_read(struct sock_owners *so, const char *root)
{
	ssize_t npids = proc_list_pids(root, &so->pids, &so->pids_cap);

	so->n = 0;
	if (npids < 0)
		return -1;
	for (ssize_t i = 0; i < npids; i++)
		scan_fds(so, root, so->pids[i]);
	if (so->n > 1)
		qsort(so->v, so->n, sizeof(*so->v), by_inode);
	return 0;
}

void sock_owners_add(struct sock_owners *so, const char *root, const pid_t *pids, size_t n)
{
	size_t before = so->n;

	size_t kept = 0;

	for (size_t i = 0; i < n; i++)
		scan_fds(so, root, pids[i]);
	if (so->n == before)
		return;
	qsort(so->v, so->n, sizeof(*so->v), by_inode);
	/* A process added twice must not fill the table with copies. */
	for (size_t i = 0; i < so->n; i++)
		if (kept == 0 || so->v[kept - 1].inode != so->v[i].inode ||
		    so->v[kept - 1].pid != so->v[i].pid)
			so->v[kept++] = so->v[i];
	so->n = kept;
}

void sock_owners_keep(struct sock_owners *so, const uint32_t *inodes, size_t n)
{
	size_t kept = 0, j = 0;

	for (size_t i = 0; i < so->n; i++) {
		while (j < n && inodes[j] < so->v[i].inode)
			j++;
		if (j < n && inodes[j] == so->v[i].inode)
			so->v[kept++] = so->v[i];
	}
	so->n = kept;
}

uint32_t sock_owners_pid(const struct sock_owners *so, uint32_t inode)
{
	size_t at;

	if (inode == 0)
		return 0;
	at = cm_lower_bound_u32(so->v, sizeof(*so->v), offsetof(struct sock_owner, inode), 0, so->n,
				inode);
	return at < so->n && so->v[at].inode == inode ? so->v[at].pid : 0;
}

void sock_owners_free(struct sock_owners *so)
{
	free(so->v);
	free(so->pids);
	memset(so, 0, sizeof(*so));
}
