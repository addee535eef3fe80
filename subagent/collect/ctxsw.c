/*
 * ctxsw.c - per-CPU context switches from the kernel's software perf counter.
 * /proc has no per-CPU context-switch count unless CONFIG_SCHEDSTATS is set;
 * the counter exists on every kernel with perf events and costs nothing until
 * read. Opening it system-wide needs CAP_PERFMON (or root): we open at start-up,
 * before dropping privileges, and keep the fds.
 */
#include "collect.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static int open_counter(unsigned cpu)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.type = PERF_TYPE_SOFTWARE;
	attr.size = sizeof(attr);
	attr.config = PERF_COUNT_SW_CONTEXT_SWITCHES;
	return (int)syscall(SYS_perf_event_open, &attr, -1, (int)cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

int ctxsw_open(struct ctxsw *c, unsigned ncpu)
{
	int opened = 0;

	c->fds = malloc(ncpu * sizeof(int));
	c->cap = c->fds ? ncpu : 0;
	for (unsigned cpu = 0; cpu < c->cap; cpu++) {
		c->fds[cpu] = open_counter(cpu);
		if (c->fds[cpu] >= 0)
			opened++;
	}
	return opened > 0 ? opened : -1;
}

int ctxsw_read(const struct ctxsw *c, unsigned cpu, uint64_t *count)
{
	uint64_t v;

	if (cpu >= c->cap || c->fds[cpu] < 0 || read(c->fds[cpu], &v, sizeof(v)) != sizeof(v))
		return -1;
	*count = v;
	return 0;
}

void ctxsw_close(struct ctxsw *c)
{
	for (unsigned cpu = 0; cpu < c->cap; cpu++)
		if (c->fds[cpu] >= 0)
			close(c->fds[cpu]);
	free(c->fds);
	c->fds = NULL;
	c->cap = 0;
}
