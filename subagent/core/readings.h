/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * readings.h - the plain records collect/'s readers fill and the sources'
 * snapshots carry unchanged. They live here, below both, so that mib/ can
 * read a snapshot without reaching collect/ (tests/source/include-arrows.sh):
 * data and sizes only, no reader.
 */
#ifndef CLUSTERMON_CORE_READINGS_H
#define CLUSTERMON_CORE_READINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/wire.h"

/* ---- PSI (collect/pressure.c, cgroup.c) */

/* One /proc/pressure/{cpu,memory,io} file; averages in hundredths of a percent. */
struct pressure_line {
	uint32_t avg10, avg60, avg300;
	uint64_t total_us;
};

struct pressure {
	struct pressure_line some, full;
	unsigned have_some : 1, have_full : 1;
};

/* The averages a snapshot serves (the cpu and mem sources', so here, below
 * both): present only when the kernel has /proc/pressure (served as
 * noSuchInstance otherwise, never as zero). */
struct psi_avgs {
	bool present;
	uint32_t some10, some60, some300, full10;
};

/* ---- control groups (collect/cgroup.h) */

#define CG_PATH_MAX 256

/* A process's cgroup path as the process table keeps it. */
#define CG_PID_PATH_MAX 256

/* What one cgroup's files said; bit CGS_x of have says which are there. */
enum cg_have {
	CGS_CPU = 1u << 0,        /* cpu_ns */
	CGS_CPU_SPLIT = 1u << 1,  /* user_ns, system_ns */
	CGS_THROTTLE = 1u << 2,   /* nr_periods, nr_throttled, throttled_ns */
	CGS_MEM = 1u << 3,        /* mem_current */
	CGS_MEM_PEAK = 1u << 4,
	CGS_MEM_LIMIT = 1u << 5,
	CGS_OOM = 1u << 6,        /* oom (v2 only) */
	CGS_OOM_KILL = 1u << 7,
	CGS_MEMSTAT = 1u << 8,    /* anon, file */
	CGS_IO = 1u << 9,
	CGS_PIDS = 1u << 10,
	CGS_PIDS_LIMIT = 1u << 11,
	CGS_PSI_CPU = 1u << 12,
	CGS_PSI_MEM = 1u << 13,
	CGS_PSI_IO = 1u << 14,
	CGS_PROCS = 1u << 15,
};

/* "No limit" (v2 "max", v1's huge page-rounded number) reads as this. */
#define CG_UNLIMITED UINT64_MAX

struct cgroup_stats {
	uint32_t have;
	uint64_t cpu_ns, user_ns, system_ns;
	uint64_t nr_periods, nr_throttled, throttled_ns;
	uint64_t mem_current, mem_peak, mem_limit;
	uint64_t oom, oom_kill;
	uint64_t anon, file;
	uint64_t rbytes, wbytes, rios, wios;
	uint64_t pids_current, pids_limit;
	struct pressure psi_cpu, psi_mem, psi_io;
	uint64_t nprocs;
};

/* ---- TCP sockets from sock_diag (collect/inetdiag.h) */

/* tcp_info fields served, each with its RFC 4898 object in the MIB. */
enum tcp_field {
	TCPF_RTT, TCPF_RTTVAR, TCPF_MIN_RTT, TCPF_RTO, TCPF_CWND, TCPF_SSTHRESH,
	TCPF_SND_MSS, TCPF_BYTES_ACKED, TCPF_BYTES_RECEIVED, TCPF_SEGS_OUT, TCPF_SEGS_IN,
	TCPF_TOTAL_RETRANS, TCPF_LOST, TCPF_DELIVERY_RATE, TCPF_DATA_SEGS_OUT,
	TCPF_DATA_SEGS_IN, TCPF_BYTES_RETRANS, TCPF_DSACK_DUPS, TCPF_RCV_RTT,
	TCPF_NOTSENT_BYTES, TCPF_BUSY_TIME, TCPF_RWND_LIMITED, TCPF_SNDBUF_LIMITED,
	TCPF_OPTIONS,              /* TCPI_OPT_* bits */
	TCPF_WSCALE,               /* snd_wscale in the low nibble, rcv_wscale high */
	TCPF_COUNT
};

struct tcp_conn {
	uint8_t family;            /* AF_INET or AF_INET6 */
	uint8_t state;             /* TCP_ESTABLISHED (1) .. TCP_CLOSING (11) */
	uint16_t sport, dport;     /* host byte order */
	uint8_t saddr[16], daddr[16]; /* 4 or 16 bytes used */
	uint64_t cookie;           /* the kernel's socket cookie: unique per socket */
	uint32_t uid, inode;
	uint32_t present;          /* bit (1 << tcp_field) when the kernel gave it */
	uint64_t v[TCPF_COUNT];
};

static inline bool tcp_conn_has(const struct tcp_conn *c, enum tcp_field f)
{
	return (c->present >> f) & 1u;
}

/*
 * One condition of a filter. A port term (family 0): the local port, the
 * remote one or either within lo..hi. An address term (family 4 or 6): the
 * local or remote address within addr/prefix (IPv4 terms also match
 * IPv4-mapped IPv6 sockets; a socket of the other family never matches).
 */
enum diag_side { PORT_LOCAL, PORT_REMOTE, PORT_EITHER };
struct diag_term {
	enum diag_side side;
	uint16_t lo, hi;
	uint8_t family, prefix;
	uint8_t addr[16];
};
#define INETDIAG_MAX_TERMS 8

/* ---- what clustermond costs (collect/selfcost.h) */

/* clustermond runs a thread per source that has one and a few more. */
#define SELF_THREADS_MAX 64

struct self_thread {
	uint32_t tid;
	char name[16];              /* comm: at most 15 characters */
	uint64_t cpu_ns;            /* utime + stime, from ticks */
};

struct self_cost {
	bool have;                  /* read at least once */
	uint64_t rss_kb;
	uint64_t cpu_ns;            /* the whole process, exited threads too */
	bool have_image;
	uint64_t image_bytes;
	size_t nthreads;
	struct self_thread thread[SELF_THREADS_MAX];  /* ascending tid */
};

/* ---- the helper's trace sessions (collect/tracelist.h) */

/* The protocol's limits (common/wire.h). */
#define TRACELIST_DIR_MAX WIRE_MAX_DIR
#define TRACELIST_REASON_MAX WIRE_MAX_REASON

/* An OOM killer's victim (collect/oomvictim.h), as clusterMonOomKill
 * reports it. */
struct oom_victim {
	uint32_t pid;                  /* the process (tgid) */
	char comm[64];
	char cgroup[CG_PID_PATH_MAX];  /* relative to its hierarchy, "/" the root */
	bool v1;                       /* cgroup names a v1 memory cgroup */
	bool have_mem;                 /* limit and usage were read */
	uint64_t limit;                /* bytes; CG_UNLIMITED: none */
	uint64_t usage;                /* bytes */
};

#endif
