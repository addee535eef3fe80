/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * proc.h - the per-process reader behind clusterMonProcTable (WallMon).
 *
 * Built to make 10-100 Hz sampling of every process affordable: each
 * process's /proc/PID files are opened once and re-read with pread; /proc is
 * rescanned only to find new and gone PIDs; parsing is by hand (comm may hold
 * spaces and parentheses); PID reuse is caught by the start time. No net-snmp
 * headers, no threads here: the caller owns scheduling.
 */
#ifndef CLUSTERMON_PROC_H
#define CLUSTERMON_PROC_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define PROC_COMM_MAX 64
#define PROC_CMDLINE_MAX 256

/* CPU time and run delay of a process as clustermon-kprobe counts them
 * (summed over threads, since its fork or the helper's start) and what the
 * process had used before, read once from /proc/PID/task/ * /schedstat when it
 * joined. Kept by the proc source; the scanner never reads or writes it. */
struct proc_acct {
	bool joined;
	bool exited;               /* its leader exited: a zombie until reaped */
	uint64_t cpu_ns, run_delay_ns;
	uint64_t cpu_base, run_delay_base;
};

/* One process as read in one sample; times in the kernel's units. */
struct proc_sample {
	pid_t pid;
	char comm[PROC_COMM_MAX];  /* from /proc/PID/stat, between the outer parens */
	char state;                /* R S D Z T t X I ... */
	uint64_t utime_ticks, stime_ticks;   /* USER_HZ */
	uint64_t start_ticks;      /* since boot, USER_HZ: identifies the process */
	uint64_t minflt, majflt;
	uint32_t threads;
	uint64_t rss_pages;
	bool have_schedstat;       /* /proc/PID/schedstat (CONFIG_SCHED_INFO), single-threaded only */
	uint64_t cpu_ns, run_delay_ns;
	bool have_status;          /* /proc/PID/status */
	uint32_t uid;              /* real uid */
	uint64_t vol_ctxsw, invol_ctxsw;
	char cmdline[PROC_CMDLINE_MAX]; /* NULs turned into spaces; "" for kernel threads */
	struct proc_acct acct;     /* helper-fed mode only (sources/proc.c) */
};

/* Sums /proc/PID/task/ * /schedstat over the threads: 0, or -1 when none
 * could be read. */
int proc_threads_schedstat(const char *root, pid_t pid, uint64_t *cpu_ns, uint64_t *run_delay_ns);

/* /proc/PID/stat: fails (-1, EINVAL) on a truncated or malformed line. */
int procstat_parse(const char *buf, struct proc_sample *out);
/* /proc/PID/schedstat: "runtime_ns run_delay_ns timeslices". */
int schedstat_parse(const char *buf, uint64_t *cpu_ns, uint64_t *run_delay_ns);
/* /proc/PID/status: Uid (real), voluntary/nonvoluntary_ctxt_switches. */
int procstatus_parse(const char *buf, struct proc_sample *out);

/* The numeric entries of ROOT/proc into *pids (grown with realloc, *cap
 * updated), ascending; the count, or -1 when ROOT/proc cannot be listed. */
ssize_t proc_list_pids(const char *root, pid_t **pids, size_t *cap);

/* The set of processes being followed, with their kept-open files. */
struct proc_scanner;

/* root as in collect.h ("" = live system). NULL on allocation failure. */
struct proc_scanner *proc_scanner_new(const char *root);
void proc_scanner_free(struct proc_scanner *ps);

/*
 * Takes one sample of every process into out[] (grown with realloc as
 * needed; *cap updated), sorted by pid; returns the count or -1. A rescan of
 * the /proc directory happens when rescan is true (the caller decides the
 * rate); between rescans only known PIDs are read, and those that vanished
 * are dropped. /proc/PID/status (uid, context switches) is the costliest file
 * by far: it is read when a process is first seen and on rescan samples only,
 * its values kept in between. A PID whose start time changed is a new process: its files are
 * reopened. Processes that vanish mid-read are skipped, never half-filled.
 */
int proc_scanner_sample(struct proc_scanner *ps, bool rescan, struct proc_sample **out,
			size_t *cap);
/* Processes followed now (after the last sample). */
size_t proc_scanner_count(const struct proc_scanner *ps);

#endif
