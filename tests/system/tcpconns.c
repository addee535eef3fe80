/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tcpconns.c - test helper: opens N loopback TCP connections to a listener
 * of its own, sends BYTES bytes over every even-numbered one (read in full
 * by the accepting side), prints one line per connection
 *   "conn CLIENT-PORT SERVER-PORT BYTES-SENT"
 * then "ready", and holds them until SIGTERM or 120 s; it then resets them
 * (SO_LINGER 0), so none lingers in TIME_WAIT.
 *
 * usage: tcpconns 4|6 N BYTES [PORT]   (the listener's port; any free one
 * when absent)
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define MAX_CONNS 20000

static int fds[2 * MAX_CONNS];
static int nfds;

static void reset_all(void)
{
	struct linger lg = { 1, 0 };

	for (int i = 0; i < nfds; i++) {
		setsockopt(fds[i], SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
		close(fds[i]);
	}
}

static void on_term(int sig)
{
	(void)sig;
	reset_all();
	_exit(0);
}

static int port_of(int fd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	getsockname(fd, (struct sockaddr *)&ss, &len);
	return ntohs(ss.ss_family == AF_INET ? ((struct sockaddr_in *)&ss)->sin_port :
					       ((struct sockaddr_in6 *)&ss)->sin6_port);
}

static void die(const char *what)
{
	perror(what);
	reset_all();
	exit(1);
}

int main(int argc, char **argv)
{
	struct sockaddr_storage ss = { 0 };
	socklen_t len;
	int fam, n, bytes, lfd, one = 1, port = 0;
	char *buf;

	if (argc == 5)
		port = atoi(argv[4]);
	if ((argc != 4 && argc != 5) || (n = atoi(argv[2])) < 1 || n > MAX_CONNS ||
	    (bytes = atoi(argv[3])) < 0 || port < 0 || port > 65535) {
		fprintf(stderr, "usage: tcpconns 4|6 N(1..%d) BYTES [PORT]\n", MAX_CONNS);
		return 2;
	}
	fam = strcmp(argv[1], "6") == 0 ? AF_INET6 : AF_INET;
	ss.ss_family = (sa_family_t)fam;
	if (fam == AF_INET) {
		((struct sockaddr_in *)&ss)->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		((struct sockaddr_in *)&ss)->sin_port = htons((uint16_t)port);
	} else {
		((struct sockaddr_in6 *)&ss)->sin6_addr = in6addr_loopback;
		((struct sockaddr_in6 *)&ss)->sin6_port = htons((uint16_t)port);
	}
	len = fam == AF_INET ? sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6);
	signal(SIGTERM, on_term);
	signal(SIGALRM, on_term);
	alarm(120);
	buf = calloc(1, (size_t)bytes + 1);
	lfd = socket(fam, SOCK_STREAM, 0);
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&ss, len) != 0 || listen(lfd, 4096) != 0)
		die("tcpconns: listen");
	getsockname(lfd, (struct sockaddr *)&ss, &len);
	for (int i = 0; i < n; i++) {
		int c = socket(fam, SOCK_STREAM, 0), s, got = 0;

		if (c < 0 || connect(c, (struct sockaddr *)&ss, len) != 0)
			die("tcpconns: connect");
		s = accept(lfd, NULL, NULL);
		if (s < 0)
			die("tcpconns: accept");
		fds[nfds++] = c;
		fds[nfds++] = s;
		if (i % 2 == 0 && bytes > 0) {
			if (write(c, buf, (size_t)bytes) != bytes)
				die("tcpconns: write");
			while (got < bytes) {
				ssize_t r = read(s, buf, (size_t)(bytes - got));

				if (r <= 0)
					die("tcpconns: read");
				got += (int)r;
			}
		}
		printf("conn %d %d %d\n", port_of(c), port_of(lfd), i % 2 == 0 ? bytes : 0);
	}
	close(lfd);
	printf("ready\n");
	fflush(stdout);
	for (;;)
		pause();
}
