/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pathglob.h - shell globs on slash-separated paths (cgroupMatch): each
 * component is an fnmatch(3) pattern that never crosses a '/', and a
 * component "**" stands for any number of components, none included.
 */
#ifndef CLUSTERMON_PATHGLOB_H
#define CLUSTERMON_PATHGLOB_H

#include <stdbool.h>

bool path_glob_match(const char *pattern, const char *path);
/* Could a path below path (a directory) match? The walk skips the
 * directories where none could. */
bool path_glob_below(const char *pattern, const char *path);
/* NULL when pattern can be used, else why not (empty, absolute, "..",
 * an empty component). */
const char *path_glob_check(const char *pattern);

#endif
