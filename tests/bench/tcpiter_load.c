/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tcpiter_load.c - bench_tcpiter's load: a network namespace of its own,
 * and a child holding SOCKETS/2 loopback connections (both ends) that, on
 * each command, sends 1 kB over K of them, spread evenly, reads it on the
 * other end and waits for the ACKs to settle before it answers, so every
 * reader sees the same counters; or opens a few more connections. The
 * child dies with the parent (PR_SET_PDEATHSIG) or after 600 s (alarm),
 * and the namespace with it.
 */
#include "bench_tcpiter.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define CHUNK 1024
#define SETTLE_US 200000   /* past a delayed ACK (40 ms at most on loopback) */
#define LOAD_TIMEOUT_S 600

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : write(fd, text, strlen(text));

	if (fd >= 0)
		close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

/* A fresh namespace: nobody else's sockets, its own port range. */
int own_netns(void)
{
	struct ifreq ifr = { 0 };
	int fd;

	if (unshare(CLONE_NEWNET) != 0) {
		perror("bench_tcpiter: unshare(CLONE_NEWNET)");
		return -1;
	}
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "lo");
	if (fd < 0 || ioctl(fd, SIOCGIFFLAGS, &ifr) != 0 ||
	    (ifr.ifr_flags |= IFF_UP, ioctl(fd, SIOCSIFFLAGS, &ifr)) != 0) {
		perror("bench_tcpiter: lo up");
		return -1;
	}
	close(fd);
	/* Room for more than 28,000 connections to one listener. */
	return write_file("/proc/sys/net/ipv4/ip_local_port_range", "1024 65000");
}

static int open_pair(int lfd, const struct sockaddr_in *at, int *cl, int *sv)
{
	int one = 1;

	*cl = socket(AF_INET, SOCK_STREAM, 0);
	if (*cl < 0 || connect(*cl, (const struct sockaddr *)at, sizeof(*at)) != 0)
		return -1;
	setsockopt(*cl, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	*sv = accept(lfd, NULL, NULL);
	return *sv < 0 ? -1 : 0;
}

/* Connections from..to-1, to the listener at *at. */
static int open_conns(int lfd, const struct sockaddr_in *at, int from, int to, int *cl, int *sv)
{
	for (int i = from; i < to; i++)
		if (open_pair(lfd, at, &cl[i], &sv[i]) != 0)
			return -1;
	return 0;
}

static int listener(struct sockaddr_in *at)
{
	socklen_t len = sizeof(*at);
	int lfd = socket(AF_INET, SOCK_STREAM, 0);

	at->sin_family = AF_INET;
	at->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)at, len) != 0 || listen(lfd, 4096) != 0 ||
	    getsockname(lfd, (struct sockaddr *)at, &len) != 0)
		return -1;
	return lfd;
}

/* K connections, spread over the n: 1 kB each way's sender to receiver. */
static int move(int n, int k, const int *cl, const int *sv)
{
	static char buf[CHUNK];

	for (int j = 0; j < k && j < n; j++) {
		int i = (int)((long)j * n / k);
		size_t got = 0;

		if (write(cl[i], buf, CHUNK) != CHUNK)
			return -1;
		while (got < CHUNK) {
			ssize_t r = read(sv[i], buf, CHUNK - got);

			if (r <= 0)
				return -1;
			got += (size_t)r;
		}
	}
	usleep(SETTLE_US);
	return 0;
}

/* A command: k > 0 moves k connections, k < 0 opens -k more (the
 * listener stays for that: both readers skip listening sockets). */
static int command(int k, int *n, int lfd, const struct sockaddr_in *at, int *cl, int *sv)
{
	if (k >= 0)
		return move(*n, k, cl, sv);
	if (-k > NEW_CONNS_MAX || open_conns(lfd, at, *n, *n - k, cl, sv) != 0)
		return -1;
	*n -= k;
	usleep(SETTLE_US);
	return 0;
}

static void child(int ctl, int n)
{
	int *cl = calloc((size_t)n + NEW_CONNS_MAX, sizeof(int));
	int *sv = calloc((size_t)n + NEW_CONNS_MAX, sizeof(int));
	struct sockaddr_in at = { 0 };
	int k, ok, lfd;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	alarm(LOAD_TIMEOUT_S);
	lfd = listener(&at);
	ok = cl != NULL && sv != NULL && lfd >= 0 && open_conns(lfd, &at, 0, n, cl, sv) == 0;
	if (!ok)
		perror("bench_tcpiter: connections");
	usleep(SETTLE_US);
	if (write(ctl, &ok, sizeof(ok)) != sizeof(ok) || !ok)
		_exit(1);
	while (read(ctl, &k, sizeof(k)) == sizeof(k)) {
		ok = command(k, &n, lfd, &at, cl, sv) == 0;
		if (write(ctl, &ok, sizeof(ok)) != sizeof(ok))
			break;
	}
	_exit(0);   /* the namespace, and every socket in it, goes with us */
}

int start_load(struct bench *b)
{
	rlim_t fds = (rlim_t)b->sockets + 2 * NEW_CONNS_MAX + 256;
	struct rlimit r = { fds, fds };
	int sv[2], ok = 0;

	if (setrlimit(RLIMIT_NOFILE, &r) != 0 || socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) {
		perror("bench_tcpiter: fds");
		return -1;
	}
	b->child = fork();
	if (b->child < 0)
		return -1;
	if (b->child == 0) {
		close(sv[0]);
		child(sv[1], b->sockets / 2);
	}
	close(sv[1]);
	b->ctl = sv[0];
	if (read(b->ctl, &ok, sizeof(ok)) != sizeof(ok) || !ok) {
		fprintf(stderr, "bench_tcpiter: the load did not open %d connections\n",
			b->sockets / 2);
		return -1;
	}
	return 0;
}

int move_conns(struct bench *b, int conns)
{
	int ok = 0;

	if (write(b->ctl, &conns, sizeof(conns)) != sizeof(conns) ||
	    read(b->ctl, &ok, sizeof(ok)) != sizeof(ok) || !ok) {
		fprintf(stderr, "bench_tcpiter: the load did not %s %d connections\n",
			conns < 0 ? "open" : "move", conns < 0 ? -conns : conns);
		return -1;
	}
	return 0;
}

void stop_load(struct bench *b)
{
	close(b->ctl);
	waitpid(b->child, NULL, 0);
}
