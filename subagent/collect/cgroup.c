/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * cgroup.c - what both cgroup versions share: finding the hierarchies,
 * keeping a cgroup's files open and reading them through the version
 * readers (cgroup1.c, cgroup2.c), the directory walk, and /proc/PID/cgroup.
 * The small parsers the version readers use are in cgvalue.c.
 */
#include "cgroup.h"
#include "parse.h"
#include "common/number.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const ctrl_names[CG_NCTRL] = {
	[CG_CPU] = "cpu", [CG_CPUACCT] = "cpuacct", [CG_MEMORY] = "memory",
	[CG_BLKIO] = "blkio", [CG_PIDS] = "pids",
};

/* A mounts field with \040-style escapes undone; false if it does not fit
 * or an escape is malformed. */
static bool unescape_field(const char *s, size_t len, char *out, size_t cap)
{
	size_t o = 0;

	for (size_t i = 0; i < len; i++) {
		char c = s[i];

		if (c == '\\') {
			if (i + 3 >= len || s[i + 1] < '0' || s[i + 1] > '3' ||
			    s[i + 2] < '0' || s[i + 2] > '7' || s[i + 3] < '0' || s[i + 3] > '7')
				return false;
			c = (char)((s[i + 1] - '0') * 64 + (s[i + 2] - '0') * 8 + (s[i + 3] - '0'));
			i += 3;
		}
		if (c == '\0' || o + 1 >= cap)
			return false;
		out[o++] = c;
	}
	out[o] = '\0';
	return true;
}

/* Splits one line into up to n blank-separated fields (start, length). */
static unsigned split_fields(const char *p, const char *end, const char **f, size_t *len,
			     unsigned n)
{
	unsigned k = 0;

	while (p < end && k < n) {
		while (p < end && *p == ' ')
			p++;
		if (p == end)
			break;
		f[k] = p;
		while (p < end && *p != ' ')
			p++;
		len[k] = (size_t)(p - f[k]);
		k++;
	}
	return k;
}

/* Is word one of the comma-separated options? */
static bool has_option(const char *opts, size_t len, const char *word)
{
	size_t wl = strlen(word);
	const char *p = opts, *end = opts + len;

	while (p < end) {
		const char *c = memchr(p, ',', (size_t)(end - p));
		size_t l = c ? (size_t)(c - p) : (size_t)(end - p);

		if (l == wl && memcmp(p, word, wl) == 0)
			return true;
		p += l + 1;
	}
	return false;
}

static void mount_line(const char *p, const char *end, struct cgroup_mounts *out)
{
	const char *f[4];
	size_t len[4];
	char point[CG_PATH_MAX];

	if (split_fields(p, end, f, len, 4) < 4 ||
	    !unescape_field(f[1], len[1], point, sizeof(point)) || point[0] != '/')
		return;
	if (len[2] == 7 && memcmp(f[2], "cgroup2", 7) == 0) {
		if (out->v2[0] == '\0')
			strcpy(out->v2, point);
		return;
	}
	if (len[2] != 6 || memcmp(f[2], "cgroup", 6) != 0)
		return;
	for (unsigned c = 0; c < CG_NCTRL; c++)
		if (out->v1[c][0] == '\0' && has_option(f[3], len[3], ctrl_names[c]))
			strcpy(out->v1[c], point);
}

int cgroup_mounts_parse(const char *buf, struct cgroup_mounts *out)
{
	const char *p, *nl;

	memset(out, 0, sizeof(*out));
	for (p = buf; *p != '\0'; p = nl + 1) {
		nl = strchr(p, '\n');
		if (nl == NULL) {
			memset(out, 0, sizeof(*out));
			errno = EINVAL;
			return -1;
		}
		mount_line(p, nl, out);
	}
	return 0;
}

