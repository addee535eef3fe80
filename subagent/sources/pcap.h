/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pcap.h - the "pcap" source as its readers see it: the snapshot it
 * publishes (clusterMonPcapTable) and its ops. It includes sources.h for
 * PCAP_MAX_IFACES alone: a snapshot has a row for each configured
 * interface at most, so its size follows the configuration's.
 */
#ifndef CLUSTERMON_SOURCES_PCAP_H
#define CLUSTERMON_SOURCES_PCAP_H

#include <stddef.h>
#include <stdint.h>

#include "source_ops.h"
#include "sources.h"
#include "../runtime/snapshot.h"

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

#endif
