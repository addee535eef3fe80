/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * inetdiag.c - dump TCP sockets with tcp_info over NETLINK_SOCK_DIAG, the
 * way ss(8) does, and parse the replies without allocating per socket.
 */
#include "inetdiag.h"

#include <errno.h>
#include <limits.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/tcp.h>
#include <netinet/in.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* Where each served field lives in struct tcp_info, and how wide it is. */
struct field_at {
	size_t off, size;
};

#define AT(member) { offsetof(struct tcp_info, member), sizeof(((struct tcp_info *)0)->member) }

static const struct field_at fields[TCPF_COUNT] = {
	[TCPF_RTT] = AT(tcpi_rtt),
	[TCPF_RTTVAR] = AT(tcpi_rttvar),
	[TCPF_MIN_RTT] = AT(tcpi_min_rtt),
	[TCPF_RTO] = AT(tcpi_rto),
	[TCPF_CWND] = AT(tcpi_snd_cwnd),
	[TCPF_SSTHRESH] = AT(tcpi_snd_ssthresh),
	[TCPF_SND_MSS] = AT(tcpi_snd_mss),
	[TCPF_BYTES_ACKED] = AT(tcpi_bytes_acked),
	[TCPF_BYTES_RECEIVED] = AT(tcpi_bytes_received),
	[TCPF_SEGS_OUT] = AT(tcpi_segs_out),
	[TCPF_SEGS_IN] = AT(tcpi_segs_in),
	[TCPF_TOTAL_RETRANS] = AT(tcpi_total_retrans),
	[TCPF_LOST] = AT(tcpi_lost),
	[TCPF_DELIVERY_RATE] = AT(tcpi_delivery_rate),
	[TCPF_DATA_SEGS_OUT] = AT(tcpi_data_segs_out),
	[TCPF_DATA_SEGS_IN] = AT(tcpi_data_segs_in),
	[TCPF_BYTES_RETRANS] = AT(tcpi_bytes_retrans),
	[TCPF_DSACK_DUPS] = AT(tcpi_dsack_dups),
	[TCPF_RCV_RTT] = AT(tcpi_rcv_rtt),
	[TCPF_NOTSENT_BYTES] = AT(tcpi_notsent_bytes),
	[TCPF_BUSY_TIME] = AT(tcpi_busy_time),
	[TCPF_RWND_LIMITED] = AT(tcpi_rwnd_limited),
	[TCPF_SNDBUF_LIMITED] = AT(tcpi_sndbuf_limited),
	[TCPF_OPTIONS] = AT(tcpi_options),
	/* The byte after tcpi_options holds the two 4-bit window scales. */
	[TCPF_WSCALE] = { offsetof(struct tcp_info, tcpi_options) + 1, 1 },
};

/* Fields the kernel's (possibly shorter or longer) tcp_info reaches. */
static void read_info(const unsigned char *p, size_t len, struct tcp_conn *c)
{
	for (int f = 0; f < TCPF_COUNT; f++) {
		const struct field_at *at = &fields[f];
		uint64_t v64;
		uint32_t v32;

		if (at->off + at->size > len)
			continue;
		if (at->size == 8) {
			memcpy(&v64, p + at->off, 8);
			c->v[f] = v64;
		} else if (at->size == 1) {
			c->v[f] = p[at->off];
		} else {
			memcpy(&v32, p + at->off, 4);
			c->v[f] = v32;
		}
		c->present |= 1u << f;
	}
}

