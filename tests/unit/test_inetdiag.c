/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_inetdiag.c - the sock_diag parser on dumps captured from a real
 * kernel (tests/fixtures/inetdiag: one established loopback connection,
 * IPv4 and IPv6, both ends), on a tcp_info cut to an old kernel's length,
 * on truncated and corrupt buffers, and a live dump of a connection made here.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "collect/inetdiag.h"
#include "tap.h"

#define MAX_SEEN 64

/* What a dump gave; with ports in only[], just the two ends of the
 * connection between them: on a busy machine other sockets share a port
 * number with ours (on other addresses: seen beside a benchmark's
 * 10,000 loopback connections). */
struct seen {
	int n;
	uint16_t only[2];
	struct tcp_conn c[MAX_SEEN];
};

static int collect(const struct tcp_conn *c, void *arg)
{
	struct seen *s = arg;

	if (s->only[0] != 0 && !(c->sport == s->only[0] && c->dport == s->only[1]) &&
	    !(c->sport == s->only[1] && c->dport == s->only[0]))
		return 0;
	if (s->n < MAX_SEEN)
		s->c[s->n++] = *c;
	return 0;
}

static const struct tcp_conn *by_sport(const struct seen *s, uint16_t port)
{
	for (int i = 0; i < s->n; i++)
		if (s->c[i].sport == port)
			return &s->c[i];
	return NULL;
}

static size_t load(const char *name, unsigned char *buf, size_t cap)
{
	char path[512];
	FILE *f;
	size_t n;

	fixture_root(path, sizeof(path), "inetdiag");
	strncat(path, "/", sizeof(path) - strlen(path) - 1);
	strncat(path, name, sizeof(path) - strlen(path) - 1);
	f = fopen(path, "rb");
	n = f ? fread(buf, 1, cap, f) : 0;
	if (f)
		fclose(f);
	return n;
}

/* Captured with `tcpconns 4 1 1000`: client port 43260, server 45851. */
static void ipv4_fixture(void)
{
	static unsigned char buf[4096];
	size_t len = load("ipv4-established.bin", buf, sizeof(buf));
	struct seen s = { 0 };
	const struct tcp_conn *cl, *sv;

	ok(len > 0 && inetdiag_parse(buf, len, collect, &s) == 1, "IPv4 dump parses to its end");
	ok(s.n == 2, "two sockets: both ends (%d)", s.n);
	cl = by_sport(&s, 43260);
	sv = by_sport(&s, 45851);
	ok(cl && cl->dport == 45851 && sv && sv->dport == 43260, "ports of both ends");
	ok(cl && cl->family == AF_INET && cl->state == 1, "IPv4, established");
	ok(cl && memcmp(cl->saddr, "\x7f\0\0\1", 4) == 0 && memcmp(cl->daddr, "\x7f\0\0\1", 4) == 0,
	   "127.0.0.1 on both sides");
	ok(cl && tcp_conn_has(cl, TCPF_BYTES_ACKED) && cl->v[TCPF_BYTES_ACKED] == 1001,
	   "the sender's bytes_acked: 1000 bytes and the SYN (%llu)",
	   cl ? (unsigned long long)cl->v[TCPF_BYTES_ACKED] : 0ULL);
	ok(sv && sv->v[TCPF_BYTES_RECEIVED] == 1000, "the receiver's bytes_received: 1000");
	ok(cl && cl->present == (1u << TCPF_COUNT) - 1, "a new kernel's tcp_info has every field");
	ok(cl && cl->v[TCPF_RTT] > 0 && cl->v[TCPF_SND_MSS] > 0 && cl->v[TCPF_CWND] > 0,
	   "rtt, mss and cwnd are set");
	ok(cl && sv && cl->cookie != sv->cookie && cl->inode != 0, "each socket has its cookie");
}

