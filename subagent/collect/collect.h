/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * collect.h - OS readers for clustermond.
 *
 * Rules for everything under collect/: no net-snmp, no libbpf headers; plain
 * structs in, 0 on success and -1 on failure out (errno set where the OS set it);
 * every reader takes a root path ("" or "/" for the live system, a fixture tree in
 * tests) so unit tests never need the real /proc.
 *
 * Parsers are split from readers: *_parse() works on a NUL-terminated buffer and
 * is what the unit tests drive with truncated, empty and garbage input.
 */
#ifndef CLUSTERMON_COLLECT_H
#define CLUSTERMON_COLLECT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "../core/readings.h"

/*
 * A /proc file kept open between samples and re-read with pread(2) from offset
 * 0: seq_file regenerates the text on every read from 0, and skipping
 * open/close saves most of a sample's cost (see tests/bench).
 */
struct procfile {
	int fd;
	char path[256];
};

int procfile_open(struct procfile *pf, const char *root, const char *relpath);
/* Reads the whole file into buf (NUL-terminated); returns length or -1.
 * Fails with EFBIG when the file does not fit in cap-1 bytes. */
ssize_t procfile_read(struct procfile *pf, char *buf, size_t cap);
void procfile_close(struct procfile *pf);

/* /proc/stat, times in USER_HZ ticks as the kernel prints them. */
struct cpustat_times {
	uint64_t user, nice, system, idle, iowait, irq, softirq, steal;
};

struct cpustat_cpu {
	unsigned cpu; /* kernel CPU number (the N of "cpuN") */
	struct cpustat_times t;
};

struct cpustat {
	struct cpustat_times total; /* the aggregate "cpu" line */
	unsigned ncpu;              /* online CPUs found, in file order */
	struct cpustat_cpu *cpus;   /* caller-provided array ... */
	unsigned cap;               /* ... of this many entries */
	uint64_t ctxt;              /* context switches since boot */
	uint64_t procs_running;
	uint64_t procs_blocked;
};

/* Fails (-1, EINVAL) on a buffer without an aggregate "cpu" line or a ctxt line,
 * on a malformed number, or when more than cap CPUs are listed (E2BIG).
 * Missing trailing columns (older kernels) read as 0. */
int cpustat_parse(const char *buf, struct cpustat *out);

/* /proc/meminfo, values in kB. have_* is 0 when the kernel did not print it. */
struct meminfo {
	uint64_t total_kb, free_kb, available_kb, buffers_kb, cached_kb, dirty_kb;
	uint64_t swap_total_kb, swap_free_kb;
	unsigned have_available : 1;
};

/* Fails (-1, EINVAL) when MemTotal or MemFree is missing or a number is malformed. */
int meminfo_parse(const char *buf, struct meminfo *out);

/* /proc/vmstat, in events (faults) and pages (swap). */
struct vmstat {
	uint64_t pgfault;    /* all faults, minor and major */
	uint64_t pgmajfault;
	uint64_t pswpin, pswpout;
};

/* Fails (-1, EINVAL) when pgfault or pgmajfault is missing or malformed. */
int vmstat_parse(const char *buf, struct vmstat *out);

/* Fails (-1, EINVAL) when neither a "some" nor a "full" line parses. */
int pressure_parse(const char *buf, struct pressure *out);

/*
 * Per-CPU context switches from the kernel's software perf counter
 * (PERF_COUNT_SW_CONTEXT_SWITCHES, one fd per CPU, system-wide): /proc has no
 * per-CPU count unless CONFIG_SCHEDSTATS is on. Counts start at 0 when opened.
 */
struct ctxsw {
	unsigned cap;  /* entries in fds[] */
	int *fds;      /* fds[cpu] or -1 */
};

/* Opens counters for CPUs 0..ncpu-1; CPUs that refuse (offline, no permission)
 * keep fd -1. Returns the number opened, or -1 if none could be. */
int ctxsw_open(struct ctxsw *c, unsigned ncpu);
/* 0 and *count on success, -1 if the CPU has no counter. */
int ctxsw_read(const struct ctxsw *c, unsigned cpu, uint64_t *count);
void ctxsw_close(struct ctxsw *c);

#endif
