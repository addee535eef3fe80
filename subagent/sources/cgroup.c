/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * cgroup.c - the "cgroup" source: one row per cgroup whose path matches a
 * cgroupMatch pattern, from collect/cgroup*.c, on a thread of its own.
 *
 * The trees are walked for new cgroups at most once a second (a walk of
 * hundreds of directories would dominate a 10 ms interval); between walks
 * each cgroup's files stay open and are re-read with pread. A removed
 * cgroup's open files fail with ENODEV, so its row goes at the next
 * sample that reads them; with the helper, whose sensor spares most
 * samples the files, at the next walk (within a second) at the latest.
 *
 * Row index (clusterMonCgroupIndex): the cgroup id, which is the inode of
 * the cgroup's directory in the v2 tree and what the kernel's BPF helpers
 * report, when the path is in a v2 tree and the id fits in 31 bits. A
 * v1-only cgroup has no id that means the same thing in every hierarchy
 * (each v1 mount numbers its directories apart, and a cgroup need not
 * exist in the cpu one), so its index is 2^31 + a 31-bit FNV-1a hash of
 * its path: the same after a restart of clustermond or of the job that
 * recreates it, and apart from every v2 id. Two paths that hash alike
 * take the next free number, the one found later moving on.
 *
 * CPU time and run-queue latency per cgroup also come from clustermon-kprobe
 * when it runs: its map keyed by the unified tree's cgroup id (the inode
 * the walk found), read whole at each sample. The files (throttling,
 * memory, I/O, pids, PSI: only there) are then read once every
 * FILES_PERIOD_NS per cgroup, each cgroup at a phase of its own, so a
 * sample reads the few whose turn came instead of every cgroup's ~20 files
 * at once (about 3 us a file, what a pass costs); without the helper, at
 * every sample.
 *
 * A snapshot shares each row that did not change with the one before
 * (cgroup.h: struct cgroup_row), so a sample copies only what moved.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../collect/cgroup.h"
#include "../collect/helpercg.h"
#include "common/clock.h"
#include "../core/pathglob.h"
#include "../core/lowerbound.h"
#include "../core/workload.h"
#include "probes.h"
#include "cgroup.h"
#include "sources.h"
#include "top.h"
#include "cgroupend.h"

static struct snapshot_slot cgroup_slot = SNAPSHOT_SLOT_INIT;

const char *const cgroup_default_patterns[] = {
	"system.slice/*",
	"kubepods*/**/pod*",
	"kubepods*/**/kubepods-*pod*.slice",
	"**/slurm*/uid_*/job_*",
	/* <node>_slurmstepd.scope with several slurmd; Slurm 26.05 names a job's
	 * directory by its SLUID ('s' and 13 characters) unless
	 * CgroupJobIdPaths=yes. */
	"**/*slurmstepd.scope/job_*",
	"**/*slurmstepd.scope/s?????????????",
	NULL,
};

#define RESCAN_NS 1000000000ull
#define WALK_DEPTH 8
#define WALK_DIRS 16384
#define CGROUP_MAX_ROWS 4096
#define V1_INDEX_BASE 0x80000000u
#define HELPER_RETRY_NS 5000000000ull
#define FILES_PERIOD_NS 10000000000ull /* with the helper: each cgroup's files */
#define HELPER_TIMEOUT_MS 500

struct cg_entry {
	char path[CG_PATH_MAX];
	uint32_t index;
	uint8_t version;
	uint64_t v2_id;             /* its directory's inode in the v2 tree; 0 */
	int tree;                   /* the tree the walk first found it in, */
	uint64_t ino;               /* and its inode there (see on_dir) */
	bool seen;                  /* found by the walk in progress */
	bool read;                  /* st holds a reading of its files */
	bool gone;                  /* its files said the cgroup was removed */
	struct cgroup_stats st;     /* the last, read at st_ns */
	uint64_t st_ns;
	uint64_t files_due;         /* with the helper: its next files reading */
	struct cgroup_sched rq;     /* the helper's, as last served */
	uint64_t gen;               /* the sample its row last changed in */
	struct cgroup_row *row;     /* the last published: one reference */
	uint64_t born_ms;           /* first seen: ms since the epoch */
	char workload[WORKLOAD_MAX]; /* from the path, once (core/workload.c) */
	struct cgroup_files files;
};

