/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * procfile.c - kernel text files kept open and re-read from offset 0.
 *
 * seq_file regenerates the text on each read from offset 0, so pread gives a
 * fresh copy without the open/close a naive reader pays every sample.
 *
 * We read until pread returns 0, never stopping at the first short read:
 * seq_file hands out at most one buffer (a page to start with) per call, so
 * files made of many records (/proc/vmstat, /proc/PID/smaps, /proc/net/...)
 * come back in several short pieces long before their end. Only single_open
 * files (/proc/stat, meminfo, PID/stat) come whole in one call; the read that
 * confirms EOF costs one cheap syscall and is the price of never serving
 * half a file.
 */
#include "collect.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* ROOT + "/" + RELPATH, with "" and "/" both meaning the live system and no
 * doubled slash whichever side carries it. */
static int build_path(char *dst, size_t cap, const char *root, const char *relpath)
{
	size_t rootlen;
	int n;

	if (root == NULL)
		root = "";
	while (*relpath == '/')
		relpath++;
	rootlen = strlen(root);
	while (rootlen > 0 && root[rootlen - 1] == '/')
		rootlen--;
	n = snprintf(dst, cap, "%.*s/%s", (int)rootlen, root, relpath);
	if (n < 0 || (size_t)n >= cap) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

int procfile_open(struct procfile *pf, const char *root, const char *relpath)
{
	pf->fd = -1;
	if (build_path(pf->path, sizeof(pf->path), root, relpath) != 0)
		return -1;
	pf->fd = open(pf->path, O_RDONLY | O_CLOEXEC);
	return pf->fd < 0 ? -1 : 0;
}

/* One pread, retried on EINTR. */
static ssize_t pread_full(int fd, char *dst, size_t want, size_t off)
{
	ssize_t n;

	do
		n = pread(fd, dst, want, (off_t)off);
	while (n < 0 && errno == EINTR);
	return n;
}

/* The buffer is full: fine only if the file ends exactly here. */
static int ends_at(int fd, size_t off)
{
	char probe;
	ssize_t n = pread_full(fd, &probe, 1, off);

	if (n == 0)
		return 0;
	if (n > 0)
		errno = EFBIG;
	return -1;
}

/*
 * On failure buf still holds what was read, NUL-terminated: after EFBIG that
 * is the first cap-1 bytes, which a caller after the head of a long file
 * (btime in /proc/stat) may use.
 */
ssize_t procfile_read(struct procfile *pf, char *buf, size_t cap)
{
	size_t len = 0;
	ssize_t n;

	if (cap == 0) {
		errno = EINVAL;
		return -1;
	}
	buf[0] = '\0';
	if (pf->fd < 0) {
		errno = EBADF;
		return -1;
	}
	for (;;) {
		if (len == cap - 1) {
			n = ends_at(pf->fd, len);
			break;
		}
		n = pread_full(pf->fd, buf + len, cap - 1 - len, len);
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	return n < 0 ? -1 : (ssize_t)len;
}

void procfile_close(struct procfile *pf)
{
	if (pf->fd >= 0)
		close(pf->fd);
	pf->fd = -1;
}
