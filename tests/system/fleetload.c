/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fleetload.c - the known workload of one simulated fleet node
 * (tests/system/fleet-lib.sh): run as PID 1 of the node's PID namespace, it
 * forks a child named "fleetbusy" that burns PERCENT of one CPU, SLEEPERS
 * children that only sleep, and holds CONNS established loopback TCP
 * connections (2 x CONNS established sockets: both ends live here). It
 * exits after SECONDS, and its children with it, so no load outlives a test.
 *
 * usage: fleetload PERCENT CONNS SLEEPERS SECONDS
 *
 * The busy child spins in every 100 ms slot until it has used PERCENT of
 * the slot in CPU time, then sleeps to the slot's end: on an idle machine
 * its share is PERCENT; on a shared one it can only be less, and a slot it
 * lost is not made up later, so the tests compare what the pollers record
 * with what the kernel counted for it (schedstat), not with PERCENT alone.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_CONNS 4096
#define MAX_SLEEPERS 256
#define SLOT_S 0.1

static double clock_s(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static long arg(const char *s, long lo, long hi, const char *what)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi) {
		fprintf(stderr, "fleetload: %s must be %ld..%ld, not '%s'\n", what, lo, hi, s);
		exit(2);
	}
	return v;
}

/* Dies with its parent, so a killed node leaves no spinner behind. */
static void child_setup(const char *name)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	prctl(PR_SET_NAME, name);
}

static void busy(double share, double seconds)
{
	double t0 = clock_s(CLOCK_MONOTONIC);
	volatile unsigned long n = 0;

	child_setup("fleetbusy");
	for (double slot = t0; slot < t0 + seconds; slot += SLOT_S) {
		double c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID), now;

		while ((now = clock_s(CLOCK_MONOTONIC)) < slot + SLOT_S &&
		       clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0 < share * SLOT_S)
			for (int i = 0; i < 20000; i++)
				n++;
		if (now < slot + SLOT_S)
			usleep((useconds_t)((slot + SLOT_S - now) * 1e6));
	}
	_exit(0);
}

static int listener(struct sockaddr_in *sa)
{
	socklen_t len = sizeof(*sa);
	int one = 1, fd = socket(AF_INET, SOCK_STREAM, 0);

	memset(sa, 0, sizeof(*sa));
	sa->sin_family = AF_INET;
	sa->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(fd, (struct sockaddr *)sa, sizeof(*sa)) || listen(fd, MAX_CONNS) ||
	    getsockname(fd, (struct sockaddr *)sa, &len)) {
		perror("fleetload: listener");
		exit(1);
	}
	return fd;
}

static void connect_all(long conns)
{
	struct sockaddr_in sa;
	int lfd = listener(&sa);

	for (long i = 0; i < conns; i++) {
		int c = socket(AF_INET, SOCK_STREAM, 0);

		if (c < 0 || connect(c, (struct sockaddr *)&sa, sizeof(sa)) ||
		    accept(lfd, NULL, NULL) < 0) {
			perror("fleetload: connect");
			exit(1);
		}
	}
	close(lfd);
}

int main(int argc, char **argv)
{
	double share, seconds;
	long conns, sleepers;

	if (argc != 5) {
		fprintf(stderr, "usage: fleetload PERCENT CONNS SLEEPERS SECONDS\n");
		return 2;
	}
	share = (double)arg(argv[1], 0, 100, "PERCENT") / 100.0;
	conns = arg(argv[2], 0, MAX_CONNS, "CONNS");
	sleepers = arg(argv[3], 0, MAX_SLEEPERS, "SLEEPERS");
	seconds = (double)arg(argv[4], 1, 3600, "SECONDS");
	connect_all(conns);
	if (fork() == 0)
		busy(share, seconds);
	for (long i = 0; i < sleepers; i++) {
		if (fork() == 0) {
			child_setup("fleetsleep");
			sleep((unsigned)seconds);
			_exit(0);
		}
	}
	printf("ready\n");
	fflush(stdout);
	/* As PID 1 it also reaps what snmpd and clustermond leave behind. */
	for (double end = clock_s(CLOCK_MONOTONIC) + seconds; clock_s(CLOCK_MONOTONIC) < end;)
		if (waitpid(-1, NULL, WNOHANG) <= 0)
			usleep(100000);
	return 0;
}
