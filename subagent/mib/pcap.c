/* SPDX-License-Identifier: BSD-2-Clause */
/* pcap.c - clusterMonPcapTable: one row per captured interface. */
#include "engine/group.h"
#include "mib.h"

#include "../sources/pcap.h"

static const oid pcap_oid[] = { CM_OID_clusterMonPcap };

enum {
	COL_IFNAME = CM_ARC_clusterMonPcapIfName,
	COL_PACKETS = CM_ARC_clusterMonPcapPackets,
	COL_BYTES = CM_ARC_clusterMonPcapBytes,
	COL_KERNEL_DROPS = CM_ARC_clusterMonPcapKernelDrops,
	COL_IF_DROPS = CM_ARC_clusterMonPcapIfDrops
};

static size_t iface_rows(void *view)
{
	return ((const struct pcap_snapshot *)view)->nrows;
}

static void iface_index(void *view, size_t row, oid *out)
{
	out[0] = ((const struct pcap_snapshot *)view)->rows[row].ifindex;
}

static int iface_get(void *view, size_t row, unsigned col, struct mib_value *v)
{
	const struct pcap_row *r = &((const struct pcap_snapshot *)view)->rows[row];

	switch (col) {
	case COL_IFNAME: return mib_string(v, r->ifname);
	case COL_PACKETS: return mib_u64(v, ASN_COUNTER64, r->packets);
	case COL_BYTES: return mib_u64(v, ASN_COUNTER64, r->bytes);
	case COL_KERNEL_DROPS: return mib_u64(v, ASN_COUNTER64, r->kernel_drops);
	case COL_IF_DROPS: return mib_u64(v, ASN_COUNTER64, r->if_drops);
	default: return MIB_ABSENT;
	}
}

static const struct mib_table iface_table = {
	.min_col = COL_IFNAME, .max_col = COL_IF_DROPS, .index_len = 1,
	.rows = iface_rows, .row_index = iface_index, .get = iface_get,
};

static const struct mib_object pcap_objects[] = {
	{ .arc = CM_ARC_clusterMonPcapTable, .table = &iface_table },
};

static const struct mib_group pcap_group = {
	.name = "clusterMonPcap",
	.base = pcap_oid,
	.base_len = OID_LENGTH(pcap_oid),
	.objects = pcap_objects,
	.nobjects = 1,
	.source = SOURCE_PCAP,
};

int mib_pcap_register(void)
{
	return mib_group_register(&pcap_group);
}
