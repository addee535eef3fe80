/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tcp.c - clusterMonTcp: the Tcp counters and clusterMonTcpConnTable, one
 * row per connection with RFC 4898 objects mapped from tcp_info (the MIB's
 * DESCRIPTIONs name the tcp_info field behind each column).
 */
#include "engine/group.h"
#include "mib.h"

#include <sys/socket.h>

#include "image/imagesec.h"
#include "../sources/tcp.h"

static const oid tcp_oid[] = { CM_OID_clusterMonTcp };

enum { INET_ADDRESS_IPV4 = 1, INET_ADDRESS_IPV6 = 2 };
/* A clusterMonTcpConnEntry column by the end of its MIB name. */
#define CONN_COL(name) CM_ARC_clusterMonTcpConn##name
enum {
	COL_LOCAL_TYPE = CONN_COL(LocalAddressType), COL_LOCAL = CONN_COL(LocalAddress),
	COL_LOCAL_PORT = CONN_COL(LocalPort), COL_REM_TYPE = CONN_COL(RemAddressType),
	COL_REM = CONN_COL(RemAddress), COL_REM_PORT = CONN_COL(RemPort),
	COL_STATE = CONN_COL(State), COL_PID = CONN_COL(Pid),
	COL_WSCALE_SENT = CONN_COL(WinScaleSent), COL_WSCALE_RCVD = CONN_COL(WinScaleRcvd),
	COL_TIMESTAMPS = CONN_COL(TimeStamps), COL_SACK = CONN_COL(Sack), COL_ECN = CONN_COL(Ecn),
	COL_LAST = COL_ECN
};
enum { TRUTH_TRUE = 1, TRUTH_FALSE = 2 };

/* TCPI_OPT_* bits behind the TruthValue columns. */
static const struct {
	unsigned col, bit;
} option_cols[] = {
	{ COL_TIMESTAMPS, 1 }, { COL_SACK, 2 }, { COL_ECN, 8 },
};

/* Columns RttUs..BusyTimeUs but Pid: the tcp_info field and the type it is
 * served as (columns before WinScaleSent only: the array ends there). */
static const struct {
	int field;             /* enum tcp_field, -1 for none */
	u_char type;
} info_cols[COL_WSCALE_SENT] = {
	[CONN_COL(RttUs)] = { TCPF_RTT, ASN_GAUGE },
	[CONN_COL(RttVarUs)] = { TCPF_RTTVAR, ASN_GAUGE },
	[CONN_COL(MinRttUs)] = { TCPF_MIN_RTT, ASN_GAUGE },
	[CONN_COL(RtoUs)] = { TCPF_RTO, ASN_GAUGE },
	[CONN_COL(Cwnd)] = { TCPF_CWND, ASN_GAUGE },
	[CONN_COL(Ssthresh)] = { TCPF_SSTHRESH, ASN_GAUGE },
	[CONN_COL(SndMss)] = { TCPF_SND_MSS, ASN_GAUGE },
	[CONN_COL(BytesAcked)] = { TCPF_BYTES_ACKED, ASN_COUNTER64 },
	[CONN_COL(BytesReceived)] = { TCPF_BYTES_RECEIVED, ASN_COUNTER64 },
	[CONN_COL(SegsOut)] = { TCPF_SEGS_OUT, ASN_COUNTER64 },
	[CONN_COL(SegsIn)] = { TCPF_SEGS_IN, ASN_COUNTER64 },
	[CONN_COL(TotalRetrans)] = { TCPF_TOTAL_RETRANS, ASN_COUNTER64 },
	[CONN_COL(Lost)] = { TCPF_LOST, ASN_GAUGE },
	[CONN_COL(DeliveryRate)] = { TCPF_DELIVERY_RATE, ASN_COUNTER64 },
	[CONN_COL(DataSegsOut)] = { TCPF_DATA_SEGS_OUT, ASN_COUNTER64 },
	[CONN_COL(DataSegsIn)] = { TCPF_DATA_SEGS_IN, ASN_COUNTER64 },
	[CONN_COL(OctetsRetrans)] = { TCPF_BYTES_RETRANS, ASN_COUNTER64 },
	[CONN_COL(DSACKDups)] = { TCPF_DSACK_DUPS, ASN_COUNTER64 },
	[CONN_COL(RcvRttUs)] = { TCPF_RCV_RTT, ASN_GAUGE },
	[CONN_COL(NotsentBytes)] = { TCPF_NOTSENT_BYTES, ASN_GAUGE },
	[CONN_COL(SndLimTimeRwinUs)] = { TCPF_RWND_LIMITED, ASN_COUNTER64 },
	[CONN_COL(SndLimTimeSndUs)] = { TCPF_SNDBUF_LIMITED, ASN_COUNTER64 },
	[CONN_COL(BusyTimeUs)] = { TCPF_BUSY_TIME, ASN_COUNTER64 },
};

