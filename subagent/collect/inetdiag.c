/*
 * inetdiag.c - dump TCP sockets with tcp_info over NETLINK_SOCK_DIAG, the
 * way ss(8) does, and parse the replies without allocating per socket.
 */
#include "inetdiag.h"

#include <errno.h>
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
	size_t alen;
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
	alen = h->nlmsg_len - NLMSG_LENGTH(sizeof(*m));
	for (; RTA_OK(a, alen); a = RTA_NEXT(a, alen))
		if (a->rta_type == INET_DIAG_INFO)
			read_info(RTA_DATA(a), RTA_PAYLOAD(a), c);
	/* Attribute bytes left over that do not form an attribute: corrupt. */
	return alen == 0 || alen < sizeof(struct rtattr) ? 0 : -1;
}

int inetdiag_parse(const void *buf, size_t len, tcp_conn_fn fn, void *arg)
{
	const struct nlmsghdr *h = buf;
	struct tcp_conn c;
	int rc;

	for (; NLMSG_OK(h, len); h = NLMSG_NEXT(h, len)) {
		if (h->nlmsg_type == NLMSG_DONE)
			return 1;
		if (h->nlmsg_type == NLMSG_ERROR) {
			const struct nlmsgerr *e = NLMSG_DATA(h);

			errno = h->nlmsg_len >= NLMSG_LENGTH(sizeof(*e)) && e->error < 0 ?
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
	if (len != 0) {
		errno = EBADMSG;
		return -1;
	}
	return 0;
}

int inetdiag_open(void)
{
	return socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
}

int inetdiag_dump(int fd, int family, uint32_t states, tcp_conn_fn fn, void *arg)
{
	static unsigned seq;
	struct {
		struct nlmsghdr h;
		struct inet_diag_req_v2 r;
	} req = {
		.h = { .nlmsg_len = sizeof(req), .nlmsg_type = SOCK_DIAG_BY_FAMILY,
		       .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP, .nlmsg_seq = ++seq },
		.r = { .sdiag_family = (uint8_t)family, .sdiag_protocol = IPPROTO_TCP,
		       .idiag_ext = 1u << (INET_DIAG_INFO - 1), .idiag_states = states },
	};
	struct sockaddr_nl nl = { .nl_family = AF_NETLINK };
	/* 32 kB: the kernel fills dump buffers up to that size. */
	static __thread long buf[32768 / sizeof(long)];
	ssize_t n;
	int rc;

	if (sendto(fd, &req, sizeof(req), 0, (struct sockaddr *)&nl, sizeof(nl)) < 0)
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