/* Captured with `tcpconns 6 1 300`: client port 35030, server 42915. */
static void ipv6_fixture(void)
{
	static unsigned char buf[4096];
	static const unsigned char loop6[16] = { [15] = 1 };
	size_t len = load("ipv6-established.bin", buf, sizeof(buf));
	struct seen s = { 0 };
	const struct tcp_conn *cl, *sv;

	ok(len > 0 && inetdiag_parse(buf, len, collect, &s) == 1 && s.n == 2,
	   "IPv6 dump: two sockets");
	cl = by_sport(&s, 35030);
	sv = by_sport(&s, 42915);
	ok(cl && cl->family == AF_INET6 && memcmp(cl->saddr, loop6, 16) == 0 &&
	   memcmp(cl->daddr, loop6, 16) == 0, "IPv6 ::1 on both sides");
	ok(cl && cl->v[TCPF_BYTES_ACKED] == 301 && sv && sv->v[TCPF_BYTES_RECEIVED] == 300,
	   "300 bytes sent and received");
}

/* The first socket message of a capture, its tcp_info cut to keep bytes
 * (an old kernel's struct), followed by NLMSG_DONE. */
static size_t short_info(unsigned char *out, size_t keep)
{
	static unsigned char buf[4096];
	size_t len = load("ipv4-established.bin", buf, sizeof(buf));
	struct nlmsghdr *h = (struct nlmsghdr *)buf, *done;
	size_t at = NLMSG_LENGTH(sizeof(struct inet_diag_msg));
	struct rtattr *a = (struct rtattr *)(buf + at), *info = NULL;
	size_t alen = len > at ? h->nlmsg_len - at : 0;

	for (; RTA_OK(a, alen); a = RTA_NEXT(a, alen))
		if (a->rta_type == INET_DIAG_INFO)
			info = a;
	if (info == NULL || RTA_PAYLOAD(info) < keep)
		return 0;
	/* The message with only the INFO attribute, cut short. */
	memcpy(out, buf, at);
	a = (struct rtattr *)(out + at);
	memcpy(a, info, RTA_LENGTH(keep));
	a->rta_len = (unsigned short)RTA_LENGTH(keep);
	h = (struct nlmsghdr *)out;
	h->nlmsg_len = (uint32_t)(at + RTA_ALIGN(RTA_LENGTH(keep)));
	done = (struct nlmsghdr *)(out + h->nlmsg_len);
	*done = (struct nlmsghdr){ .nlmsg_len = NLMSG_LENGTH(4), .nlmsg_type = NLMSG_DONE };
	return h->nlmsg_len + NLMSG_ALIGN(done->nlmsg_len);
}

static void old_kernel(void)
{
	static unsigned char buf[4096];
	size_t len = short_info(buf, 104); /* tcp_info up to tcpi_total_retrans (3.x) */
	struct seen s = { 0 };

	ok(len > 0 && inetdiag_parse(buf, len, collect, &s) == 1 && s.n == 1,
	   "a 104-byte tcp_info parses");
	ok(s.n == 1 && tcp_conn_has(&s.c[0], TCPF_RTT) && tcp_conn_has(&s.c[0], TCPF_TOTAL_RETRANS),
	   "fields inside it are there");
	ok(s.n == 1 && !tcp_conn_has(&s.c[0], TCPF_BYTES_ACKED) &&
	   !tcp_conn_has(&s.c[0], TCPF_MIN_RTT) && s.c[0].v[TCPF_BYTES_ACKED] == 0,
	   "fields past its end are absent, not garbage");
	len = short_info(buf, 0);
	s.n = 0;
	ok(len > 0 && inetdiag_parse(buf, len, collect, &s) == 1 && s.n == 1 &&
	   s.c[0].present == 0, "an empty tcp_info gives a row without statistics");
}

static int stop_at_first(const struct tcp_conn *c, void *arg)
{
	(void)c, (void)arg;
	return 7;
}

