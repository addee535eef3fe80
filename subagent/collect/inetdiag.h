/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * inetdiag.h - TCP sockets with their struct tcp_info from the kernel's
 * sock_diag (inet_diag) netlink interface, for clusterMonTcpConnTable.
 * No net-snmp headers here (see docs/architecture.md).
 *
 * tcp_info grows with every kernel: a field is marked present only when the
 * kernel's copy reached it, so an older kernel's missing fields read as
 * absent instead of zero, and a newer kernel's extra fields are ignored.
 */
#ifndef CLUSTERMON_INETDIAG_H
#define CLUSTERMON_INETDIAG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

/* Called for each socket of a dump; a non-zero return stops the dump. */
typedef int (*tcp_conn_fn)(const struct tcp_conn *c, void *arg);

/*
 * One buffer of netlink messages as recv() returned it: calls fn for each
 * socket. Returns 1 after NLMSG_DONE, 0 when more buffers follow, -1 with
 * errno set on NLMSG_ERROR (the kernel's errno) or a malformed message
 * (EBADMSG), or what fn returned if it stopped the dump.
 */
int inetdiag_parse(const void *buf, size_t len, tcp_conn_fn fn, void *arg);

/* A NETLINK_SOCK_DIAG socket (close it with close()), or -1. */
int inetdiag_open(void);

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
#define INETDIAG_BC_MAX (INETDIAG_MAX_TERMS * 36)

/* inet_diag bytecode keeping sockets that meet every term, so the kernel
 * filters before copying anything out; its length, or -1 if too long or
 * an address term asks for either end. */
int inetdiag_filter(const struct diag_term *terms, size_t n, uint8_t *out, size_t cap);

/* All TCP sockets of one family (AF_INET, AF_INET6) in the states of the
 * bit mask (1 << TCP_ESTABLISHED | ...), with tcp_info, that pass the
 * bytecode (NULL/0: all); 0 or -1. */
int inetdiag_dump(int fd, int family, uint32_t states, const uint8_t *bc, size_t bclen,
		  tcp_conn_fn fn, void *arg);

#endif
