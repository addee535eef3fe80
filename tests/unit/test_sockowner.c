/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_sockowner.c - collect/sockowner.c on a /proc tree built here (fd
 * links are symlinks to "socket:[N]", which a source tarball cannot carry):
 * owners found, shared sockets, links that are not sockets, processes
 * without an fd directory, non-numeric entries, a rebuild after a change.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collect/sockowner.h"
#include "fixture.h"
#include "tap.h"

static char dir[] = "/tmp/cm-sockowner-XXXXXX";

static void mkdirs(const char *rel)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	for (char *p = path + strlen(dir) + 1; *p != '\0'; p++)
		if (*p == '/') {
			*p = '\0';
			mkdir(path, 0700);
			*p = '/';
		}
	mkdir(path, 0700);
}

static void link_fd(const char *pid, const char *fd, const char *target)
{
	char rel[128], path[512];

	snprintf(rel, sizeof(rel), "proc/%s/fd", pid);
	mkdirs(rel);
	snprintf(path, sizeof(path), "%s/%s/%s", dir, rel, fd);
	unlink(path);
	if (symlink(target, path) != 0)
		perror(path);
}

static void links(void)
{
	uint32_t inode = 0;

	ok(sock_link_inode("socket:[12345]", &inode) && inode == 12345, "socket:[12345]");
	ok(sock_link_inode("socket:[4294967295]", &inode) && inode == UINT32_MAX,
	   "the largest 32-bit inode");
	ok(!sock_link_inode("socket:[4294967296]", &inode), "an inode past 32 bits is refused");
	ok(!sock_link_inode("socket:[12", &inode) && !sock_link_inode("socket:[]", &inode) &&
	   !sock_link_inode("socket:[1]x", &inode) && !sock_link_inode("socket:[-1]", &inode),
	   "cut or malformed links are refused");
	ok(!sock_link_inode("pipe:[77]", &inode) && !sock_link_inode("/dev/null", &inode),
	   "pipes and files are not sockets");
}

int main(void)
{
	struct sock_owners so = { 0 };
	char root[64];

	links();
	ok(sock_owners_read(&so, "/nonexistent-root") == -1 && so.n == 0,
	   "a root without proc/ fails, leaving an empty table");
	if (mkdtemp(dir) == NULL)
		return perror("mkdtemp"), 1;
	snprintf(root, sizeof(root), "%s", dir);
	link_fd("100", "0", "/dev/null");
	link_fd("100", "3", "socket:[1001]");
	link_fd("100", "4", "socket:[1002]");
	link_fd("100", "5", "pipe:[1003]");
	link_fd("200", "7", "socket:[2001]");
	link_fd("200", "8", "socket:[1001]"); /* inherited over fork */
	link_fd("self", "3", "socket:[9999]"); /* not a pid: never read */
	mkdirs("proc/300");                    /* no fd directory (exited, or hidden) */

	ok(sock_owners_read(&so, root) == 0, "read the tree");
	ok(so.n == 4, "four socket links among the pids' fds (got %zu)", so.n);
	is_u64(sock_owners_pid(&so, 1002), 100, "1002 belongs to pid 100");
	is_u64(sock_owners_pid(&so, 2001), 200, "2001 belongs to pid 200");
	is_u64(sock_owners_pid(&so, 1001), 100, "a shared socket goes to the lowest pid");
	is_u64(sock_owners_pid(&so, 1003), 0, "a pipe's inode has no owner");
	is_u64(sock_owners_pid(&so, 9999), 0, "links under proc/self are not read");
	is_u64(sock_owners_pid(&so, 0), 0, "inode 0 has no owner");

	link_fd("100", "4", "socket:[3001]");
	link_fd("250", "1", "socket:[2500]");
	ok(sock_owners_read(&so, root) == 0 && so.n == 5, "a rebuild sees the changes");
	is_u64(sock_owners_pid(&so, 1002), 0, "a closed socket lost its owner");
	is_u64(sock_owners_pid(&so, 3001), 100, "a new socket of pid 100");
	is_u64(sock_owners_pid(&so, 2500), 250, "a new process's socket");

	/* Only what ran: pid 200's sockets added, twice, to a table kept to
	 * the sockets a dump still lists. */
	{
		static const uint32_t listed[] = { 1001, 2500, 3001 };
		static const pid_t ran[] = { 200, 200 };

		sock_owners_keep(&so, listed, 3);
		ok(so.n == 4 && sock_owners_pid(&so, 2001) == 0 && sock_owners_pid(&so, 3001) == 100,
		   "keep drops the sockets no longer listed (%zu left)", so.n);
		link_fd("200", "9", "socket:[2002]");
		sock_owners_add(&so, root, ran, 2);
		is_u64(sock_owners_pid(&so, 2002), 200, "a new socket of a process that ran");
		ok(so.n == 6, "each link once, however often its process is added (%zu)", so.n);
	}
	sock_owners_free(&so);
	ok(so.v == NULL && so.n == 0, "free leaves an empty table");

	fixture_remove(dir);
	return done_testing();
}