static int parse_socket(const struct nlmsghdr *h, struct tcp_conn *c)
{
	const struct inet_diag_msg *m = NLMSG_DATA(h);
	/* Signed: RTA_NEXT past an unaligned last attribute goes below 0,
	 * which RTA_OK then refuses, instead of wrapping around. */
	long alen;
	const struct rtattr *a;

	if (h->nlmsg_len < NLMSG_LENGTH(sizeof(*m)))
		return -1;
	memset(c, 0, sizeof(*c));
	if (m->idiag_family != AF_INET && m->idiag_family != AF_INET6)
		return -1;
	c->family = m->idiag_family;
	c->state = m->idiag_state;
	c->sport = ntohs(m->id.idiag_sport);
	c->dport = ntohs(m->id.idiag_dport);
	memcpy(c->saddr, m->id.idiag_src, c->family == AF_INET ? 4 : 16);
	memcpy(c->daddr, m->id.idiag_dst, c->family == AF_INET ? 4 : 16);
	c->cookie = (uint64_t)m->id.idiag_cookie[1] << 32 | m->id.idiag_cookie[0];
	c->uid = m->idiag_uid;
	c->inode = m->idiag_inode;
	a = (const struct rtattr *)((const char *)m + NLMSG_ALIGN(sizeof(*m)));
	alen = (long)(h->nlmsg_len - NLMSG_LENGTH(sizeof(*m)));
	for (; RTA_OK(a, alen); a = RTA_NEXT(a, alen))
		if (a->rta_type == INET_DIAG_INFO)
			read_info(RTA_DATA(a), RTA_PAYLOAD(a), c);
	/* Attribute bytes left over that do not form an attribute: corrupt. */
	return alen < (long)sizeof(struct rtattr) ? 0 : -1;
}

int inetdiag_parse(const void *buf, size_t len, tcp_conn_fn fn, void *arg)
{
	const struct nlmsghdr *h = buf;
	/* Signed, as in parse_socket: an unaligned last message must end the
	 * walk, not wrap the remaining length around. */
	long left = len > (size_t)LONG_MAX ? LONG_MAX : (long)len;
	struct tcp_conn c;
	int rc;

	for (; NLMSG_OK(h, left); h = NLMSG_NEXT(h, left)) {
		if (h->nlmsg_type == NLMSG_DONE)
			return 1;
		if (h->nlmsg_type == NLMSG_ERROR) {
			const struct nlmsgerr *e = NLMSG_DATA(h);

			/* An errno is small and negative; anything else is corrupt. */
			errno = h->nlmsg_len >= NLMSG_LENGTH(sizeof(*e)) && e->error < 0 &&
						e->error > -4096 ?
					-e->error : EBADMSG;
			return -1;
		}
		if (h->nlmsg_type != SOCK_DIAG_BY_FAMILY)
			continue;
		if (parse_socket(h, &c) != 0) {
			errno = EBADMSG;
			return -1;
		}
		rc = fn(&c, arg);
		if (rc != 0)
			return rc;
	}
	/* A partial message at the end: the kernel never sends one. */
	if (left != 0) {
		errno = EBADMSG;
		return -1;
	}
	return 0;
}

int inetdiag_open(void)
{
	return socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
}

/* One port comparison: two ops, the second carrying the port. */
static void port_op(uint8_t *at, int code, unsigned yes, unsigned no, uint16_t port)
{
	struct inet_diag_bc_op op[2] = {
		{ .code = (unsigned char)code, .yes = (unsigned char)yes, .no = (unsigned short)no },
		{ .no = port },
	};

	memcpy(at, op, sizeof(op));
}

static size_t term_size(const struct diag_term *t)
{
	if (t->family != 0)
		return sizeof(struct inet_diag_bc_op) + sizeof(struct inet_diag_hostcond) +
		       (t->family == 4 ? 4 : 16);
	return t->side == PORT_EITHER ? 36 : 16;
}

/* An address condition: one op, then the hostcond with the address. */
static void addr_op(uint8_t *at, const struct diag_term *t, size_t size, size_t tail)
{
	struct inet_diag_bc_op op = {
		.code = t->side == PORT_REMOTE ? INET_DIAG_BC_D_COND : INET_DIAG_BC_S_COND,
		.yes = (unsigned char)size, .no = (unsigned short)(size + tail + 4),
	};
	struct inet_diag_hostcond hc = {
		.family = t->family == 4 ? AF_INET : AF_INET6, .prefix_len = t->prefix, .port = -1,
	};

	memcpy(at, &op, sizeof(op));
	memcpy(at + sizeof(op), &hc, sizeof(hc));
	memcpy(at + sizeof(op) + sizeof(hc), t->addr, t->family == 4 ? 4 : 16);
}