static void bad_input(void)
{
	static unsigned char buf[4096], copy[4096];
	size_t len = load("ipv4-established.bin", buf, sizeof(buf));
	struct nlmsghdr *h = (struct nlmsghdr *)copy;
	struct seen s = { 0 };
	struct {
		struct nlmsghdr h;
		struct nlmsgerr e;
	} err = { .h = { .nlmsg_len = sizeof(err), .nlmsg_type = NLMSG_ERROR }, .e = { .error = -EPERM } };

	errno = 0;
	ok(inetdiag_parse(buf, 100, collect, &s) == -1 && errno == EBADMSG,
	   "a buffer cut inside the first message is refused");
	memcpy(copy, buf, len);
	h->nlmsg_len = 40; /* shorter than inet_diag_msg */
	errno = 0;
	ok(inetdiag_parse(copy, len, collect, &s) == -1 && errno == EBADMSG,
	   "a message too short for inet_diag_msg is refused");
	memcpy(copy, buf, len);
	h->nlmsg_len = 60000;
	ok(inetdiag_parse(copy, len, collect, &s) == -1 && errno == EBADMSG,
	   "a length past the buffer is refused");
	memcpy(copy, buf, len);
	((struct inet_diag_msg *)NLMSG_DATA(h))->idiag_family = 99;
	ok(inetdiag_parse(copy, len, collect, &s) == -1, "an unknown address family is refused");
	errno = 0;
	ok(inetdiag_parse(&err, sizeof(err), collect, &s) == -1 && errno == EPERM,
	   "NLMSG_ERROR passes the kernel's errno on");
	ok(inetdiag_parse(buf, len, stop_at_first, NULL) == 7, "a callback can stop the walk");
	ok(inetdiag_parse(buf, 0, collect, &s) == 0, "an empty buffer asks for more");
}

static void live(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t alen = sizeof(a);
	int l = socket(AF_INET, SOCK_STREAM, 0), c = socket(AF_INET, SOCK_STREAM, 0), s = -1;
	int fd = inetdiag_open();
	struct seen seen = { 0 };
	uint16_t lport = 0, cport = 0;

	if (l >= 0 && bind(l, (struct sockaddr *)&a, sizeof(a)) == 0 && listen(l, 1) == 0 &&
	    getsockname(l, (struct sockaddr *)&a, &alen) == 0 &&
	    connect(c, (struct sockaddr *)&a, sizeof(a)) == 0) {
		s = accept(l, NULL, NULL);
		lport = ntohs(a.sin_port);
		getsockname(c, (struct sockaddr *)&a, &alen);
		cport = ntohs(a.sin_port);
	}
	ok(fd >= 0 && s >= 0, "a netlink socket and a loopback connection");
	seen.only[0] = lport, seen.only[1] = cport;
	ok(inetdiag_dump(fd, AF_INET, 1u << 1, NULL, 0, collect, &seen) == 0, "a live dump of established sockets");
	ok(by_sport(&seen, cport) && by_sport(&seen, cport)->dport == lport &&
	   by_sport(&seen, lport) && by_sport(&seen, lport)->dport == cport,
	   "both ends of our connection are in it");
	ok(by_sport(&seen, cport) && by_sport(&seen, cport)->uid == getuid(), "with our uid");
	close(c), close(s), close(l), close(fd);
}

/* The kernel runs the filter: a connection's two ports tell its sockets apart. */
static int count_ports(int fd, const struct diag_term *t, size_t n, uint16_t a, uint16_t b)
{
	uint8_t bc[INETDIAG_BC_MAX];
	int len = inetdiag_filter(t, n, bc, sizeof(bc));
	struct seen s = { .only = { a, b } };

	if (len < 0 || inetdiag_dump(fd, AF_INET, 1u << 1, bc, (size_t)len, collect, &s) != 0)
		return -1;
	return s.n;
}

