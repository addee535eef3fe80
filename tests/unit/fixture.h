/* fixture.h - read a file of a fixture tree into a buffer (unit tests only). */
#ifndef CLUSTERMON_FIXTURE_H
#define CLUSTERMON_FIXTURE_H

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

#endif
