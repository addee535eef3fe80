// SPDX-License-Identifier: BSD-2-Clause
/* oomvictim.c - an OOM victim's process and memory cgroup (oomvictim.h). */
#include "oomvictim.h"
#include "cgid.h"
#include "cgroup.h"
#include "cgvalue.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* A small file whole into buf (NUL-terminated): its length, or -1. */
static ssize_t slurp(const char *path, char *buf, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, cap - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return n;
}

/* Whether a comma-separated controller list names "memory". */
static bool has_memory(const char *list, size_t len)
{
	for (size_t i = 0; i < len;) {
		size_t w = strcspn(list + i, ",:");

		if (w > len - i)
			w = len - i;
		if (w == 6 && strncmp(list + i, "memory", 6) == 0)
			return true;
		i += w + 1;
	}
	return false;
}

int oom_cgroup_parse(const char *buf, char *out, size_t cap, bool *v1)
{
	const char *v2 = NULL, *line;
	size_t v2len = 0;

	for (line = buf; *line != '\0';) {
		const char *nl = strchr(line, '\n'), *c1 = strchr(line, ':'), *c2;
		size_t len = nl ? (size_t)(nl - line) : strlen(line);

		c2 = c1 && c1 < line + len ? memchr(c1 + 1, ':', (size_t)(line + len - c1 - 1)) : NULL;
		if (c2 != NULL) {
			const char *path = c2 + 1;
			size_t plen = (size_t)(line + len - path);

			if (c2 == c1 + 1 && line[0] == '0') {
				v2 = path;
				v2len = plen;
			} else if (has_memory(c1 + 1, (size_t)(c2 - c1 - 1))) {
				*v1 = true;
				snprintf(out, cap, "%.*s", (int)(plen > 1 ? plen - 1 : 1),
					 plen > 1 ? path + 1 : "/");
				return 0;
			}
		}
		line += len + (nl != NULL);
	}
	if (v2 == NULL || v2len == 0 || v2[0] != '/')
		return -1;
	*v1 = false;
	snprintf(out, cap, "%.*s", (int)(v2len > 1 ? v2len - 1 : 1), v2len > 1 ? v2 + 1 : "/");
	return 0;
}

static int read_value(const char *dir, const char *file, bool allow_max, uint64_t *out)
{
	char path[CG_PATH_MAX * 3], buf[64];

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, file) >= sizeof(path) ||
	    slurp(path, buf, sizeof(buf)) < 0)
		return -1;
	return cg_value_parse(buf, allow_max, out);
}

int oom_cgroup_memory(const char *root, const char *path, bool v1, struct oom_victim *v)
{
	struct cgroup_mounts m;
	const char *mnt;
	char dir[CG_PATH_MAX * 2 + 16];

	if (cgroup_mounts_read(root, &m) != 0)
		return -1;
	mnt = v1 ? m.v1[CG_MEMORY] : m.v2;
	if (mnt[0] == '\0' ||
	    (size_t)snprintf(dir, sizeof(dir), "%s%s/%s", root, mnt,
			     strcmp(path, "/") == 0 ? "" : path) >= sizeof(dir))
		return -1;
	if (v1 ? read_value(dir, "memory.limit_in_bytes", false, &v->limit) != 0 ||
		     read_value(dir, "memory.usage_in_bytes", false, &v->usage) != 0
	       : read_value(dir, "memory.max", true, &v->limit) != 0 ||
		     read_value(dir, "memory.current", false, &v->usage) != 0)
		return -1;
	if (v1)
		v->limit = cg1_limit(v->limit);
	v->have_mem = true;
	return 0;
}

int oom_victim_read(const char *root, uint32_t tid, struct oom_victim *v)
{
	char path[320], buf[4096], *p;
	unsigned long tgid;

	snprintf(path, sizeof(path), "%s/proc/%u/status", root, tid);
	if (slurp(path, buf, sizeof(buf)) < 0)
		return -1;
	if ((p = strstr(buf, "\nTgid:")) != NULL && sscanf(p + 6, "%lu", &tgid) == 1 && tgid > 0)
		v->pid = (uint32_t)tgid;
	if (strncmp(buf, "Name:\t", 6) == 0)
		snprintf(v->comm, sizeof(v->comm), "%.*s", (int)strcspn(buf + 6, "\n"), buf + 6);
	snprintf(path, sizeof(path), "%s/proc/%u/cgroup", root, tid);
	if (slurp(path, buf, sizeof(buf)) < 0 ||
	    oom_cgroup_parse(buf, v->cgroup, sizeof(v->cgroup), &v->v1) != 0)
		return -1;
	oom_cgroup_memory(root, v->cgroup, v->v1, v);
	return 0;
}

bool oom_victim_placed(const struct oom_victim *v, uint64_t memcg)
{
	if (v->cgroup[0] == '\0')
		return false;
	return !(v->v1 && strcmp(v->cgroup, "/") == 0 && memcg > 1);
}

int oom_victim_memcg(const char *root, struct cgid_map *map, uint64_t memcg, uint64_t now_ns,
		     struct oom_victim *v)
{
	struct cgroup_mounts m;
	char path[sizeof(v->cgroup)];

	if (memcg == 0 || cgroup_mounts_read(root, &m) != 0 ||
	    cgid_map_path(map, root, memcg, now_ns, path, sizeof(path))[0] == '\0')
		return -1;
	memcpy(v->cgroup, path, sizeof(path));
	v->v1 = m.v1[CG_MEMORY][0] != '\0';
	v->have_mem = false;
	oom_cgroup_memory(root, v->cgroup, v->v1, v);
	return 0;
}