struct cgroup_source {
	char root[256];
	struct cgroup_conf conf;
	struct exit_conf end_conf;  /* exitLog's bounds serve the end log too */
	struct cgend_log ends;
	struct cgroup_mounts mounts;
	struct cg_entry **e;        /* ascending path; pointers, so an insert
				     * moves 8 bytes an entry, not its 9 kB */
	size_t n, cap;
	struct cg_entry **ix;       /* the same, ascending index: the rows' order */
	bool ix_stale;              /* an entry came or went since ix was sorted */
	size_t matched;
	uint64_t last_walk_ns;
	int walk_tree;              /* the tree being walked: -1 v2, else enum cg_ctrl */
	bool walked;
	unsigned open_failed;       /* cgroups not opened this walk: not ENOENT */
	struct cgroup_top_state *top; /* each cgroup's last CPU ns (top.c) */
	char helper_socket[PROBE_SOCKET_MAX];
	struct helper_cgmap *cgm;   /* the helper's per-cgroup map; NULL */
	uint64_t cgm_retry_ns;
	uint64_t gen;               /* the sample's number: rows' generations */
	char buf[64 * 1024];        /* cgroup.procs of a busy cgroup, memory.stat */
};

/* ------------------------------------------------ which cgroups */

/* Does rel match a pattern (below false), or could a path below it
 * (below true)? A walk that lists only those directories costs a tenth. */
static bool wanted(const struct cgroup_source *cs, const char *rel, bool below)
{
	bool (*test)(const char *, const char *) = below ? path_glob_below : path_glob_match;

	if (cs->conf.n == 0) {
		for (const char *const *p = cgroup_default_patterns; *p != NULL; p++)
			if (test(*p, rel))
				return true;
		return false;
	}
	for (unsigned i = 0; i < cs->conf.n; i++)
		if (test(cs->conf.pattern[i], rel))
			return true;
	return false;
}

struct path_key {
	struct cg_entry *const *e;
	const char *path;
};

static bool path_before(const void *ctx, size_t i)
{
	const struct path_key *k = ctx;

	return strcmp(k->e[i]->path, k->path) < 0;
}

/* Binary search by path; *at gets where it is or would go. */
static bool find(const struct cgroup_source *cs, const char *path, size_t *at)
{
	*at = cm_lower_bound(0, cs->n, path_before, &(struct path_key){ cs->e, path });
	return *at < cs->n && strcmp(cs->e[*at]->path, path) == 0;
}

static uint32_t fnv1a31(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s != '\0'; s++)
		h = (h ^ (uint8_t)*s) * 16777619u;
	return h & 0x7fffffffu;
}

/* The cgroup id when the path is in a v2 tree (see the top). */
static uint32_t natural_index(const struct cgroup_source *cs, const char *rel, uint8_t *ver,
			      uint64_t *v2_id)
{
	char path[3 * CG_PATH_MAX];
	struct stat sb;

	*ver = 0;
	*v2_id = 0;
	for (unsigned c = 0; c < CG_NCTRL; c++) {
		snprintf(path, sizeof(path), "%s/%s/%s", cs->root, cs->mounts.v1[c], rel);
		if (cs->mounts.v1[c][0] != '\0' && stat(path, &sb) == 0) {
			*ver |= CGROUP_V1;
			break;
		}
	}
	snprintf(path, sizeof(path), "%s/%s/%s", cs->root, cs->mounts.v2, rel);
	if (cs->mounts.v2[0] != '\0' && stat(path, &sb) == 0) {
		*ver |= CGROUP_V2;
		*v2_id = sb.st_ino;
		if (sb.st_ino > 0 && sb.st_ino < V1_INDEX_BASE)
			return (uint32_t)sb.st_ino;
	}
	return V1_INDEX_BASE | fnv1a31(rel);
}