int cgroup_mounts_read(const char *root, struct cgroup_mounts *out)
{
	static char buf[64 * 1024]; /* called once per rescan from one thread */
	struct procfile pf;
	ssize_t n;
	int rc;

	if (procfile_open(&pf, root, "proc/self/mounts") != 0)
		return -1;
	n = procfile_read(&pf, buf, sizeof(buf));
	procfile_close(&pf);
	rc = n < 0 ? -1 : cgroup_mounts_parse(buf, out);
	return rc;
}

/* ------------------------------------------------ one cgroup's files */

static const char *const v2_names[CGF_N] = {
	[CGF_PROCS] = "cgroup.procs", [CGF_CPU_STAT] = "cpu.stat",
	[CGF_MEM_CURRENT] = "memory.current", [CGF_MEM_PEAK] = "memory.peak",
	[CGF_MEM_LIMIT] = "memory.max", [CGF_MEM_EVENTS] = "memory.events",
	[CGF_MEM_STAT] = "memory.stat", [CGF_IO_BYTES] = "io.stat",
	[CGF_PIDS] = "pids.current", [CGF_PIDS_LIMIT] = "pids.max",
	[CGF_PSI_CPU] = "cpu.pressure", [CGF_PSI_MEM] = "memory.pressure",
	[CGF_PSI_IO] = "io.pressure",
};

static const struct { enum cg_ctrl ctrl; const char *name; } v1_files[CGF_N] = {
	[CGF_CPU_STAT] = { CG_CPU, "cpu.stat" },
	[CGF_CPUACCT] = { CG_CPUACCT, "cpuacct.usage" },
	[CGF_CPUACCT_USER] = { CG_CPUACCT, "cpuacct.usage_user" },
	[CGF_CPUACCT_SYS] = { CG_CPUACCT, "cpuacct.usage_sys" },
	[CGF_MEM_CURRENT] = { CG_MEMORY, "memory.usage_in_bytes" },
	[CGF_MEM_PEAK] = { CG_MEMORY, "memory.max_usage_in_bytes" },
	[CGF_MEM_LIMIT] = { CG_MEMORY, "memory.limit_in_bytes" },
	[CGF_MEM_EVENTS] = { CG_MEMORY, "memory.oom_control" },
	[CGF_MEM_STAT] = { CG_MEMORY, "memory.stat" },
	[CGF_IO_BYTES] = { CG_BLKIO, "blkio.throttle.io_service_bytes_recursive" },
	[CGF_IO_OPS] = { CG_BLKIO, "blkio.throttle.io_serviced_recursive" },
	[CGF_PIDS] = { CG_PIDS, "pids.current" },
	[CGF_PIDS_LIMIT] = { CG_PIDS, "pids.max" },
};

/* The v1 hierarchy whose cgroup.procs counts the processes: the first of
 * these that has the directory. */
static const enum cg_ctrl procs_order[] = { CG_CPU, CG_CPUACCT, CG_MEMORY, CG_PIDS, CG_BLKIO };

static int open_in(struct procfile *pf, const char *root, const char *mount,
		   const char *rel, const char *name)
{
	char path[3 * CG_PATH_MAX];
	int n = snprintf(path, sizeof(path), "%s/%s/%s", mount, rel, name);

	pf->fd = -1;
	if (mount[0] == '\0' || n < 0 || (size_t)n >= sizeof(path))
		return -1;
	return procfile_open(pf, root, path);
}

static void open_v1(struct cgroup_files *cf, const char *root,
		    const struct cgroup_mounts *m, const char *rel)
{
	for (unsigned f = 0; f < CGF_N; f++)
		if (v1_files[f].name != NULL)
			open_in(&cf->v1[f], root, m->v1[v1_files[f].ctrl], rel, v1_files[f].name);
	for (size_t i = 0; i < sizeof(procs_order) / sizeof(procs_order[0]); i++)
		if (open_in(&cf->v1[CGF_PROCS], root, m->v1[procs_order[i]], rel,
			    "cgroup.procs") == 0)
			break;
}