/* Window scales and negotiated options: derived from two tcp_info bytes. */
static int option_get(const struct tcp_conn *c, unsigned col, struct mib_value *v)
{
	uint64_t wscale = c->v[TCPF_WSCALE], opts = c->v[TCPF_OPTIONS];

	if (col == COL_WSCALE_SENT || col == COL_WSCALE_RCVD) {
		/* 0 when the option was not negotiated; the kernel's nibbles then. */
		if (!tcp_conn_has(c, TCPF_WSCALE) || !tcp_conn_has(c, TCPF_OPTIONS))
			return MIB_ABSENT;
		if (!(opts & 4))
			return mib_u64(v, ASN_INTEGER, 0);
		return mib_u64(v, ASN_INTEGER,
			       col == COL_WSCALE_SENT ? wscale >> 4 : wscale & 0x0f);
	}
	for (size_t i = 0; i < sizeof(option_cols) / sizeof(option_cols[0]); i++)
		if (option_cols[i].col == col)
			return tcp_conn_has(c, TCPF_OPTIONS) ?
				       mib_u64(v, ASN_INTEGER, (opts & option_cols[i].bit) ?
							       TRUTH_TRUE : TRUTH_FALSE) :
				       MIB_ABSENT;
	return MIB_ABSENT;
}

static int get_scalar(void *view, enum tcp_scalar which, struct mib_value *v)
{
	const struct tcp_snapshot *s = view;

	if (s == NULL || !(s->scalars_found & (1u << which)))
		return MIB_ABSENT;
	return mib_u64(v, ASN_COUNTER64, s->scalars[which]);
}

#define TCP_SCALAR(fn, which) \
	static int fn(void *view, struct mib_value *v) { return get_scalar(view, which, v); }

TCP_SCALAR(get_active_opens, TCPS_ACTIVE_OPENS)
TCP_SCALAR(get_passive_opens, TCPS_PASSIVE_OPENS)
TCP_SCALAR(get_retrans_segs, TCPS_RETRANS_SEGS)
TCP_SCALAR(get_in_errs, TCPS_IN_ERRS)
TCP_SCALAR(get_out_rsts, TCPS_OUT_RSTS)
TCP_SCALAR(get_listen_overflows, TCPS_LISTEN_OVERFLOWS)
TCP_SCALAR(get_listen_drops, TCPS_LISTEN_DROPS)
TCP_SCALAR(get_timeouts, TCPS_TIMEOUTS)

static size_t conn_rows(void *view)
{
	return ((const struct tcp_snapshot *)view)->nrows;
}

static void conn_index(void *view, size_t row, oid *out)
{
	out[0] = ((const struct tcp_snapshot *)view)->rows[row].index;
}

static int address(struct mib_value *v, const struct tcp_conn *c, const uint8_t *a)
{
	v->type = ASN_OCTET_STR;
	v->ptr = a;
	v->len = c->family == AF_INET ? 4 : 16;
	return MIB_PRESENT;
}