static bool index_taken(const struct cgroup_source *cs, uint32_t index)
{
	for (size_t i = 0; i < cs->n; i++)
		if (cs->e[i]->index == index)
			return true;
	return false;
}

static int add_entry(struct cgroup_source *cs, const char *rel, uint64_t ino, size_t at)
{
	struct cg_entry *e;
	uint8_t version;
	uint64_t v2_id;
	uint32_t index = natural_index(cs, rel, &version, &v2_id);

	if (cs->n == CGROUP_MAX_ROWS)
		return -1;
	if (cs->n == cs->cap) {
		size_t cap = cs->cap ? cs->cap * 2 : 64;
		struct cg_entry **ne = realloc(cs->e, cap * sizeof(*ne));

		if (ne == NULL)
			return -1;
		cs->e = ne;
		cs->cap = cap;
	}
	while (index >= V1_INDEX_BASE && index_taken(cs, index))
		index = index == UINT32_MAX ? V1_INDEX_BASE : index + 1;
	e = calloc(1, sizeof(*e));
	if (e == NULL)
		return -1;
	if (cgroup_files_open(&e->files, cs->root, &cs->mounts, rel) != 0) {
		if (errno != ENOENT)
			cs->open_failed++;
		free(e);
		return -1;
	}
	snprintf(e->path, sizeof(e->path), "%s", rel);
	workload_name(e->path, e->workload, sizeof(e->workload));
	e->index = index;
	e->born_ms = cgend_now_ms();
	e->v2_id = v2_id;
	e->tree = cs->walk_tree;
	e->ino = ino;
	e->version = version;
	e->seen = true;
	memmove(&cs->e[at + 1], &cs->e[at], (cs->n - at) * sizeof(cs->e[0]));
	cs->e[at] = e;
	cs->n++;
	cs->ix_stale = true;
	return 0;
}

static void drop_entry(struct cgroup_source *cs, size_t i)
{
	cgroup_files_close(&cs->e[i]->files);
	cgroup_row_put(cs->e[i]->row);
	free(cs->e[i]);
	memmove(&cs->e[i], &cs->e[i + 1], (cs->n - i - 1) * sizeof(cs->e[0]));
	cs->n--;
	cs->ix_stale = true;
}

/* A cgroup gone (removed, made again, or no longer found by the walk):
 * its last row goes to the end log, then the entry. */
static void end_entry(struct cgroup_source *cs, size_t i)
{
	struct cg_entry *e = cs->e[i];

	if (e->row != NULL)
		cgend_add(&cs->ends, &cs->end_conf, e->row, e->born_ms, cm_clock_ns());
	drop_entry(cs, i);
}

/* A directory the walk found. An entry is found by path, so a cgroup
 * removed and made again under the same path between two walks would
 * keep the old one's index, sensor id and open files (and, with the
 * helper, serve the old figures for up to FILES_PERIOD_NS): its inode in
 * the tree that first listed it tells them apart (cgroup ids are never
 * reused), and the old entry ends and a new one begins. */
static bool on_dir(const char *rel, uint64_t ino, void *arg)
{
	struct cgroup_source *cs = arg;
	size_t at;

	if (!wanted(cs, rel, false))
		return wanted(cs, rel, true);
	if (find(cs, rel, &at)) {
		struct cg_entry *e = cs->e[at];

		if (e->tree != cs->walk_tree || e->ino == ino) {
			cs->matched += !e->seen;
			e->seen = true;
			return wanted(cs, rel, true);
		}
		cs->matched -= e->seen;
		end_entry(cs, at);
	}
	cs->matched++;
	add_entry(cs, rel, ino, at);
	return wanted(cs, rel, true);
}

/* Walks every tree once (a v1 path is visited in each hierarchy that has
 * it, which is harmless: the entry is found by path). */
