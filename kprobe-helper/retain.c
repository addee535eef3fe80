/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * retain.c - the finished traces under the base: measured for the disk
 * quota, the oldest beyond -K and those older than -A removed (budget.h).
 *
 * Only what the helper made is touched: a directory (opened
 * O_DIRECTORY|O_NOFOLLOW, so never a symbolic link or through one) named
 * trace-ID-YYYYMMDDTHHMMSSZ-<16 hex>, owned by root or the helper's uid,
 * and in it only the names it writes, metadata and cpuN, unlinked from the
 * directory's fd (a link among them goes, never what it points to). A
 * directory holding anything else stays, as does any other name.
 */
#include "budget.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct found {
	char name[BUDGET_NAME_MAX];
	uint64_t bytes;
	struct timespec last;     /* the newest mtime of it and its files */
};

static bool digits(const char *s, size_t n)
{
	return strspn(s, "0123456789") == n;
}

/* trace-ID-YYYYMMDDTHHMMSSZ-RANDOM, as make_dir (trace.c) names them. */
static bool helper_name(const char *s)
{
	size_t id;

	if (strncmp(s, "trace-", 6) != 0)
		return false;
	s += 6;
	id = strspn(s, "0123456789");
	if (id < 1 || id > 5 || s[id] != '-')
		return false;
	s += id + 1;
	if (!digits(s, 8) || s[8] != 'T' || !digits(s + 9, 6) || strncmp(s + 15, "Z-", 2) != 0)
		return false;
	s += 17;
	return strspn(s, "0123456789abcdef") == 16 && s[16] == '\0';
}

static bool own(const struct stat *st)
{
	return S_ISDIR(st->st_mode) && (st->st_uid == 0 || st->st_uid == geteuid());
}

static bool running(const struct trace_budget *b, const char *name)
{
	for (int i = 0; i < BUDGET_SLOTS; i++)
		if (b->slot[i].used && strcmp(b->slot[i].name, name) == 0)
			return true;
	return false;
}

/* One of the helper's directories, opened: its fd, or -1. */
static int open_own(int basefd, const char *name)
{
	struct stat st;
	int fd = openat(basefd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd >= 0 && (fstat(fd, &st) != 0 || !own(&st))) {
		close(fd);
		return -1;
	}
	return fd;
}

static bool later(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec != b->tv_sec ? a->tv_sec > b->tv_sec : a->tv_nsec > b->tv_nsec;
}

/* Its regular files' bytes and the newest mtime: 0, or -1 (not ours). */
static int measure(int basefd, struct found *f)
{
	int fd = open_own(basefd, f->name);
	struct dirent *e;
	struct stat st;
	DIR *d;

	if (fd < 0 || fstat(fd, &st) != 0 || (d = fdopendir(fd)) == NULL) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	f->bytes = 0;
	f->last = st.st_mtim;
	while ((e = readdir(d)) != NULL)
		if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISREG(st.st_mode)) {
			f->bytes += (uint64_t)st.st_size;
			if (later(&st.st_mtim, &f->last))
				f->last = st.st_mtim;
		}
	closedir(d);
	return 0;
}

static bool helper_file(const char *name)
{
	return strcmp(name, "metadata") == 0 ||
	       (strncmp(name, "cpu", 3) == 0 && name[3] != '\0' && digits(name + 3, strlen(name + 3)));
}

/* Whether d holds only what a session writes: metadata and cpuN, none of
 * them a directory. */
static bool only_helper_files(DIR *d)
{
	struct dirent *e;
	struct stat st;

	rewinddir(d);
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (!helper_file(e->d_name) ||
		    fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || S_ISDIR(st.st_mode))
			return false;
	}
	rewinddir(d);
	return true;
}

/* Its files, then itself: 0, or -1 (it stays, whole when it holds
 * anything a session does not write). */
static int remove_trace(int basefd, const char *name)
{
	int fd = open_own(basefd, name);
	struct dirent *e;
	DIR *d;

	if (fd < 0 || (d = fdopendir(fd)) == NULL) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (!only_helper_files(d)) {
		closedir(d);
		return -1;
	}
	while ((e = readdir(d)) != NULL)
		if (helper_file(e->d_name))
			unlinkat(dirfd(d), e->d_name, 0);
	closedir(d);
	return unlinkat(basefd, name, AT_REMOVEDIR);
}

static int oldest_first(const void *a, const void *b)
{
	const struct found *x = a, *y = b;

	if (later(&x->last, &y->last) || later(&y->last, &x->last))
		return later(&x->last, &y->last) ? 1 : -1;
	return strcmp(x->name, y->name);  /* same second: the name's stamp */
}

/* The finished traces under basefd, oldest first: how many (*out to free),
 * or -1. */
static long list_finished(const struct trace_budget *b, int basefd, struct found **out)
{
	int fd = dup(basefd);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct found *f = NULL, *more;
	size_t n = 0, cap = 0;
	struct dirent *e;

	if (d == NULL) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	rewinddir(d);  /* dup shares the offset with basefd */
	while ((e = readdir(d)) != NULL) {
		if (!helper_name(e->d_name) || running(b, e->d_name))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 32;
			if ((more = realloc(f, cap * sizeof(*f))) == NULL)
				break;
			f = more;
		}
		memcpy(f[n].name, e->d_name, strlen(e->d_name) + 1);  /* helper_name: 45 bytes */
		if (measure(basefd, &f[n]) == 0)
			n++;
	}
	closedir(d);
	if (n > 1)   /* qsort wants an array even for none */
		qsort(f, n, sizeof(*f), oldest_first);
	*out = f;
	return (long)n;
}

int budget_retain(struct trace_budget *b, int basefd, time_t now)
{
	struct found *f = NULL;
	long n = list_finished(b, basefd, &f);
	int removed = 0;

	if (n < 0)
		return 0;
	b->disk_done = 0;
	for (long i = 0; i < n; i++) {
		bool extra = b->lim.keep > 0 && (uint64_t)(n - i) > b->lim.keep;
		bool old = b->lim.max_age_s > 0 && now > f[i].last.tv_sec &&
			   (uint64_t)(now - f[i].last.tv_sec) > b->lim.max_age_s;

		if ((extra || old) && remove_trace(basefd, f[i].name) == 0)
			removed++;
		else
			b->disk_done += f[i].bytes;
	}
	free(f);
	return removed;
}
