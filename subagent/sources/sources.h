/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * sources.h - the sources layer as the rest of clustermond sees it: the
 * snapshots each source publishes and the configuration a (re)load hands
 * to all of them at once (sampler_configure). The commands the SNMP thread
 * may queue for one (sampler_post) are source_cmd.h's, and the probes,
 * traces and distributions sources' own types their headers' (probes.h,
 * traces.h, dists.h): this header includes none of them. Nothing else goes
 * in: no source has a setter of its own, and each keeps its settings on its
 * own thread.
 *
 * A snapshot holds served values only (monotonic counters, finished rates),
 * so MIB glue never does arithmetic on raw kernel numbers.
 */
#ifndef CLUSTERMON_SOURCES_H
#define CLUSTERMON_SOURCES_H

#include <stdbool.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <stdint.h>

#include "source_ops.h"
#include "../runtime/snapshot.h"
#include "../core/readings.h"
#include "../core/workload.h"
#include "../core/exitlog.h"

/* PSI averages in hundredths of a percent; present only when the kernel has
 * /proc/pressure (served as noSuchInstance otherwise, never as zero). */
struct psi_avgs {
	bool present;
	uint32_t some10, some60, some300, full10;
};

enum cpu_time_kind {
	CPU_USER, CPU_NICE, CPU_SYSTEM, CPU_IDLE, CPU_IOWAIT, CPU_IRQ, CPU_SOFTIRQ,
	CPU_STEAL, CPU_TIME_KINDS
};

struct cpu_row {
	unsigned cpu;                    /* kernel CPU number */
	uint64_t ms[CPU_TIME_KINDS];     /* Counter64 milliseconds */
	uint32_t util;                   /* hundredths of a percent busy */
	bool have_ctxsw;
	uint64_t ctxsw;
};

struct cpu_snapshot {
	struct snapshot hdr;
	uint32_t total_util;
	uint64_t ctxt;
	uint32_t procs_running, procs_blocked;
	struct psi_avgs psi_cpu, psi_io;
	unsigned ncpu;
	struct cpu_row rows[];           /* online CPUs, ascending cpu */
};

struct mem_snapshot {
	struct snapshot hdr;
	uint64_t total_kb, available_kb, free_kb, cached_kb, buffers_kb, dirty_kb;
	uint64_t swap_total_kb, swap_free_kb;
	bool have_available;
	uint64_t minor_faults, major_faults, swap_ins, swap_outs;
	struct psi_avgs psi_mem;
};

struct proc_row {
	int32_t pid;
	char state;
	uint32_t uid;
	uint32_t threads;
	uint32_t util;         /* hundredths of a percent of one CPU, last interval */
	uint32_t system_share; /* hundredths of a percent of its CPU time in the kernel */
	uint64_t user_ms, system_ms;
	bool have_schedstat;
	uint64_t cpu_ns, run_delay_ns;
	uint64_t rss_kb, minflt, majflt, vol_ctxsw, invol_ctxsw;
	uint64_t start_time;   /* seconds since the epoch */
	uint64_t gen;          /* the snapshot (proc_snapshot.gen) it last changed in */
	char comm[64];
	char cmdline[256];
	char cgroup[CG_PID_PATH_MAX]; /* its cgroup's path, as clusterMonCgroupPath */
};

/* Rows in chunks shared between snapshots (sources/proctab.h). */
#define PROC_CHUNK_ROWS 16
struct proc_chunk;
struct proc_slot;
struct proc_retired;

/* Top-N (sources/top.c): the busiest processes and cgroups of a sample,
 * ranked on the source's thread after it, served as clusterMonProcTopTable
 * and clusterMonCgroupTopTable. topRows N, default 20. */
#define TOP_ROWS_DEFAULT 20u
#define TOP_ROWS_MAX 1000u
struct proc_top;
struct cgroup_top;

struct proc_snapshot {
	struct snapshot hdr;
	uint64_t gen;          /* rows with this gen changed in this sample */
	size_t nrows;          /* served, after the filter */
	size_t nall;           /* rows in the chunks: every process followed */
	size_t followed;       /* processes read, before filtering */
	uint64_t sweep_fixes;  /* clusterMonProcSweepFixes */
	bool helper_fed;       /* clusterMonSourceMethod: "helper", else "scanner" */
	uint64_t agent_rss_kb; /* clustermond's own resident memory */
	struct self_cost agent; /* and what else it costs (clusterMonAgent) */
	size_t nchunks;
	struct proc_slot *slot;       /* each chunk of rows, ascending pid */
	struct proc_retired *retired; /* what it keeps alive (proctab.h) */
	const struct proc_row **view; /* with a filter: the rows it passes, else NULL */
	const struct proc_top *top;   /* every row followed, ranked; NULL: none */
};