/* A port range; "either" is local-range, then an unconditional jump over
 * remote-range, as ss(8) compiles an OR. */
static void port_range_ops(uint8_t *at, const struct diag_term *t, size_t tail)
{
	int ge = t->side == PORT_REMOTE ? INET_DIAG_BC_D_GE : INET_DIAG_BC_S_GE;
	int le = t->side == PORT_REMOTE ? INET_DIAG_BC_D_LE : INET_DIAG_BC_S_LE;

	if (t->side == PORT_EITHER) {
		struct inet_diag_bc_op jmp = { .code = INET_DIAG_BC_JMP, .yes = 4, .no = 20 };

		/* local port in range: jump over the remote test (offset 36) */
		port_op(at, ge, 8, 20, t->lo);
		port_op(at + 8, le, 8, 12, t->hi);
		memcpy(at + 16, &jmp, sizeof(jmp));
		at += 20;
		ge = INET_DIAG_BC_D_GE;
		le = INET_DIAG_BC_D_LE;
	}
	port_op(at, ge, 8, (unsigned)(16 + tail + 4), t->lo);
	port_op(at + 8, le, 8, (unsigned)(8 + tail + 4), t->hi);
}

/*
 * Built back to front: a jump of `no` past the end of the program by 4
 * bytes rejects, reaching its end accepts. tail is the length of what
 * follows the term being written. The kernel accepts a program only if
 * every jump lands on the chain of `yes` steps from its start.
 */
int inetdiag_filter(const struct diag_term *terms, size_t n, uint8_t *out, size_t cap)
{
	size_t len = 0, tail = 0;

	if (n > INETDIAG_MAX_TERMS)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (terms[i].family != 0 && terms[i].side == PORT_EITHER)
			return -1;
		len += term_size(&terms[i]);
	}
	if (len > cap)
		return -1;
	for (size_t i = n; i-- > 0;) {
		const struct diag_term *t = &terms[i];
		size_t size = term_size(t);
		uint8_t *at = out + len - tail - size;

		if (t->family != 0)
			addr_op(at, t, size, tail);
		else
			port_range_ops(at, t, tail);
		tail += size;
	}
	return (int)len;
}

int inetdiag_dump(int fd, int family, uint32_t states, const uint8_t *bc, size_t bclen,
		  tcp_conn_fn fn, void *arg)
{
	static unsigned seq;
	struct {
		struct nlmsghdr h;
		struct inet_diag_req_v2 r;
		struct rtattr a;
		uint8_t bc[INETDIAG_BC_MAX];
	} req = {
		.h = { .nlmsg_type = SOCK_DIAG_BY_FAMILY,
		       .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP, .nlmsg_seq = ++seq },
		.r = { .sdiag_family = (uint8_t)family, .sdiag_protocol = IPPROTO_TCP,
		       .idiag_ext = 1u << (INET_DIAG_INFO - 1), .idiag_states = states },
	};
	struct sockaddr_nl nl = { .nl_family = AF_NETLINK };
	size_t reqlen = NLMSG_LENGTH(sizeof(req.r));

	if (bclen > sizeof(req.bc)) {
		errno = E2BIG;
		return -1;
	}
	if (bclen > 0) {
		req.a.rta_type = INET_DIAG_REQ_BYTECODE;
		req.a.rta_len = (unsigned short)RTA_LENGTH(bclen);
		memcpy(req.bc, bc, bclen);
		reqlen += RTA_SPACE(bclen);
	}
	req.h.nlmsg_len = (uint32_t)reqlen;
	/* 32 kB: the kernel fills dump buffers up to that size. */
	static __thread long buf[32768 / sizeof(long)];
	ssize_t n;
	int rc;

	if (sendto(fd, &req, reqlen, 0, (struct sockaddr *)&nl, sizeof(nl)) < 0)
		return -1;
	do {
		n = recv(fd, buf, sizeof(buf), 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		rc = inetdiag_parse(buf, (size_t)n, fn, arg);
	} while (rc == 0);
	return rc == 1 ? 0 : -1;
}