static void walk(struct cgroup_source *cs)
{
	char base[2 * CG_PATH_MAX];
	const char *done[CG_NCTRL + 1];
	unsigned ndone = 0;

	if (cgroup_mounts_read(cs->root, &cs->mounts) != 0)
		memset(&cs->mounts, 0, sizeof(cs->mounts));
	for (size_t i = 0; i < cs->n; i++)
		cs->e[i]->seen = false;
	cs->matched = 0;
	for (int c = -1; c < CG_NCTRL; c++) {
		const char *m = c < 0 ? cs->mounts.v2 : cs->mounts.v1[c];
		bool again = false;

		for (unsigned k = 0; k < ndone; k++)
			again |= strcmp(done[k], m) == 0;
		if (m[0] == '\0' || again)
			continue;
		done[ndone++] = m;
		cs->walk_tree = c;
		snprintf(base, sizeof(base), "%s%s", cs->root, m);
		cgroup_walk(base, WALK_DEPTH, WALK_DIRS, on_dir, cs);
	}
	for (size_t i = cs->n; i-- > 0;)
		if (!cs->e[i]->seen)
			end_entry(cs, i);
}

/* ------------------------------------------------ the source */

static void *cgroup_init(const char *root)
{
	struct cgroup_source *cs = calloc(1, sizeof(*cs));

	if (cs == NULL)
		return NULL;
	cs->top = cgroup_top_state_new();
	if (cs->top == NULL) {
		free(cs);
		return NULL;
	}
	/* Rows' generations go on from the clock, so a source made again
	 * never reuses one an image section holds (mib/publish.c). */
	cs->gen = cm_clock_ns();
	snprintf(cs->root, sizeof(cs->root), "%s", root ? root : "");
	if (strcmp(cs->root, "/") == 0)
		cs->root[0] = '\0';
	return cs;
}

static void cgroup_fini(void *ctx)
{
	struct cgroup_source *cs = ctx;

	if (cs == NULL)
		return;
	while (cs->n > 0)
		drop_entry(cs, cs->n - 1);
	cgend_free(&cs->ends);
	free(cs->e);
	free(cs->ix);
	helper_cgmap_detach(cs->cgm);
	cgroup_top_state_free(cs->top);
	free(cs);
}

static void cgroup_configure(void *ctx, const struct sources_conf *c)
{
	struct cgroup_source *cs = ctx;

	cs->conf = c->cgroup;
	cs->end_conf = c->exits;
	cs->walked = false; /* the next sample walks with the new patterns */
	snprintf(cs->helper_socket, sizeof(cs->helper_socket), "%s",
		 c->helper_socket[0] ? c->helper_socket : PROBES_DEFAULT_SOCKET);
	helper_cgmap_detach(cs->cgm);
	cs->cgm = NULL;
	cs->cgm_retry_ns = 0;
	while (cs->n > 0)
		drop_entry(cs, cs->n - 1);
}

static void snapshot_destroy(struct snapshot *s)
{
	struct cgroup_snapshot *cs = (struct cgroup_snapshot *)s;

	for (size_t i = 0; i < cs->nrows; i++)
		cgroup_row_put(cs->rows[i]);
	cgroup_ends_drop(cs->ends);
	free(cs->top);
	free(s);
}

static int by_index(const void *a, const void *b)
{
	uint32_t x = (*(const struct cg_entry *const *)a)->index;
	uint32_t y = (*(const struct cg_entry *const *)b)->index;

	return x < y ? -1 : x > y;
}

/* cs->ix as cs->e sorted by index, again only after the entries changed. */
static int order_by_index(struct cgroup_source *cs)
{
	struct cg_entry **ix;

	if (!cs->ix_stale)
		return 0;
	ix = realloc(cs->ix, (cs->cap ? cs->cap : 1) * sizeof(*ix));
	if (ix == NULL)
		return -1;
	cs->ix = ix;
	if (cs->n > 0)
		memcpy(ix, cs->e, cs->n * sizeof(*ix));
	qsort(ix, cs->n, sizeof(*ix), by_index);
	cs->ix_stale = false;
	return 0;
}

