/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * bench_trap.c - how long from a CPU going busy to clustermond's rising
 * trap reaching a receiver, next to how long a poller reading /proc/stat
 * every millisecond needs to see the same 100 ms window go above the level.
 *
 * usage: bench_trap PORT CPU ROUNDS
 * The master must send v2c traps to 127.0.0.1:PORT and a threshold row on
 * clusterMonCpuUtil of CPU (rising 8000, falling 2000, 100 ms, startup
 * rising) must exist. Each round pins a busy child to CPU, waits for the
 * rising trap, stops the child and waits for the falling one; then the
 * same busy start is timed against the /proc/stat poller.
 */
#include <arpa/inet.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* BER of .1.3.6.1.4.1.8072.9999.77.0 (clusterMonNotifications) */
static const unsigned char notif[] = { 0x2b, 6, 1, 4, 1, 0xbf, 0x08, 0xce, 0x0f, 0x4d, 0 };

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static pid_t spin_on(int cpu)
{
	pid_t pid = fork();

	if (pid == 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		sched_setaffinity(0, sizeof(set), &set);
		alarm(30); /* bounded whatever happens to the parent */
		for (;;)
			;
	}
	return pid;
}

static void stop(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* Waits for clusterMonNotifications.which; -1 after timeout_ms. */
static double wait_trap(int fd, int which, int timeout_ms)
{
	double end = now_ms() + timeout_ms;
	unsigned char buf[2048];

	while (now_ms() < end) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t n;

		if (poll(&p, 1, (int)(end - now_ms()) + 1) <= 0)
			continue;
		n = recv(fd, buf, sizeof(buf), 0);
		for (ssize_t i = 0; i + (ssize_t)sizeof(notif) < n; i++)
			if (memcmp(buf + i, notif, sizeof(notif)) == 0 && buf[i + sizeof(notif)] == which)
				return now_ms();
	}
	return -1;
}

/* busy and total jiffies of one CPU */
static int cpu_ticks(int cpu, unsigned long long *busy, unsigned long long *total)
{
	char name[16], line[512];
	unsigned long long v[8] = { 0 };
	FILE *f = fopen("/proc/stat", "r");
	int found = 0;

	snprintf(name, sizeof(name), "cpu%d ", cpu);
	while (f && fgets(line, sizeof(line), f))
		if (strncmp(line, name, strlen(name)) == 0 &&
		    sscanf(line + strlen(name), "%llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1],
			   &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) == 8)
			found = 1;
	if (f)
		fclose(f);
	*total = v[0] + v[1] + v[2] + v[3] + v[4] + v[5] + v[6] + v[7];
	*busy = *total - v[3] - v[4];
	return found ? 0 : -1;
}

/* The /proc/stat poller: ms until a 100 ms window shows >= 80 % busy. */
static double direct_detection(int cpu)
{
	enum { WINDOW = 100 };
	unsigned long long b[WINDOW], t[WINDOW];
	struct timespec ms = { 0, 1000000 };
	double t0, end;
	pid_t pid;
	int i = 0;

	for (int k = 0; k < WINDOW; k++) {
		cpu_ticks(cpu, &b[k], &t[k]);
		nanosleep(&ms, NULL);
	}
	t0 = now_ms();
	pid = spin_on(cpu);
	end = t0 + 3000;
	while (now_ms() < end) {
		unsigned long long busy, total;
		int old = i % WINDOW;

		cpu_ticks(cpu, &busy, &total);
		if (total > t[old] && (busy - b[old]) * 100 >= 80 * (total - t[old])) {
			double dt = now_ms() - t0;

			stop(pid);
			return dt;
		}
		b[old] = busy, t[old] = total;
		i++;
		nanosleep(&ms, NULL);
	}
	stop(pid);
	return -1;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	double trap[64], direct[64];
	int fd, cpu, rounds, ok = 0;

	if (argc != 4 || (rounds = atoi(argv[3])) < 1 || rounds > 64) {
		fprintf(stderr, "usage: bench_trap PORT CPU ROUNDS(1..64)\n");
		return 2;
	}
	cpu = atoi(argv[2]);
	sa.sin_port = htons((uint16_t)atoi(argv[1]));
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		perror("bench_trap: bind");
		return 1;
	}
	for (int r = 0; r < rounds; r++) {
		double t0, t1;
		pid_t pid;

		unsigned char junk[2048];

		sleep(1); /* CPU quiet, the threshold re-armed by its falling trap */
		/* Traps the poller's busy loop caused are not this round's. */
		while (recv(fd, junk, sizeof(junk), MSG_DONTWAIT) > 0)
			;
		t0 = now_ms();
		pid = spin_on(cpu);
		t1 = wait_trap(fd, 1, 3000);
		stop(pid);
		if (t1 < 0 || wait_trap(fd, 2, 3000) < 0) {
			fprintf(stderr, "bench_trap: round %d: no %s trap\n", r + 1,
				t1 < 0 ? "rising" : "falling");
			continue;
		}
		trap[ok] = t1 - t0;
		direct[ok] = direct_detection(cpu);
		printf("round %2d: trap %6.1f ms, /proc/stat poller %6.1f ms\n", r + 1, trap[ok],
		       direct[ok]);
		ok++;
	}
	if (ok == 0)
		return 1;
	qsort(trap, (size_t)ok, sizeof(double), cmp);
	qsort(direct, (size_t)ok, sizeof(double), cmp);
	printf("trap latency median %.1f ms over %d crossings (target < 250 ms); "
	       "/proc/stat poller median %.1f ms; ratio %.2f\n",
	       trap[ok / 2], ok, direct[ok / 2], trap[ok / 2] / direct[ok / 2]);
	return ok == rounds ? 0 : 1;
}
