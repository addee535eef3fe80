// SPDX-License-Identifier: BSD-2-Clause
/* cgid.c - cgroup ids to paths, by walking a hierarchy (cgid.h). */
#include "cgid.h"
#include "cgroup.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Paths kept at most; the oldest walk's go first. */
#define CGID_MAX 16384

struct cgid_ent {
	uint64_t id;
	uint64_t seen;               /* the walk that last saw it */
	char path[CG_PID_PATH_MAX];
};

struct cgid_map {
	struct cgid_ent *v;          /* sorted by id */
	size_t n, cap;
	uint64_t walks, last_ns, min_gap_ns;
	enum cgid_tree tree;
	struct cgid_ent *fresh;      /* one walk's finds, unsorted */
	size_t nfresh, fresh_cap;
	char base[CG_PATH_MAX * 2];
};

struct cgid_map *cgid_map_new(uint64_t min_gap_ns, enum cgid_tree tree)
{
	struct cgid_map *m = calloc(1, sizeof(*m));

	if (m != NULL) {
		m->min_gap_ns = min_gap_ns;
		m->tree = tree;
	}
	return m;
}

void cgid_map_free(struct cgid_map *m)
{
	if (m == NULL)
		return;
	free(m->v);
	free(m->fresh);
	free(m);
}

static int by_id(const void *a, const void *b)
{
	uint64_t x = ((const struct cgid_ent *)a)->id, y = ((const struct cgid_ent *)b)->id;

	return x < y ? -1 : x > y;
}

static const struct cgid_ent *find(const struct cgid_map *m, uint64_t id)
{
	struct cgid_ent key = { .id = id };

	return m->n ? bsearch(&key, m->v, m->n, sizeof(*m->v), by_id) : NULL;
}

/* One directory of the walk: its inode is its cgroup's id (stat's, which
 * is the one BPF reports even where readdir's differs, on an overlay). */
static bool visit(const char *rel, uint64_t ino, void *arg)
{
	struct cgid_map *m = arg;
	char full[sizeof(m->base) + CG_PID_PATH_MAX];
	struct stat st;

	(void)ino;
	if (m->nfresh == m->fresh_cap) {
		size_t cap = m->fresh_cap ? m->fresh_cap * 2 : 256;
		struct cgid_ent *v = cap <= CGID_MAX ? realloc(m->fresh, cap * sizeof(*v)) : NULL;

		if (v == NULL)
			return false;
		m->fresh = v;
		m->fresh_cap = cap;
	}
	if ((size_t)snprintf(full, sizeof(full), "%s/%s", m->base, rel) >= sizeof(full) ||
	    stat(full, &st) != 0 || strlen(rel) >= CG_PID_PATH_MAX)
		return true;
	m->fresh[m->nfresh].id = (uint64_t)st.st_ino;
	m->fresh[m->nfresh].seen = m->walks;
	snprintf(m->fresh[m->nfresh].path, CG_PID_PATH_MAX, "%s", rel[0] ? rel : "/");
	m->nfresh++;
	return true;
}

static int by_id_newest(const void *a, const void *b)
{
	const struct cgid_ent *x = a, *y = b;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->seen > y->seen ? -1 : x->seen < y->seen;
}

static int by_newest(const void *a, const void *b)
{
	uint64_t x = ((const struct cgid_ent *)a)->seen, y = ((const struct cgid_ent *)b)->seen;

	return x > y ? -1 : x < y;
}

/* The walk's finds and the paths known before (their cgroups may be gone
 * with processes still to name): one entry per id, the newest walk's,
 * and at most CGID_MAX, those seen longest ago dropped first. */
static int merge(struct cgid_map *m)
{
	size_t n = m->n + m->nfresh, k = 0;
	struct cgid_ent *all = malloc((n ? n : 1) * sizeof(*all));

	if (all == NULL)
		return -1;
	if (m->n)
		memcpy(all, m->v, m->n * sizeof(*all));
	if (m->nfresh)
		memcpy(all + m->n, m->fresh, m->nfresh * sizeof(*all));
	if (n > 1)
		qsort(all, n, sizeof(*all), by_id_newest);
	for (size_t i = 0; i < n; i++)
		if (k == 0 || all[k - 1].id != all[i].id)
			all[k++] = all[i];
	if (k > CGID_MAX) {
		qsort(all, k, sizeof(*all), by_newest);
		k = CGID_MAX;
		qsort(all, k, sizeof(*all), by_id);
	}
	free(m->v);
	m->v = all;
	m->n = k;
	return 0;
}

/* Walks the map's tree again. */
static void rewalk(struct cgid_map *m, const char *root)
{
	struct cgroup_mounts mounts;
	const char *mnt;

	if (cgroup_mounts_read(root, &mounts) != 0)
		return;
	mnt = m->tree == CGID_MEMORY && mounts.v1[CG_MEMORY][0] != '\0' ? mounts.v1[CG_MEMORY]
									 : mounts.v2;
	if (mnt[0] == '\0')
		return;
	snprintf(m->base, sizeof(m->base), "%s%s", root, mnt);
	m->walks++;
	m->nfresh = 0;
	/* The root: its id is 1 to BPF, not the mount point's inode. */
	if (cgroup_walk(m->base, 32, CGID_MAX, visit, m) >= 0)
		merge(m);
}

const char *cgid_map_path(struct cgid_map *m, const char *root, uint64_t id, uint64_t now_ns,
			  char *out, size_t cap)
{
	const struct cgid_ent *e = find(m, id);

	if (e == NULL && id > 1 && (m->last_ns == 0 || now_ns - m->last_ns >= m->min_gap_ns)) {
		m->last_ns = now_ns;
		rewalk(m, root);
		e = find(m, id);
	}
	snprintf(out, cap, "%s", e != NULL ? e->path : id == 1 ? "/" : "");
	return out;
}
