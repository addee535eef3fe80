/* SPDX-License-Identifier: BSD-2-Clause */
/* pathglob.c - see pathglob.h. */
#include "pathglob.h"

#include <fnmatch.h>
#include <string.h>

#define COMPONENT_MAX 256

/* The component at s (up to '/' or the end) into buf; false if too long. */
static bool component(const char *s, char *buf, const char **next)
{
	size_t n = strcspn(s, "/");

	if (n >= COMPONENT_MAX)
		return false;
	memcpy(buf, s, n);
	buf[n] = '\0';
	*next = s[n] == '/' ? s + n + 1 : s + n;
	return true;
}

static bool match_from(const char *pat, const char *path, unsigned depth)
{
	char pc[COMPONENT_MAX], nc[COMPONENT_MAX];
	const char *pnext, *nnext;

	if (depth > 64)
		return false;
	if (*pat == '\0')
		return *path == '\0';
	if (!component(pat, pc, &pnext))
		return false;
	if (strcmp(pc, "**") == 0) {
		if (match_from(pnext, path, depth + 1))
			return true;
		return *path != '\0' && component(path, nc, &nnext) &&
		       match_from(pat, nnext, depth + 1);
	}
	if (*path == '\0' || !component(path, nc, &nnext))
		return false;
	return fnmatch(pc, nc, FNM_PERIOD) == 0 && match_from(pnext, nnext, depth + 1);
}

bool path_glob_match(const char *pattern, const char *path)
{
	return match_from(pattern, path, 0);
}

/* Could a path strictly below path match? A "**" could be anything. */
static bool below_from(const char *pat, const char *path)
{
	char pc[COMPONENT_MAX], nc[COMPONENT_MAX];
	const char *pnext, *nnext;

	if (*path == '\0')
		return *pat != '\0';
	if (*pat == '\0' || !component(pat, pc, &pnext))
		return false;
	if (strcmp(pc, "**") == 0)
		return true;
	return component(path, nc, &nnext) && fnmatch(pc, nc, FNM_PERIOD) == 0 &&
	       below_from(pnext, nnext);
}

bool path_glob_below(const char *pattern, const char *path)
{
	return below_from(pattern, path);
}

const char *path_glob_check(const char *pattern)
{
	const char *p = pattern;
	char pc[COMPONENT_MAX];

	if (*p == '\0')
		return "empty pattern";
	if (*p == '/')
		return "paths are relative to the hierarchy's root: no leading '/'";
	if (p[strlen(p) - 1] == '/')
		return "an empty component ('//' or a trailing '/')";
	while (*p != '\0') {
		if (!component(p, pc, &p))
			return "a component longer than 255 bytes";
		if (pc[0] == '\0')
			return "an empty component ('//' or a trailing '/')";
		if (strcmp(pc, "..") == 0 || strcmp(pc, ".") == 0)
			return "'.' and '..' are not cgroups";
	}
	return NULL;
}
