/*
 * procfile.c - kernel text files kept open and re-read from offset 0.
 * seq_file regenerates the text on each read from offset 0, so pread gives a
 * fresh copy without the open/close a naive reader pays every sample.
 */
#include "collect.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int procfile_open(struct procfile *pf, const char *root, const char *relpath)
{
	const char *sep = (root[0] == '\0' || root[strlen(root) - 1] == '/') ? "" : "/";
	int n;

	pf->fd = -1;
	if (root[0] == '\0')
		root = "/";
	n = snprintf(pf->path, sizeof(pf->path), "%s%s%s", root, root[1] == '\0' ? "" : sep,
		     relpath);
	if (n < 0 || (size_t)n >= sizeof(pf->path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	pf->fd = open(pf->path, O_RDONLY | O_CLOEXEC);
	return pf->fd < 0 ? -1 : 0;
}

ssize_t procfile_read(struct procfile *pf, char *buf, size_t cap)
{
	size_t len = 0;

	if (pf->fd < 0 || cap == 0) {
		errno = EBADF;
		return -1;
	}
	for (;;) {
		ssize_t n = pread(pf->fd, buf + len, cap - 1 - len, (off_t)len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (n == 0)
			break;
		len += (size_t)n;
		/* A short read is the end: seq_file fills the buffer while it has
		 * text, and a regular file only comes up short at EOF. Skipping
		 * the read that would return 0 saves a syscall per file. */
		if ((size_t)n < cap - 1 - (len - (size_t)n))
			break;
		if (len == cap - 1) {
			char probe;

			/* Full buffer: only fine if the file ends exactly here. */
			if (pread(pf->fd, &probe, 1, (off_t)len) != 0) {
				errno = EFBIG;
				return -1;
			}
			break;
		}
	}
	buf[len] = '\0';
	return (ssize_t)len;
}

void procfile_close(struct procfile *pf)
{
	if (pf->fd >= 0)
		close(pf->fd);
	pf->fd = -1;
}
