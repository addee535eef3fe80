/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * bench_udp.c - sends 64-byte UDP datagrams to 127.0.0.1:PORT at RATE per
 * second (0: as fast as one sender goes) for SECONDS, in batches of 64
 * with sendmmsg; prints how many it sent and the rate it reached.
 *
 * usage: bench_udp PORT RATE SECONDS
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define BATCH 64
#define PAYLOAD (64 - 14 - 20 - 8) /* 64 bytes on the wire of lo */

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	struct sockaddr_in to = { .sin_family = AF_INET };
	static char payload[PAYLOAD];
	struct mmsghdr msgs[BATCH];
	struct iovec iov = { payload, sizeof(payload) };
	double rate, secs, t0, t;
	unsigned long long sent = 0;
	int fd;

	if (argc != 4) {
		fprintf(stderr, "usage: bench_udp PORT RATE SECONDS\n");
		return 2;
	}
	to.sin_port = htons((uint16_t)atoi(argv[1]));
	to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	rate = atof(argv[2]);
	secs = atof(argv[3]);
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	memset(msgs, 0, sizeof(msgs));
	for (int i = 0; i < BATCH; i++) {
		msgs[i].msg_hdr.msg_name = &to;
		msgs[i].msg_hdr.msg_namelen = sizeof(to);
		msgs[i].msg_hdr.msg_iov = &iov;
		msgs[i].msg_hdr.msg_iovlen = 1;
	}
	t0 = now();
	while ((t = now()) - t0 < secs) {
		int n;

		/* Paced: never ahead of rate * elapsed. */
		if (rate > 0 && sent + BATCH > rate * (t - t0))
			continue;
		n = sendmmsg(fd, msgs, BATCH, 0);
		if (n > 0)
			sent += (unsigned long long)n;
	}
	printf("%llu %.0f\n", sent, sent / (now() - t0));
	return 0;
}
