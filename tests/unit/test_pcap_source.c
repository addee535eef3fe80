/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_pcap_source.c - the pcap source's sample path on a live capture of
 * the loopback interface: 20 UDP datagrams sent here to a port of our own
 * are counted (packets and wire bytes), a second capture configuration
 * replaces the first, and an empty one stops it. Needs CAP_NET_RAW (the
 * suite runs as root); under CI=true its absence fails instead of skipping.
 */
#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "sources/pcap.h"
#include "sources/sources.h"
#include "tap.h"

#define DATAGRAMS 20
#define PAYLOAD 100
/* Ethernet header (loopback has one on Linux) + IPv4 + UDP + payload. */
#define WIRE_BYTES (14 + 20 + 8 + PAYLOAD)

static struct pcap_row last;
static size_t nrows;

static void sample(void *ctx)
{
	struct pcap_snapshot *s;

	pcap_source_ops.sample(ctx);
	s = (struct pcap_snapshot *)snapshot_acquire(pcap_source_ops.slot);
	nrows = s->nrows;
	memset(&last, 0, sizeof(last));
	if (s->nrows > 0)
		last = s->rows[0];
	snapshot_release(pcap_source_ops.slot, &s->hdr);
}

/* Samples until `packets` are counted; gives up after 5 s. A bound on a
 * wait for the capture thread's 100 ms flushes, not a timing judgement. */
static void sample_until(void *ctx, uint64_t packets)
{
	for (int i = 0; i < 100; i++) {
		struct timespec d = { 0, 50 * 1000000 };

		sample(ctx);
		if (last.packets >= packets)
			return;
		nanosleep(&d, NULL);
	}
}

/* A (re)load with one pcapInterface lo line (or none), as the sampler hands
 * it to the source on the source's own thread. */
static void configure(void *ctx, const char *filter)
{
	static struct sources_conf c;

	memset(&c, 0, sizeof(c));
	c.pcap.n = filter != NULL;
	if (filter != NULL) {
		snprintf(c.pcap.iface[0].ifname, sizeof(c.pcap.iface[0].ifname), "lo");
		snprintf(c.pcap.iface[0].filter, sizeof(c.pcap.iface[0].filter), "%s", filter);
	}
	pcap_source_ops.configure(ctx, &c);
}

static void send_datagrams(int rx, uint16_t port)
{
	struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons(port),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	char payload[PAYLOAD] = { 0 }, buf[PAYLOAD];
	int tx = socket(AF_INET, SOCK_DGRAM, 0);

	for (int i = 0; i < DATAGRAMS; i++) {
		if (sendto(tx, payload, sizeof(payload), 0, (struct sockaddr *)&to, sizeof(to)) < 0)
			perror("sendto");
		if (recv(rx, buf, sizeof(buf), 0) < 0)
			perror("recv");
	}
	close(tx);
}

int main(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	int rx = socket(AF_INET, SOCK_DGRAM, 0);
	char filter[64];
	void *ctx;

	if (geteuid() != 0) {
		const char *ci = getenv("CI");

		if (ci != NULL && strcmp(ci, "true") == 0) {
			ok(0, "CI: the pcap source test needs root (CAP_NET_RAW)");
			return done_testing();
		}
		printf("1..0 # SKIP a live capture needs root (CAP_NET_RAW)\n");
		return 0;
	}
	if (rx < 0 || bind(rx, (struct sockaddr *)&a, sizeof(a)) != 0 ||
	    getsockname(rx, (struct sockaddr *)&a, &len) != 0)
		return perror("udp socket"), 1;
	snprintf(filter, sizeof(filter), "udp dst port %u", ntohs(a.sin_port));
	ctx = pcap_source_ops.init("");
	if (!ok(ctx != NULL, "init"))
		return done_testing();
	sample(ctx);
	ok(nrows == 0, "no pcapInterface: no rows");

	configure(ctx, filter);
	sample(ctx);
	ok(nrows == 1 && strcmp(last.ifname, "lo") == 0 && last.ifindex == if_nametoindex("lo"),
	   "a capture on lo after the configuration changed");
	send_datagrams(rx, ntohs(a.sin_port));
	sample_until(ctx, DATAGRAMS);
	is_u64(last.packets, DATAGRAMS, "every datagram to our port counted once");
	is_u64(last.bytes, DATAGRAMS * WIRE_BYTES, "wire bytes: headers and payload");
	ok(last.kernel_drops == 0, "no kernel drops at this rate");

	configure(ctx, "udp dst port 9");
	sample(ctx);
	ok(nrows == 1 && last.packets == 0, "a new filter is a new capture, counted from 0");
	configure(ctx, NULL);
	sample(ctx);
	ok(nrows == 0, "an empty configuration stops the capture");
	pcap_source_ops.fini(ctx);
	close(rx);
	return done_testing();
}
