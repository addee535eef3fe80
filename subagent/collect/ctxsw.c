/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ctxsw.c - per-CPU context switches from the kernel's software perf counter.
 * /proc has no per-CPU context-switch count unless CONFIG_SCHEDSTATS is set;
 * the counter exists on every kernel with perf events and costs nothing until
 * read. Opening it system-wide needs CAP_PERFMON (or root, or
 * perf_event_paranoid <= 0): we open at start-up, before dropping
 * privileges, and keep the fds.
 *
 * Counts are per fd and start at 0 when opened, so a reopened counter goes
 * backwards: callers feed them through a mono_counter (core/counter.h).
 */
#include "collect.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* A system-wide (pid -1) counting event on one CPU; fd or -1 with errno. */
static int open_counter(unsigned cpu)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.type = PERF_TYPE_SOFTWARE;
	attr.size = sizeof(attr);
	attr.config = PERF_COUNT_SW_CONTEXT_SWITCHES;
	return (int)syscall(SYS_perf_event_open, &attr, -1, (int)cpu, -1,
			    PERF_FLAG_FD_CLOEXEC);
}

/*
 * The error to report when nothing opened. Offline CPUs fail with ENODEV
 * whatever the permissions, so a permission error elsewhere says more.
 */
static int worse_error(int have, int err)
{
	return have == 0 || have == ENODEV ? err : have;
}

int ctxsw_open(struct ctxsw *c, unsigned ncpu)
{
	int opened = 0, err = 0;

	c->cap = 0;
	c->fds = NULL;
	if (ncpu == 0) {
		errno = EINVAL;
		return -1;
	}
	c->fds = calloc(ncpu, sizeof(*c->fds));
	if (c->fds == NULL)
		return -1;
	c->cap = ncpu;
	for (unsigned cpu = 0; cpu < ncpu; cpu++) {
		c->fds[cpu] = open_counter(cpu);
		if (c->fds[cpu] >= 0)
			opened++;
		else
			err = worse_error(err, errno);
	}
	if (opened > 0)
		return opened;
	ctxsw_close(c);
	errno = err;
	return -1;
}

int ctxsw_read(const struct ctxsw *c, unsigned cpu, uint64_t *count)
{
	uint64_t v;
	ssize_t n;

	if (c->fds == NULL || cpu >= c->cap || c->fds[cpu] < 0) {
		errno = ENODEV;
		return -1;
	}
	do
		n = read(c->fds[cpu], &v, sizeof(v));
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t)sizeof(v)) {
		if (n >= 0)
			errno = EIO;
		return -1;
	}
	*count = v;
	return 0;
}

/* Safe to call twice and on a set that never opened. */
void ctxsw_close(struct ctxsw *c)
{
	for (unsigned cpu = 0; c->fds != NULL && cpu < c->cap; cpu++)
		if (c->fds[cpu] >= 0)
			close(c->fds[cpu]);
	free(c->fds);
	c->fds = NULL;
	c->cap = 0;
}