/* The helper's per-cgroup waits: attached when it runs (tried again every
 * 5 s when it does not), dropped when it goes. */
static void follow_helper(struct cgroup_source *cs, uint64_t now)
{
	char why[256];

	if (cs->cgm != NULL && !helper_cgmap_alive(cs->cgm)) {
		helper_cgmap_detach(cs->cgm);
		cs->cgm = NULL;
	}
	if (cs->cgm != NULL || now < cs->cgm_retry_ns || cs->helper_socket[0] == '\0')
		return;
	cs->cgm = helper_cgmap_attach(cs->helper_socket, HELPER_TIMEOUT_MS, why, sizeof(why));
	if (cs->cgm == NULL)
		cs->cgm_retry_ns = now + HELPER_RETRY_NS;
}

/* The entry's waits and CPU time from the helper's map; the percentiles
 * are worked out again only when waits were added. */
static void read_sched(const struct cgroup_source *cs, struct cg_entry *e)
{
	const struct helper_cg *c;
	struct cgroup_sched *w = &e->rq;

	if (cs->cgm == NULL || e->v2_id == 0 || (c = helper_cgmap_find(cs->cgm, e->v2_id)) == NULL) {
		memset(w, 0, sizeof(*w));
		return;
	}
	w->have = true;
	w->cpu_ns = c->cpu_ns;
	if (w->waits == c->waits.count && w->waits != 0)
		return;
	w->waits = c->waits.count;
	w->nbuckets = 0;
	for (unsigned i = 0; i < c->waits.nbuckets && i < CGROUP_RQ_BUCKETS; i++) {
		w->bucket[i] = c->waits.bucket[i];
		if (w->bucket[i] != 0)
			w->nbuckets = i + 1;
	}
	w->p50 = log2hist_percentile(&c->waits, 500);
	w->p90 = log2hist_percentile(&c->waits, 900);
	w->p99 = log2hist_percentile(&c->waits, 990);
}

/* Are the entry's files to be read this sample? Without the helper they
 * hold its CPU time: at every sample. With it, once a period, the first
 * turn at a phase of the entry's own so that the cgroups a walk found
 * together do not fall due together; a cgroup the sensor has no entry for
 * (v1-only, or it never ran) once a second, as its files are all there is
 * of it. */
static bool files_due(const struct cgroup_source *cs, struct cg_entry *e, uint64_t now)
{
	uint64_t period = e->rq.have ? FILES_PERIOD_NS : RESCAN_NS;

	if (cs->cgm == NULL || !e->read || e->files_due > now + period) {
		e->files_due = now + period / 1024 * ((e->index * 2654435761u) >> 22);
		return cs->cgm == NULL || !e->read;
	}
	if (now < e->files_due)
		return false;
	e->files_due += period;
	if (e->files_due <= now) /* the thread was held up: no catching up */
		e->files_due = now + period;
	return true;
}

/* Brings the entry up to date (its files when they are due): -1 when its
 * cgroup went away. Its generation moves when what it serves changed, so
 * the image encodes only those rows (mib/publish.c). */
static int refresh(struct cgroup_source *cs, struct cg_entry *e, uint64_t now)
{
	/* The buckets and percentiles move only with waits (read_sched). */
	bool had = e->rq.have;
	uint64_t cpu_ns = e->rq.cpu_ns, waits = e->rq.waits;
	bool changed = !e->read;

	read_sched(cs, e);
	if (files_due(cs, e, now)) {
		struct cgroup_stats st = e->st;

		if (cgroup_files_read(&e->files, &e->st, cs->buf, sizeof(cs->buf)) != 0)
			return -1;
		changed |= memcmp(&st, &e->st, sizeof(st)) != 0;
		e->read = true;
		e->st_ns = now;
	}
	changed |= had != e->rq.have || cpu_ns != e->rq.cpu_ns || waits != e->rq.waits;
	if (changed)
		e->gen = cs->gen;
	return 0;
}