/* Row i (0 .. nrows-1) in pid order: O(log chunks). */
const struct proc_row *proc_snapshot_row(const struct proc_snapshot *s, size_t i);
/* How many rows from row i on are as they were in the snapshot of
 * generation since (whole chunks shared with it); 0 with a filter. */
size_t proc_snapshot_same_since(const struct proc_snapshot *s, size_t i, uint64_t since);
/* The pids of the rows that changed after generation since (processes that
 * ran, appeared or had slow fields refreshed) into *pids (grown, *cap
 * updated); the count. Chunks not copied since are skipped whole. */
size_t proc_snapshot_changed(const struct proc_snapshot *s, uint64_t since, int32_t **pids,
			     size_t *cap);

/* clusterMonProcTable filters (procFilter, and the writable scalars). */
struct proc_filter {
	char name[64];  /* fnmatch pattern on the command name; "" = any */
	int64_t uid;    /* -1 = any */
	uint32_t top;   /* 0 = all; else the N busiest over the last interval */
};

/* One helper-fed sample from the text of a reply to the helper's procs
 * request (as if the helper had sent it): for tests. 0, or -1 when the
 * reply does not parse or the sample failed. */
int proc_source_feed(void *ctx, const char *reply);

/* The proc source's current snapshot (NULL before its first sample), for
 * another source that follows processes: the tcp source finds a new
 * socket's owner among the rows that changed. Drop it with
 * proc_snapshot_drop. */
struct proc_snapshot *proc_snapshot_take(void);
void proc_snapshot_drop(struct proc_snapshot *s);

/* clusterMonTcp scalars, from /proc/net/snmp (Tcp:) and /proc/net/netstat. */
enum tcp_scalar {
	TCPS_ACTIVE_OPENS, TCPS_PASSIVE_OPENS, TCPS_RETRANS_SEGS, TCPS_IN_ERRS, TCPS_OUT_RSTS,
	TCPS_LISTEN_OVERFLOWS, TCPS_LISTEN_DROPS, TCPS_TIMEOUTS, TCPS_COUNT
};

struct tcp_row {
	uint32_t index;        /* clusterMonTcpConnIndex: stable, never reused */
	uint32_t pid;          /* a process holding the socket, 0 if unknown */
	struct tcp_conn c;
};

struct tcp_snapshot {
	struct snapshot hdr;
	uint32_t scalars_found; /* bit (1 << tcp_scalar) */
	uint64_t scalars[TCPS_COUNT];
	size_t nrows;
	struct tcp_row rows[];  /* ascending index */
};

/* tcpFilter: which sockets the tcp source asks the kernel for. */
struct tcp_filter {
	uint32_t states;       /* bit (1 << TCP_*); 0: every state but LISTEN */
	size_t nterms;
	struct diag_term terms[INETDIAG_MAX_TERMS];
};

extern const struct source_ops tcp_source_ops;

/* pcapInterface lines in force; set by the config, read by the pcap source. */
#define PCAP_MAX_IFACES 16
struct pcap_iface_conf {
	char ifname[16];
	char filter[256];
};
struct pcap_conf {
	unsigned n;
	struct pcap_iface_conf iface[PCAP_MAX_IFACES];
};

struct pcap_row {
	uint32_t ifindex;
	char ifname[16];
	uint64_t packets, bytes, kernel_drops, if_drops;
};

struct pcap_snapshot {
	struct snapshot hdr;
	size_t nrows;
	struct pcap_row rows[PCAP_MAX_IFACES]; /* ascending ifindex */
};

extern const struct source_ops pcap_source_ops;

extern const struct source_ops proc_source_ops;

/* The exit log (issue 43), published by the proc source's thread apart
 * from the process table: with the helper's exit ring, what it drains
 * while the table sleeps (nobody reads it) is served all the same. */
struct exit_snapshot {
	struct snapshot hdr;
	uint64_t gen;                 /* one more at each publication */
	bool exact;                   /* from the helper's exit records */
	struct exit_view *log;
};

/* The log's current snapshot (NULL before the first), and its end. */
struct exit_snapshot *proc_exits_take(void);
void proc_exits_drop(struct exit_snapshot *s);
/* Whether the log is fed by the helper's exit ring now (any thread): a
 * reader of it then needs no sample of the process table. */
bool proc_exits_exact(void);

extern const struct source_ops cpu_source_ops;
extern const struct source_ops mem_source_ops;

/* cgroupMatch lines in force (none: the defaults of sources/cgroup.c). */
#define CGROUP_MAX_PATTERNS 32
#define CGROUP_PATTERN_MAX 128
struct cgroup_conf {
	unsigned n;
	char pattern[CGROUP_MAX_PATTERNS][CGROUP_PATTERN_MAX];
};

