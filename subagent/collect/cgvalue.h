/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * cgvalue.h - what the v1 and v2 readers (cgroup1.c, cgroup2.c) share with
 * cgroup.c: the small parsers and a file's text. Kept apart so the version
 * readers call down into it and never back into cgroup.c, which calls them.
 */
#ifndef CLUSTERMON_COLLECT_CGVALUE_H
#define CLUSTERMON_COLLECT_CGVALUE_H

#include <stdbool.h>
#include <stdint.h>

#include "collect.h"

/* "123\n"; with allow_max also "max\n" -> CG_UNLIMITED. */
int cg_value_parse(const char *buf, bool allow_max, uint64_t *out);
/* "MAJ:MIN" at *p; *p moves past it. */
bool cg_scan_dev(const char **p);
/* cgroup.procs: one pid a line; the count. */
int cg_procs_parse(const char *buf, uint64_t *count);

/* The text of an open file, or NULL (not there, or a read error). */
const char *cg_text(struct procfile *f, char *buf, size_t cap);

#endif
