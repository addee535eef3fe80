/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * syscalls - make exactly N system calls of one kind, for the probe tests:
 *
 *   syscalls getppid N          N getppid() calls
 *   syscalls nanosleep N USEC   N nanosleep() calls of USEC microseconds
 *
 * Waits for one byte on standard input first, so a test can point a probe
 * at this pid before the calls start. Raw syscall(2): glibc's nanosleep()
 * is clock_nanosleep underneath, which a sys_enter_nanosleep probe would
 * not see.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n = argc >= 3 ? atol(argv[2]) : -1;
	char go;

	if (argc < 3 || n < 0 || (strcmp(argv[1], "getppid") != 0 &&
				  (strcmp(argv[1], "nanosleep") != 0 || argc != 4))) {
		fprintf(stderr, "usage: syscalls getppid N | syscalls nanosleep N USEC\n");
		return 2;
	}
	if (read(0, &go, 1) != 1)
		return 1;
	if (argv[1][0] == 'g') {
		for (long i = 0; i < n; i++)
			syscall(SYS_getppid);
	} else {
		long us = atol(argv[3]);
		struct timespec ts = { .tv_sec = us / 1000000, .tv_nsec = us % 1000000 * 1000 };

		for (long i = 0; i < n; i++)
			syscall(SYS_nanosleep, &ts, NULL);
	}
	return 0;
}