/* One row of clusterMonCgroupTable. */
enum cgroup_version { CGROUP_V1 = 1, CGROUP_V2 = 2, CGROUP_HYBRID = 3 };

/* A cgroup as the helper's scheduler sensor sees it (collect/helpercg.h). */
#define CGROUP_RQ_BUCKETS 64
struct cgroup_sched {
	bool have;               /* the helper runs and has its entry */
	uint64_t cpu_ns;         /* its tasks ran, since the helper started */
	uint64_t waits, p50, p90, p99;  /* run-queue waits: count; ns */
	unsigned nbuckets;       /* to the highest bucket a wait fell in */
	uint64_t bucket[CGROUP_RQ_BUCKETS]; /* log2hist's: [0, nbuckets) */
};

/* A row is immutable once published and shared by every snapshot taken
 * while it did not change (copy-on-write, as the process table's chunks):
 * a 10 ms sample of 500 mostly idle cgroups copies only the rows that
 * moved, not 500 x 1.2 kB. */
struct cgroup_row {
	atomic_uint refs;        /* the source's entry and each snapshot */
	uint32_t index;          /* see sources/cgroup.c: stable across restarts */
	uint8_t version;         /* enum cgroup_version: the trees that have it */
	char path[CG_PATH_MAX];  /* relative to the hierarchy's root */
	char workload[WORKLOAD_MAX]; /* what it is, from its path; "" unknown */
	struct cgroup_stats st;
	uint64_t st_ns;          /* when st was read (cm_clock_ns) */
	struct cgroup_sched rq;
	uint64_t gen;            /* the sample in which what it serves changed */
};

/* A removed cgroup's last row (clusterMonCgroupEndTable, issue 43). */
struct cgroup_end {
	uint32_t index;          /* clusterMonCgroupEndIndex: never reused */
	uint64_t start_ms, end_ms;   /* first seen, found removed: ms since the epoch */
	uint64_t logged_ns;      /* monotonic, for the age-out */
	struct cgroup_row *row;  /* one reference */
};

/* The end log as a snapshot serves it: immutable, counted (the SNMP and
 * publishing threads drop it). */
struct cgroup_ends {
	atomic_uint refs;
	size_t n;
	uint64_t logged;
	struct cgroup_end e[];   /* ascending index */
};

/* Drops one reference to a row; the last frees it (any thread: the SNMP
 * and publishing threads release snapshots). Inline: the source and its
 * end log (cgroupend.c) both drop rows, and neither calls the other's. */
static inline void cgroup_row_put(struct cgroup_row *r)
{
	if (r != NULL && atomic_fetch_sub_explicit(&r->refs, 1, memory_order_acq_rel) == 1)
		free(r);
}
void cgroup_ends_drop(struct cgroup_ends *v);

struct cgroup_snapshot {
	struct snapshot hdr;
	struct cgroup_ends *ends; /* removed cgroups' last rows; NULL: none yet */
	size_t nrows;
	size_t matched;          /* directories that matched, rows or not */
	size_t nrq;              /* rows of the bucket table: rq.nbuckets summed */
	uint64_t gen;            /* the sample it was taken in */
	struct cgroup_top *top;  /* the rows ranked (sources/top.c); NULL: none */
	size_t *rq_first;        /* [nrows]: each row's first row of the bucket table */
	struct cgroup_row *rows[]; /* ascending index; one reference each */
};

extern const struct source_ops cgroup_source_ops;
/* The patterns served when the configuration names none. */
extern const char *const cgroup_default_patterns[];

/* helperSocket: the one setting three sources share (probes, proc and
 * cgroup talk to the helper, each on connections of its own). */
#define PROBES_DEFAULT_SOCKET "/run/clustermon/kprobe.sock"
#define PROBE_SOCKET_MAX 4096  /* PATH_MAX */

/* One (re)load's configuration, whole and never changed once handed over:
 * each source takes its part on its own thread. */
struct sources_conf {
	uint32_t interval_ms[SOURCE_LAST + 1]; /* 0: the source's default */
	bool always[SOURCE_LAST + 1];          /* pinned to its timer */
	char helper_socket[PROBE_SOCKET_MAX];  /* "": PROBES_DEFAULT_SOCKET */
	struct proc_filter proc_filter;
	struct pcap_conf pcap;
	struct tcp_filter tcp_filter;
	struct cgroup_conf cgroup;
	uint32_t top_rows;                     /* topRows; 0: TOP_ROWS_DEFAULT */
	struct exit_conf exits;                /* exitLog */
	/* snapshotFile's path, "none", or "": SOURCES_DEFAULT_IMAGE (the
	 * image's size is part of what clustermond costs) */
	char image_path[PATH_MAX];
};
#define SOURCES_DEFAULT_IMAGE "/run/clustermon/snapshot/image"

#endif
