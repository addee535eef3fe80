/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * policyfile.c - reading root's policy file (policy.h): never through a
 * symbolic link, and only a file nobody but root could have written.
 */
#include "policy.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Why the policy's directory (open as fd) is not root's alone; NULL if it is. */
static const char *distrust_dir(int fd)
{
	struct stat st;

	if (fstat(fd, &st) != 0)
		return "cannot be examined";
	if (st.st_uid != 0)
		return "is not owned by root";
	if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0 && (st.st_mode & S_ISVTX) == 0)
		return "is writable by its group or others (and not sticky)";
	return NULL;
}

/* Why the policy file (open as fd) is not root's alone; NULL if it is. */
static const char *distrust_file(int fd, off_t *size)
{
	struct stat st;

	if (fstat(fd, &st) != 0)
		return "cannot be examined";
	if (!S_ISREG(st.st_mode))
		return "is not a regular file";
	if (st.st_uid != 0)
		return "is not owned by root";
	if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0)
		return "is writable by its group or others";
	if (st.st_size > (off_t)POLICY_MAX_BYTES)
		return "is larger than 256 KiB";
	*size = st.st_size;
	return NULL;
}

/* The file name in its directory: opened O_NOFOLLOW, so ELOOP for a link.
 * The fd, -1 with errno (ENOENT: absent), or -2 with why. */
static int open_in_dir(const char *path, char *why, size_t whylen)
{
	char dir[4096];
	const char *slash = strrchr(path, '/'), *bad;
	int dfd, fd;

	if (path[0] != '/' || slash == NULL || slash[1] == '\0' ||
	    (size_t)(slash - path) >= sizeof(dir)) {
		snprintf(why, whylen, "policy %.200s is not an absolute file name", path);
		return -2;
	}
	/* "/" for a file at the root */
	snprintf(dir, sizeof(dir), "%.*s", slash == path ? 1 : (int)(slash - path), path);
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -1;
	if ((bad = distrust_dir(dfd)) != NULL) {
		snprintf(why, whylen, "policy %.200s: its directory %.200s %s", path, dir, bad);
		close(dfd);
		return -2;
	}
	fd = openat(dfd, slash + 1, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	close(dfd);
	return fd;
}

static int read_text(int fd, off_t size, char **text)
{
	size_t got = 0;

	*text = malloc((size_t)size + 1);
	if (*text == NULL)
		return -1;
	while (got < (size_t)size) {
		ssize_t n = read(fd, *text + got, (size_t)size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	(*text)[got] = '\0';
	return 0;
}

int policy_load(const char *path, bool may_be_absent, struct policy *p, char *why,
		size_t whylen)
{
	int fd = open_in_dir(path, why, whylen), rc;
	struct policy *fresh;
	const char *bad;
	char *text;
	off_t size = 0;

	if (fd == -2)
		return -1;
	if (fd < 0 && errno == ENOENT && may_be_absent) {
		policy_builtin(p);
		return 1;
	}
	if (fd < 0) {
		if (errno == ELOOP)
			snprintf(why, whylen, "policy %.200s is a symbolic link", path);
		else
			snprintf(why, whylen, "policy %.200s: %s", path, strerror(errno));
		return -1;
	}
	if ((bad = distrust_file(fd, &size)) != NULL || read_text(fd, size, &text) != 0) {
		snprintf(why, whylen, "policy %.200s %s", path, bad ? bad : "cannot be read");
		close(fd);
		return -1;
	}
	close(fd);
	/* Parsed aside: a bad file leaves the policy in force as it was. */
	fresh = malloc(sizeof(*fresh));
	rc = fresh == NULL ? -1 : policy_parse(text, path, fresh, why, whylen);
	if (fresh == NULL)
		snprintf(why, whylen, "out of memory");
	if (rc == 0)
		*p = *fresh;
	free(fresh);
	free(text);
	return rc;
}
