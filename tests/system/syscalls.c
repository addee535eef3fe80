/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * syscalls - make exactly N system calls of one kind, for the probe tests:
 *
 *   syscalls getppid N               N getppid() calls
 *   syscalls nanosleep N USEC [N USEC]...
 *                                    N nanosleep() calls of USEC microseconds,
 *                                    then the next N of the next USEC, ...
 *   syscalls read N BYTES            N read()s of BYTES from /dev/zero
 *
 * Waits for one byte on standard input first, so a test can point a probe
 * at this pid before the calls start. Raw syscall(2): glibc's nanosleep()
 * is clock_nanosleep underneath, which a sys_enter_nanosleep probe would
 * not see.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static int usage(void)
{
	fprintf(stderr, "usage: syscalls getppid N | syscalls nanosleep N USEC [N USEC]... | "
		"syscalls read N BYTES\n");
	return 2;
}

static void sleeps(long n, long us)
{
	struct timespec ts = { .tv_sec = us / 1000000, .tv_nsec = us % 1000000 * 1000 };

	for (long i = 0; i < n; i++)
		syscall(SYS_nanosleep, &ts, NULL);
}

static int reads(long n, long bytes)
{
	static char buf[1 << 20];
	int fd = open("/dev/zero", O_RDONLY);

	if (fd < 0 || bytes < 1 || bytes > (long)sizeof(buf))
		return 1;
	for (long i = 0; i < n; i++)
		if (syscall(SYS_read, fd, buf, (size_t)bytes) != bytes)
			return 1;
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	long n = argc >= 3 ? atol(argv[2]) : -1;
	char go;

	if (argc < 3 || n < 0)
		return usage();
	if (strcmp(argv[1], "getppid") != 0 && (argc < 4 || argc % 2 != 0))
		return usage();
	if (strcmp(argv[1], "getppid") != 0 && strcmp(argv[1], "nanosleep") != 0 &&
	    (strcmp(argv[1], "read") != 0 || argc != 4))
		return usage();
	if (read(0, &go, 1) != 1)
		return 1;
	if (argv[1][0] == 'g') {
		for (long i = 0; i < n; i++)
			syscall(SYS_getppid);
	} else if (argv[1][0] == 'r') {
		return reads(n, atol(argv[3]));
	} else {
		for (int a = 2; a + 1 < argc; a += 2)
			sleeps(atol(argv[a]), atol(argv[a + 1]));
	}
	return 0;
}