static void filters(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t alen = sizeof(a);
	int l = socket(AF_INET, SOCK_STREAM, 0), c = socket(AF_INET, SOCK_STREAM, 0), s = -1;
	int fd = inetdiag_open();
	uint16_t lp = 0, cp = 0;

	if (bind(l, (struct sockaddr *)&a, sizeof(a)) == 0 && listen(l, 1) == 0 &&
	    getsockname(l, (struct sockaddr *)&a, &alen) == 0 &&
	    connect(c, (struct sockaddr *)&a, sizeof(a)) == 0) {
		s = accept(l, NULL, NULL);
		lp = ntohs(a.sin_port);
		getsockname(c, (struct sockaddr *)&a, &alen);
		cp = ntohs(a.sin_port);
	}
	{
		struct diag_term local = { .side = PORT_LOCAL, .lo = lp, .hi = lp };
		struct diag_term remote = { .side = PORT_REMOTE, .lo = lp, .hi = lp };
		struct diag_term either = { .side = PORT_EITHER, .lo = lp, .hi = lp };
		struct diag_term none = { .side = PORT_EITHER, .lo = 1, .hi = 1 };
		struct diag_term both[2] = { { .side = PORT_LOCAL, .lo = cp, .hi = cp },
					     { .side = PORT_REMOTE, .lo = lp, .hi = lp } };

		ok(count_ports(fd, NULL, 0, lp, cp) == 2, "no filter: both ends");
		ok(count_ports(fd, &local, 1, lp, cp) == 1, "sport=listener: the server end alone");
		ok(count_ports(fd, &remote, 1, lp, cp) == 1, "dport=listener: the client end alone");
		ok(count_ports(fd, &either, 1, lp, cp) == 2, "port=listener: both ends");
		ok(count_ports(fd, &none, 1, lp, cp) == 0, "port=1: neither");
		ok(count_ports(fd, both, 2, lp, cp) == 1, "sport=client and dport=listener: the client end");
	}
	{
		struct diag_term lo8 = { .side = PORT_LOCAL, .family = 4, .prefix = 8, .addr = { 127 } };
		struct diag_term ten = { .side = PORT_REMOTE, .family = 4, .prefix = 8, .addr = { 10 } };
		struct diag_term v6 = { .side = PORT_LOCAL, .family = 6, .prefix = 128, .addr = { [15] = 1 } };
		struct diag_term mix[2] = { { .side = PORT_REMOTE, .lo = lp, .hi = lp },
					    { .side = PORT_LOCAL, .family = 4, .prefix = 32,
					      .addr = { 127, 0, 0, 1 } } };
		struct diag_term bad = { .side = PORT_EITHER, .family = 4, .prefix = 8 };
		uint8_t bc[INETDIAG_BC_MAX];

		ok(count_ports(fd, &lo8, 1, lp, cp) == 2, "local=127.0.0.0/8: both ends");
		ok(count_ports(fd, &ten, 1, lp, cp) == 0, "remote=10.0.0.0/8: neither");
		ok(count_ports(fd, &v6, 1, lp, cp) == 0, "local=::1 on an IPv4 dump: neither");
		ok(count_ports(fd, mix, 2, lp, cp) == 1, "dport=listener and local=127.0.0.1: the client end");
		ok(inetdiag_filter(&bad, 1, bc, sizeof(bc)) == -1, "an address on either end is refused");
	}
	{
		struct diag_term many[INETDIAG_MAX_TERMS + 1];
		uint8_t bc[INETDIAG_BC_MAX];

		memset(many, 0, sizeof(many));
		ok(inetdiag_filter(many, INETDIAG_MAX_TERMS + 1, bc, sizeof(bc)) == -1,
		   "more than %d terms are refused", INETDIAG_MAX_TERMS);
	}
	close(c), close(s), close(l), close(fd);
}

int main(void)
{
	ipv4_fixture();
	ipv6_fixture();
	old_kernel();
	bad_input();
	live();
	filters();
	return done_testing();
}