int cgroup_files_open(struct cgroup_files *cf, const char *root,
		      const struct cgroup_mounts *m, const char *rel)
{
	for (unsigned f = 0; f < CGF_N; f++)
		cf->v1[f].fd = cf->v2[f].fd = -1;
	if (strstr(rel, "..") != NULL) {
		errno = EINVAL;
		return -1;
	}
	for (unsigned f = 0; f < CGF_N; f++)
		if (v2_names[f] != NULL)
			open_in(&cf->v2[f], root, m->v2, rel, v2_names[f]);
	open_v1(cf, root, m, rel);
	if (cf->v2[CGF_PROCS].fd < 0 && cf->v1[CGF_PROCS].fd < 0) {
		int err = errno;

		cgroup_files_close(cf);
		/* Out of descriptors is not "no such cgroup": the caller counts it. */
		errno = err == EMFILE || err == ENFILE ? err : ENOENT;
		return -1;
	}
	return 0;
}

void cgroup_files_close(struct cgroup_files *cf)
{
	for (unsigned f = 0; f < CGF_N; f++) {
		procfile_close(&cf->v1[f]);
		procfile_close(&cf->v2[f]);
	}
}

/* The process count, from whichever tree has the cgroup; false when the
 * directory is gone (a removed cgroup's open files read ENODEV). */
static bool read_procs(struct procfile *pf, struct cgroup_stats *st, char *buf, size_t cap)
{
	if (pf->fd < 0)
		return true;
	if (cg_text(pf, buf, cap) == NULL)
		return errno != ENODEV && errno != ENOENT;
	if (cg_procs_parse(buf, &st->nprocs) == 0)
		st->have |= CGS_PROCS;
	return true;
}

/* Copies from v2 each group of values v1 did not have. */
static void cg_merge(struct cgroup_stats *st, const struct cgroup_stats *v2)
{
	static const struct { uint32_t bit; size_t off, len; } groups[] = {
#define G(bit, first, last) { bit, offsetof(struct cgroup_stats, first), \
	offsetof(struct cgroup_stats, last) + sizeof(((struct cgroup_stats *)0)->last) - \
	offsetof(struct cgroup_stats, first) }
		G(CGS_CPU, cpu_ns, cpu_ns), G(CGS_CPU_SPLIT, user_ns, system_ns),
		G(CGS_THROTTLE, nr_periods, throttled_ns), G(CGS_MEM, mem_current, mem_current),
		G(CGS_MEM_PEAK, mem_peak, mem_peak), G(CGS_MEM_LIMIT, mem_limit, mem_limit),
		G(CGS_OOM, oom, oom), G(CGS_OOM_KILL, oom_kill, oom_kill),
		G(CGS_MEMSTAT, anon, file), G(CGS_IO, rbytes, wios),
		G(CGS_PIDS, pids_current, pids_current), G(CGS_PIDS_LIMIT, pids_limit, pids_limit),
		G(CGS_PSI_CPU, psi_cpu, psi_cpu), G(CGS_PSI_MEM, psi_mem, psi_mem),
		G(CGS_PSI_IO, psi_io, psi_io), G(CGS_PROCS, nprocs, nprocs),
#undef G
	};

	for (size_t i = 0; i < sizeof(groups) / sizeof(groups[0]); i++)
		if ((v2->have & groups[i].bit) && !(st->have & groups[i].bit)) {
			memcpy((char *)st + groups[i].off, (const char *)v2 + groups[i].off,
			       groups[i].len);
			st->have |= groups[i].bit;
		}
}

/* On a hybrid system the v2 tree repeats some of what the v1 controllers
 * serve (its cpu.stat, the dearest file of all: an rstat flush): once v1
 * gave every value a v2 file holds, that file is closed, so it costs
 * neither a read at each pass nor a descriptor. */
