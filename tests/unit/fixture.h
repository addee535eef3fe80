/* SPDX-License-Identifier: BSD-2-Clause */
/* fixture.h - read a file of a fixture tree into a buffer (unit tests only). */
#ifndef CLUSTERMON_FIXTURE_H
#define CLUSTERMON_FIXTURE_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "collect/collect.h"
#include "tap.h"

/* Reads $srcdir/tests/fixtures/FIXTURE/REL through a procfile, as the
 * collectors do; NULL if it cannot be read. */
static inline const char *read_fixture(const char *fixture, const char *rel,
				       char *buf, size_t cap)
{
	char root[512];
	struct procfile pf;
	ssize_t n;

	if (procfile_open(&pf, fixture_root(root, sizeof(root), fixture), rel) != 0)
		return NULL;
	n = procfile_read(&pf, buf, cap);
	procfile_close(&pf);
	return n < 0 ? NULL : buf;
}

/* The text of a fixture file, errno cleared for the parser that follows;
 * NULL, with a diagnostic, if it cannot be read. */
static inline const char *fixture_text(const char *fixture, const char *rel)
{
	static char buf[1 << 16];

	if (read_fixture(fixture, rel, buf, sizeof(buf)) == NULL) {
		diag("cannot read fixture %s/%s", fixture, rel);
		return NULL;
	}
	errno = 0;
	return buf;
}

/* The text of a live kernel file (REL under /, e.g. "proc/stat") read as the
 * collectors read it, errno cleared; NULL if it cannot be read. */
static inline const char *live_text(const char *rel)
{
	static char buf[1 << 16];
	struct procfile pf;
	ssize_t n;

	if (procfile_open(&pf, "", rel) != 0)
		return NULL;
	n = procfile_read(&pf, buf, sizeof(buf));
	procfile_close(&pf);
	errno = 0;
	return n > 0 ? buf : NULL;
}

/* Writes text over dir/rel in place: a reader's kept-open fd must see it (a
 * new file renamed over would leave the fd on the old one). */
static inline void fixture_put(const char *dir, const char *rel, const char *text)
{
	char path[600];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	f = fopen(path, "r+");
	if (f == NULL)
		f = fopen(path, "w");
	if (f == NULL || ftruncate(fileno(f), 0) != 0 || fputs(text, f) < 0)
		perror(path);
	if (f != NULL)
		fclose(f);
}

/* Removes a tree a test built under /tmp; says so when it cannot. */
static inline void fixture_remove(const char *dir)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		diag("could not remove %s", dir);
}

#endif
