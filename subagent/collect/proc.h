/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * proc.h - the per-process reader behind clusterMonProcTable (WallMon).
 *
 * Built to make 10-100 Hz sampling of every process affordable: a bounded
 * set of /proc/PID files is kept open and re-read with pread; /proc is
 * rescanned only to find new and gone PIDs; parsing is by hand (comm may hold
 * spaces and parentheses); PID reuse is caught by the start time. No net-snmp
 * headers, no threads here: the caller owns scheduling. The parsers are in
 * procparse.c, the reader and its kept-open files in procread.c, the
 * scanner in procscan.c.
 */
#ifndef CLUSTERMON_PROC_H
#define CLUSTERMON_PROC_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* clustermond's own process is read with the others (clusterMonAgent). */
#include "selfcost.h"

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
	bool skipped;              /* scanner: idle, alive, not read this sample:
				    * nothing else is filled */
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
	uint32_t tgid;             /* its process (a thread's /proc/TID reads too) */
	uint64_t vol_ctxsw, invol_ctxsw;
	char cmdline[PROC_CMDLINE_MAX]; /* NULs turned into spaces; "" for kernel threads */
	struct proc_acct acct;     /* helper-fed mode only (sources/procfed.c) */
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

/* The initial PID namespace's inode number (the kernel's PROC_PID_INIT_INO). */
#define PIDNS_INIT_INO 0xEFFFFFFCu
/* /proc/PID/ns/pid's link text, "pid:[INODE]": 0 with *ino, or -1 (EINVAL). */
int pidns_link_parse(const char *link, uint64_t *ino);
/* True when ROOT/proc/self is in a PID namespace below the initial one, where
 * the pids clustermon-kprobe reports (the kernel's) are not the ones /proc
 * shows. False when it cannot tell. */
bool proc_self_in_child_pidns(const char *root);

/* The numeric entries of ROOT/proc into *pids (grown with realloc, *cap
 * updated), ascending; the count, or -1 when ROOT/proc cannot be listed. */
ssize_t proc_list_pids(const char *root, pid_t **pids, size_t *cap);

/*
 * Reads single processes, keeping stat and schedstat open for at most
 * max_hot of them (the ones that ran most recently, evicting the least
 * recent); the others are opened for one read and closed. root as in
 * collect.h. NULL on allocation failure.
 */
struct proc_reader;
struct proc_reader *proc_reader_new(const char *root, size_t max_hot);
void proc_reader_free(struct proc_reader *r);

enum { PROC_READ_STAT = 1, PROC_READ_STATUS = 2, PROC_READ_CMDLINE = 4 };

/*
 * What names into o: STAT fills the /proc/PID/stat fields and, for a
 * single-threaded process, schedstat (have_schedstat); STATUS uid and
 * context switches (have_status false when the file did not parse); CMDLINE
 * the command line. hot: the process ran, keep its files open. 0, or -1
 * with errno ESRCH when the process is gone, EINVAL when its stat did not
 * parse, or the OS's (EMFILE...).
 */
int proc_read(struct proc_reader *r, pid_t pid, unsigned what, bool hot, struct proc_sample *o);
/* Closes whatever pid keeps open (it exited). */
void proc_reader_forget(struct proc_reader *r, pid_t pid);
/* Descriptors the reader holds now. */
size_t proc_reader_open_fds(const struct proc_reader *r);

/* The set of processes being followed without the helper. */
struct proc_scanner;

/* root as in collect.h ("" = live system); max_hot as for proc_reader_new.
 * NULL on allocation failure. */
struct proc_scanner *proc_scanner_new(const char *root, size_t max_hot);
void proc_scanner_free(struct proc_scanner *ps);
/* The scanner's reader, for single reads between samples. */
struct proc_reader *proc_scanner_reader(struct proc_scanner *ps);

/* What a scanner sample does besides reading every known process's stat:
 * list /proc for new and gone PIDs, and read each one's status (uid and
 * context switches: the costliest file by far; kept between such samples). */
enum { PROC_SCAN_LIST = 1, PROC_SCAN_STATUS = 2, PROC_SCAN_FULL = 3 };

/*
 * Takes one sample of every process into out[] (grown with realloc as
 * needed; *cap updated), sorted by pid; returns the count or -1. Between
 * listings only known PIDs are read, and those that vanished are dropped.
 * A process seen first has its status read at once. A single-threaded
 * process's schedstat is read again only when its stat ticks moved (under
 * 20 ms of CPU otherwise: utime + stime is its runtime in ticks), the last
 * read kept otherwise. A PID whose start time changed is a new process. Processes that vanish mid-read are skipped,
 * never half-filled.
 */
int proc_scanner_sample(struct proc_scanner *ps, unsigned how, struct proc_sample **out,
			size_t *cap);
/* A process whose CPU time did not move in its last SCAN_IDLE_READS reads
 * is read only every SCAN_IDLE_EVERY samples (staggered by pid); in the
 * others kill(pid, 0) checks it still lives and it is returned skipped:
 * at 10,000 mostly idle processes reading every stat each second was what
 * the scanner cost (perf: open, read and close of /proc/PID/stat). */
#define SCAN_IDLE_READS 3
#define SCAN_IDLE_EVERY 5

/* The next sample without PROC_SCAN_STATUS also reads the status of n
 * processes, round-robin by pid from where the last such read stopped: the
 * status cost spread over samples instead of one costly sample a second. */
void proc_scanner_status_quota(struct proc_scanner *ps, size_t n);
/* Processes followed now (after the last sample). */
size_t proc_scanner_count(const struct proc_scanner *ps);
/* fn(ctx) is called before a sample reads its first process and after
 * every PROC_SCAN_TICK more, so a long sample (10,000 processes) lets its
 * caller look for new processes meanwhile (issue 35). */
#define PROC_SCAN_TICK 256
void proc_scanner_on_tick(struct proc_scanner *ps, void (*fn)(void *ctx), void *ctx);
/* A process found without a listing (a new pid): followed from the next
 * sample on, so samples need not list /proc to find new processes. */
void proc_scanner_add(struct proc_scanner *ps, pid_t pid);

/* /proc/loadavg's last field, the last pid the kernel handed out (to a
 * process or a thread): 0 with *pid, or -1 (EINVAL). */
int loadavg_last_pid_parse(const char *buf, uint32_t *pid);

#endif