static int conn_get(void *view, size_t row, unsigned col, struct mib_value *v)
{
	const struct tcp_row *r = &((const struct tcp_snapshot *)view)->rows[row];
	const struct tcp_conn *c = &r->c;
	unsigned family = c->family == AF_INET ? INET_ADDRESS_IPV4 : INET_ADDRESS_IPV6;

	switch (col) {
	case COL_LOCAL_TYPE:
	case COL_REM_TYPE: return mib_u64(v, ASN_INTEGER, family);
	case COL_LOCAL: return address(v, c, c->saddr);
	case COL_REM: return address(v, c, c->daddr);
	case COL_LOCAL_PORT: return mib_u64(v, ASN_UNSIGNED, c->sport);
	case COL_REM_PORT: return mib_u64(v, ASN_UNSIGNED, c->dport);
	case COL_STATE: return mib_u64(v, ASN_INTEGER, c->state);
	case COL_PID: return r->pid ? mib_u64(v, ASN_UNSIGNED, r->pid) : MIB_ABSENT;
	default:
		if (col >= COL_WSCALE_SENT)
			return option_get(c, col, v);
		if (info_cols[col].type == 0 ||
		    !tcp_conn_has(c, (enum tcp_field)info_cols[col].field))
			return MIB_ABSENT;
		return mib_u64(v, info_cols[col].type, c->v[info_cols[col].field]);
	}
}

/* Every column comes from the row alone: its bytes' fingerprint moves
 * when any of them does (the image re-encodes only those rows). */
static uint64_t conn_gen(void *view, size_t row)
{
	_Static_assert(sizeof(struct tcp_row) % 8 == 0, "a row is whole 8-byte words");
	return cm_isec_fingerprint(&((const struct tcp_snapshot *)view)->rows[row],
				   sizeof(struct tcp_row));
}

static const struct mib_table conn_table = {
	.min_col = COL_LOCAL_TYPE, .max_col = COL_LAST, .index_len = 1,
	.rows = conn_rows, .row_index = conn_index, .get = conn_get, .row_gen = conn_gen,
};

/* The node's counters come from the source's idle samples too: reading
 * them wakes nobody. */
#define NODE_COUNTER MIB_DEMAND_NONE

static const struct mib_object tcp_objects[] = {
	{ .arc = CM_ARC_clusterMonTcpActiveOpens, .get = get_active_opens, .demand = NODE_COUNTER },
	{ .arc = CM_ARC_clusterMonTcpPassiveOpens, .get = get_passive_opens, .demand = NODE_COUNTER },
	{ .arc = CM_ARC_clusterMonTcpRetransSegs, .get = get_retrans_segs, .demand = NODE_COUNTER },
	{ .arc = CM_ARC_clusterMonTcpInErrs, .get = get_in_errs, .demand = NODE_COUNTER },
	{ .arc = CM_ARC_clusterMonTcpOutRsts, .get = get_out_rsts, .demand = NODE_COUNTER },
	{ .arc = CM_ARC_clusterMonTcpListenOverflows, .get = get_listen_overflows, .demand = NODE_COUNTER },
	{ .arc = CM_ARC_clusterMonTcpListenDrops, .get = get_listen_drops, .demand = NODE_COUNTER },
	{ .arc = CM_ARC_clusterMonTcpTimeouts, .get = get_timeouts, .demand = NODE_COUNTER },
	/* The Pid column: the tcp source finds a new socket's owner among the
	 * processes the proc source saw run, so a read wakes both. */
	{ .arc = CM_ARC_clusterMonTcpConnTable, .table = &conn_table,
	  .demand = 1u << SOURCE_TCP | 1u << SOURCE_PROC },
};

static const struct mib_group tcp_group = {
	.name = "clusterMonTcp",
	.base = tcp_oid,
	.base_len = OID_LENGTH(tcp_oid),
	.objects = tcp_objects,
	.nobjects = sizeof(tcp_objects) / sizeof(tcp_objects[0]),
	.source = SOURCE_TCP,
};

int mib_tcp_register(void)
{
	return mib_group_register(&tcp_group);
}