/* The entry's row for this sample: the one it published last while
 * nothing in it moved (st_ns too: the top table's share from the files is
 * taken over it), else a new one. Out of memory, the last one stands. */
static struct cgroup_row *row_of(struct cg_entry *e)
{
	struct cgroup_row *r = e->row;

	if (r != NULL && r->gen == e->gen && r->st_ns == e->st_ns)
		return r;
	if ((r = malloc(sizeof(*r))) == NULL)
		return e->row;
	atomic_init(&r->refs, 1);
	r->index = e->index;
	r->version = e->version;
	memcpy(r->path, e->path, sizeof(r->path));
	memcpy(r->workload, e->workload, sizeof(r->workload));
	r->st = e->st;
	r->st_ns = e->st_ns;
	r->rq = e->rq;
	r->gen = e->gen;
	cgroup_row_put(e->row);
	e->row = r;
	return r;
}

/* Reads every entry into snap (index order), dropping those whose cgroup
 * went away. */
static void read_all(struct cgroup_source *cs, struct cgroup_snapshot *snap, uint64_t now)
{
	const struct helper_cg *all;
	size_t gone = 0;

	if (cs->cgm != NULL && helper_cgmap_read(cs->cgm, &all) < 0) {
		helper_cgmap_detach(cs->cgm);
		cs->cgm = NULL;
	}
	cs->gen++;
	for (size_t i = 0; i < cs->n; i++) {
		struct cg_entry *e = cs->ix[i];
		struct cgroup_row *r;

		if (refresh(cs, e, now) != 0) {
			e->gone = true;
			gone++;
			continue;
		}
		if ((r = row_of(e)) == NULL)
			continue;
		atomic_fetch_add_explicit(&r->refs, 1, memory_order_relaxed);
		snap->rows[snap->nrows++] = r;
	}
	for (size_t i = cs->n; gone > 0 && i-- > 0;)
		if (cs->e[i]->gone) {
			end_entry(cs, i);
			gone--;
		}
}

static int cgroup_sample(void *ctx)
{
	struct cgroup_source *cs = ctx;
	struct cgroup_snapshot *snap;
	uint64_t now = cm_clock_ns();

	if (!cs->walked || now - cs->last_walk_ns >= RESCAN_NS) {
		cs->open_failed = 0;
		walk(cs);
		cs->walked = true;
		cs->last_walk_ns = now;
	}
	if (order_by_index(cs) != 0)
		return -1;
	/* The rows' pointers, then their first bucket rows: one allocation. */
	snap = calloc(1, sizeof(*snap) + cs->n * (sizeof(snap->rows[0]) + sizeof(size_t)));
	if (snap == NULL)
		return -1;
	snap->hdr.refs = 1;
	snap->hdr.destroy = snapshot_destroy;
	snap->matched = cs->matched;
	snap->rq_first = (size_t *)&snap->rows[cs->n];
	follow_helper(cs, now);
	read_all(cs, snap, now);
	cgend_expire(&cs->ends, &cs->end_conf, now);
	snap->ends = cgend_view(&cs->ends);
	snap->gen = cs->gen;
	for (size_t i = 0; i < snap->nrows; i++) {
		snap->rq_first[i] = snap->nrq;
		snap->nrq += snap->rows[i]->rq.nbuckets;
	}
	/* Out of memory the top table is empty this sample; the rows stand. */
	(void)top_rank_cgroups(cs->top, snap, now);
	snapshot_publish(&cgroup_slot, &snap->hdr);
	/* Rows it could not open (out of descriptors) are missing: say so in
	 * clusterMonSourceErrors rather than serve a short table quietly. */
	return cs->open_failed > 0 ? -1 : 0;
}

const struct source_ops cgroup_source_ops = {
	.index = SOURCE_CGROUP,
	.name = "cgroup",
	.slot = &cgroup_slot,
	.default_interval_ms = 1000,
	.own_thread = true,
	.init = cgroup_init,
	.sample = cgroup_sample,
	.fini = cgroup_fini,
	.configure = cgroup_configure,
};