static void close_covered(struct procfile *v2, uint32_t v1_have)
{
	static const struct { enum cg_file f; uint32_t bits; } v2_gives[] = {
		{ CGF_CPU_STAT, CGS_CPU | CGS_CPU_SPLIT | CGS_THROTTLE },
		{ CGF_MEM_EVENTS, CGS_OOM | CGS_OOM_KILL }, { CGF_MEM_STAT, CGS_MEMSTAT },
		{ CGF_IO_BYTES, CGS_IO }, { CGF_MEM_CURRENT, CGS_MEM },
		{ CGF_MEM_PEAK, CGS_MEM_PEAK }, { CGF_MEM_LIMIT, CGS_MEM_LIMIT },
		{ CGF_PIDS, CGS_PIDS }, { CGF_PIDS_LIMIT, CGS_PIDS_LIMIT },
	};

	for (size_t i = 0; i < sizeof(v2_gives) / sizeof(v2_gives[0]); i++)
		if (v2[v2_gives[i].f].fd >= 0 && (v1_have & v2_gives[i].bits) == v2_gives[i].bits)
			procfile_close(&v2[v2_gives[i].f]);
}

int cgroup_files_read(struct cgroup_files *cf, struct cgroup_stats *st,
		      char *buf, size_t cap)
{
	struct cgroup_stats v2 = { 0 };

	memset(st, 0, sizeof(*st));
	if (!read_procs(&cf->v2[CGF_PROCS], &v2, buf, cap) ||
	    !read_procs(&cf->v1[CGF_PROCS], st, buf, cap)) {
		errno = ENOENT;
		return -1;
	}
	cg1_read(cf->v1, st, buf, cap);
	close_covered(cf->v2, st->have);
	cg2_read(cf->v2, &v2, buf, cap);
	cg_merge(st, &v2);
	return 0;
}

/* ------------------------------------------------ discovery */

struct walk {
	char path[CG_PATH_MAX * 2];
	size_t base_len;
	unsigned max_depth, max_dirs, seen;
	cg_walk_fn fn;
	void *arg;
};

static void walk_dir(struct walk *w, unsigned depth)
{
	size_t len = strlen(w->path);
	DIR *d;
	struct dirent *e;

	if (depth > w->max_depth || (d = opendir(w->path)) == NULL)
		return;
	while (w->seen < w->max_dirs && (e = readdir(d)) != NULL) {
		int n;

		if (e->d_type != DT_DIR || e->d_name[0] == '.')
			continue;
		n = snprintf(w->path + len, sizeof(w->path) - len, "/%s", e->d_name);
		if (n < 0 || (size_t)n >= sizeof(w->path) - len ||
		    strlen(w->path + w->base_len + 1) >= CG_PATH_MAX)
			continue;
		w->seen++;
		if (w->fn(w->path + w->base_len + 1, (uint64_t)e->d_ino, w->arg))
			walk_dir(w, depth + 1);
		w->path[len] = '\0';
	}
	w->path[len] = '\0';
	closedir(d);
}

int cgroup_walk(const char *base, unsigned max_depth, unsigned max_dirs,
		cg_walk_fn fn, void *arg)
{
	struct walk w = { .max_depth = max_depth, .max_dirs = max_dirs, .fn = fn, .arg = arg };
	size_t n = strlen(base);

	while (n > 1 && base[n - 1] == '/')
		n--;
	if (n >= sizeof(w.path) / 2) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(w.path, base, n);
	w.path[n] = '\0';
	w.base_len = n;
	walk_dir(&w, 1);
	return (int)w.seen;
}

/* ------------------------------------------------ /proc/PID/cgroup */

/* On a hybrid system the controllers, and so the jobs (Slurm's v1
 * plugins), live in v1: the cpu controller's path outranks v2's. */
enum { PICK_NONE, PICK_OTHER, PICK_V2, PICK_CPU };

