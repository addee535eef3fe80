/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * sources.h - the one configuration a (re)load hands to all the sources at
 * once (sampler_configure): struct sources_conf and the small settings it
 * aggregates (procFilter, tcpFilter, pcapInterface, cgroupMatch, topRows,
 * helperSocket; exitLog's is core/exitlog.h's). Nothing else: each source's
 * snapshot and row types and its ops are its own header's (cpu.h, mem.h,
 * proc.h, tcp.h, pcap.h, cgroup.h, probes.h, ...), the commands the SNMP
 * thread may queue for one (sampler_post) source_cmd.h's.
 *
 * Why the settings are here and not in the sources' headers: sources_conf
 * holds them by value, so this header would include every source's header
 * and be the union of their types again, and conf.c, which parses them,
 * would reach every snapshot type. A setting is a few plain fields; kept
 * here, a MIB group includes the header of the source it reads and gets
 * no other source's types (include-arrows.sh tests 19 and 20).
 */
#ifndef CLUSTERMON_SOURCES_H
#define CLUSTERMON_SOURCES_H

#include <stdbool.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "source_ops.h"
#include "../core/readings.h"
#include "../core/exitlog.h"

/* helperSocket: the one setting three sources share (probes, proc and
 * cgroup talk to the helper, each on connections of its own). */
#define PROBES_DEFAULT_SOCKET "/run/clustermon/kprobe.sock"
#define PROBE_SOCKET_MAX 4096  /* PATH_MAX */

/* clusterMonProcTable filters (procFilter, and the writable scalars). */
struct proc_filter {
	char name[64];  /* fnmatch pattern on the command name; "" = any */
	int64_t uid;    /* -1 = any */
	uint32_t top;   /* 0 = all; else the N busiest over the last interval */
};

/* Top-N (sources/top.c): the busiest processes and cgroups of a sample,
 * ranked on the source's thread after it, served as clusterMonProcTopTable
 * and clusterMonCgroupTopTable. topRows N, default 20. */
#define TOP_ROWS_DEFAULT 20u
#define TOP_ROWS_MAX 1000u

/* tcpFilter: which sockets the tcp source asks the kernel for. */
struct tcp_filter {
	uint32_t states;       /* bit (1 << TCP_*); 0: every state but LISTEN */
	size_t nterms;
	struct diag_term terms[INETDIAG_MAX_TERMS];
};

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

/* cgroupMatch lines in force (none: cgroup_default_patterns, cgroup.h). */
#define CGROUP_MAX_PATTERNS 32
#define CGROUP_PATTERN_MAX 128
struct cgroup_conf {
	unsigned n;
	char pattern[CGROUP_MAX_PATTERNS][CGROUP_PATTERN_MAX];
};

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
