/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tcp.h - the "tcp" source as its readers see it: the snapshot it publishes
 * (clusterMonTcp's scalars and clusterMonTcpConnTable) and its ops. What
 * it asks the kernel for (tcpFilter) is configuration: sources.h's.
 */
#ifndef CLUSTERMON_SOURCES_TCP_H
#define CLUSTERMON_SOURCES_TCP_H

#include <stddef.h>
#include <stdint.h>

#include "source_ops.h"
#include "../runtime/snapshot.h"
#include "../core/readings.h"

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

extern const struct source_ops tcp_source_ops;

#endif