/* How good a "ID:CONTROLLERS:/PATH" line is as the answer. */
static int line_rank(const char *ctrls, size_t clen, size_t plen)
{
	if (plen <= 1)
		return PICK_NONE;
	if (clen == 0)
		return PICK_V2;
	if (has_option(ctrls, clen, "cpu") || has_option(ctrls, clen, "cpuacct"))
		return PICK_CPU;
	for (unsigned c = 0; c < CG_NCTRL; c++)
		if (has_option(ctrls, clen, ctrl_names[c]))
			return PICK_OTHER;
	return PICK_NONE;
}

int cgroup_of_pid_parse(const char *buf, char *out, size_t cap)
{
	const char *p, *nl, *best = NULL;
	size_t best_len = 0;
	int best_rank = PICK_NONE;

	for (p = buf; *p != '\0'; p = nl + 1) {
		const char *c1, *c2;
		int rank;

		nl = strchr(p, '\n');
		c1 = nl ? memchr(p, ':', (size_t)(nl - p)) : NULL;
		c2 = c1 ? memchr(c1 + 1, ':', (size_t)(nl - c1 - 1)) : NULL;
		if (c2 == NULL || c2[1] != '/')
			goto bad;
		rank = line_rank(c1 + 1, (size_t)(c2 - c1 - 1), (size_t)(nl - c2 - 1));
		if (rank > best_rank) {
			best_rank = rank;
			best = c2 + 2;
			best_len = (size_t)(nl - c2 - 2);
		}
	}
	if (best == NULL) {
		best = "/";
		best_len = 1;
	}
	if (best_len >= cap) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(out, best, best_len);
	out[best_len] = '\0';
	return 0;
bad:
	errno = EINVAL;
	return -1;
}

int cgroup_of_pid(const char *root, int pid, char *out, size_t cap)
{
	char rel[64], buf[4096];
	struct procfile pf;
	ssize_t n;

	snprintf(rel, sizeof(rel), "proc/%d/cgroup", pid);
	if (procfile_open(&pf, root, rel) != 0)
		return -1;
	n = procfile_read(&pf, buf, sizeof(buf));
	procfile_close(&pf);
	return n < 0 ? -1 : cgroup_of_pid_parse(buf, out, cap);
}

/* ------------------------------------------------ per-process cache */

/*
 * The process table asks for every process each sample: reading
 * /proc/PID/cgroup (open, read, close) every time would cost more than the
 * rest of the row. A direct-mapped cache keyed by pid and start time keeps
 * each answer for max_age_ns, so a process moved to another cgroup shows
 * there within that time; a collision only costs a read. Slots are
 * touched only where pids fall, so a small node pays little of the 4 MB.
 */
#define CG_PID_SLOTS 16384

struct cg_pid_slot {
	int pid;
	uint64_t start, read_ns;
	char path[CG_PID_PATH_MAX];
};

struct cg_pid_cache {
	uint64_t max_age_ns;
	struct cg_pid_slot slot[CG_PID_SLOTS];
};

struct cg_pid_cache *cg_pid_cache_new(uint64_t max_age_ns)
{
	struct cg_pid_cache *c = calloc(1, sizeof(*c));

	if (c != NULL)
		c->max_age_ns = max_age_ns;
	return c;
}

void cg_pid_cache_free(struct cg_pid_cache *c)
{
	free(c);
}

const char *cg_pid_cache_get(struct cg_pid_cache *c, const char *root, int pid,
			     uint64_t start, uint64_t now_ns)
{
	struct cg_pid_slot *s;

	if (c == NULL || pid <= 0)
		return "";
	s = &c->slot[(unsigned)pid % CG_PID_SLOTS];
	if (s->pid == pid && s->start == start && now_ns - s->read_ns < c->max_age_ns)
		return s->path;
	s->pid = pid;
	s->start = start;
	s->read_ns = now_ns;
	if (cgroup_of_pid(root, pid, s->path, sizeof(s->path)) != 0)
		s->path[0] = '\0';
	return s->path;
}
