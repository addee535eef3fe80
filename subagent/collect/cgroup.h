/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * cgroup.h - control groups, v1 and v2, read through their own files.
 *
 * Where the hierarchies are comes from ROOT/proc/self/mounts (Debian 12
 * mounts v2 at /sys/fs/cgroup; hybrid systems keep v1 controllers under
 * /sys/fs/cgroup/NAME and v2 at /sys/fs/cgroup/unified). A cgroup is named
 * by its path relative to a hierarchy's root ("system.slice/ssh.service");
 * on a hybrid system one path gathers what each hierarchy knows about it.
 *
 * Every parser takes a NUL-terminated buffer another process (the kernel,
 * or a fixture) wrote and refuses with -1/EINVAL what it does not trust.
 */
#ifndef CLUSTERMON_CGROUP_H
#define CLUSTERMON_CGROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "collect.h"
#include "../core/readings.h"
#include "cgvalue.h"

/* The v1 controllers we read; "cpu,cpuacct" may share one mount. */
enum cg_ctrl { CG_CPU, CG_CPUACCT, CG_MEMORY, CG_BLKIO, CG_PIDS, CG_NCTRL };

struct cgroup_mounts {
	char v2[CG_PATH_MAX];             /* "" when no cgroup2 is mounted */
	char v1[CG_NCTRL][CG_PATH_MAX];   /* "" when that controller is not */
};

/* /proc/self/mounts text -> mount points (octal escapes undone). Never
 * fails on lines it does not understand; EINVAL on a cut-off buffer. */
int cgroup_mounts_parse(const char *buf, struct cgroup_mounts *out);
/* Reads ROOT/proc/self/mounts; mount points stay as the kernel names them
 * (the caller prefixes ROOT when it opens them). */
int cgroup_mounts_read(const char *root, struct cgroup_mounts *out);

/* ---- v2 parsers (cgroup2.c) */

/* cpu.stat: usage_usec is required; throttling only with the cpu controller. */
int cg2_cpu_stat_parse(const char *buf, struct cgroup_stats *st);
/* memory.events: oom and oom_kill. */
int cg2_memory_events_parse(const char *buf, struct cgroup_stats *st);
/* memory.stat: anon and file. */
int cg2_memory_stat_parse(const char *buf, struct cgroup_stats *st);
/* io.stat: "MAJ:MIN rbytes=N wbytes=N rios=N wios=N ..." summed over devices. */
int cg2_io_stat_parse(const char *buf, struct cgroup_stats *st);

/* ---- v1 parsers (cgroup1.c) */

/* cpu.stat: nr_periods, nr_throttled, throttled_time (ns). */
int cg1_cpu_stat_parse(const char *buf, struct cgroup_stats *st);
/* memory.oom_control: oom_kill (Linux 4.13 and later). */
int cg1_oom_control_parse(const char *buf, struct cgroup_stats *st);
/* memory.stat: total_rss and total_cache (hierarchical, as usage_in_bytes). */
int cg1_memory_stat_parse(const char *buf, struct cgroup_stats *st);
/* blkio.throttle.io_service_bytes / io_serviced: "MAJ:MIN Read N" lines
 * summed over devices into *read and *write. */
int cg1_blkio_parse(const char *buf, uint64_t *read, uint64_t *write);
/* v1's "no limit" is LONG_MAX rounded down to a page: anything that large. */
uint64_t cg1_limit(uint64_t v);

/* ---- readers: one cgroup's files kept open and re-read with pread */

enum cg_file {
	CGF_PROCS, CGF_CPU_STAT, CGF_CPUACCT, CGF_CPUACCT_USER, CGF_CPUACCT_SYS,
	CGF_MEM_CURRENT, CGF_MEM_PEAK, CGF_MEM_LIMIT, CGF_MEM_EVENTS, CGF_MEM_STAT,
	CGF_IO_BYTES, CGF_IO_OPS, CGF_PIDS, CGF_PIDS_LIMIT,
	CGF_PSI_CPU, CGF_PSI_MEM, CGF_PSI_IO, CGF_N
};

struct cgroup_files {
	struct procfile v2[CGF_N];   /* fd -1: not in this version's tree */
	struct procfile v1[CGF_N];
};

/* Opens what exists of REL (a cgroup path) under each mount, ROOT
 * prefixed. -1/ENOENT when no hierarchy has that directory, EMFILE or
 * ENFILE when the process is out of descriptors. */
int cgroup_files_open(struct cgroup_files *cf, const char *root,
		      const struct cgroup_mounts *m, const char *rel);
void cgroup_files_close(struct cgroup_files *cf);
/* One reading; buf is scratch. Where both trees have a value, v1's is
 * served: on a hybrid system the controllers are bound to v1 and the v2
 * tree adds what v1 lacks (PSI). -1/ENOENT when the cgroup was removed
 * since it was opened. */
int cgroup_files_read(struct cgroup_files *cf, struct cgroup_stats *st,
		      char *buf, size_t cap);

/* Version-specific halves of cgroup_files_read (cgroup2.c, cgroup1.c). */
void cg2_read(struct procfile *f, struct cgroup_stats *st, char *buf, size_t cap);
void cg1_read(struct procfile *f, struct cgroup_stats *st, char *buf, size_t cap);

/* ---- discovery */

/*
 * Calls fn for each directory under BASE (ROOT prefixed by the caller),
 * depth first, with its path relative to BASE and its inode as readdir
 * gives it (in the v2 tree the cgroup id: a cgroup made again under the
 * same path has another), at most max_depth levels down and at most
 * max_dirs in all; fn says whether to go below it.
 * Returns the number visited or -1.
 */
typedef bool (*cg_walk_fn)(const char *rel, uint64_t ino, void *arg);
int cgroup_walk(const char *base, unsigned max_depth, unsigned max_dirs,
		cg_walk_fn fn, void *arg);

/* The cgroup of a process from /proc/PID/cgroup: the v1 cpu (or cpuacct)
 * controller's path when it is not "/", else v2's ("0::"), else another
 * v1 controller's; without the leading slash, "/" for the root. */
int cgroup_of_pid_parse(const char *buf, char *out, size_t cap);
int cgroup_of_pid(const char *root, int pid, char *out, size_t cap);

/* cgroup_of_pid for a process table: each (pid, start time) read again
 * only when its answer is older than max_age_ns; "" when unknown. */
struct cg_pid_cache;
struct cg_pid_cache *cg_pid_cache_new(uint64_t max_age_ns);
void cg_pid_cache_free(struct cg_pid_cache *c);
const char *cg_pid_cache_get(struct cg_pid_cache *c, const char *root, int pid,
			     uint64_t start, uint64_t now_ns);

#endif
