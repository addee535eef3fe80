/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * cpustat.c - /proc/stat: the aggregate and per-CPU time lines, context
 * switches, and runnable/blocked task counts.
 *
 * Cut-off input: the kernel ends every line with a newline and procfile_read
 * never returns part of a file (EFBIG instead), so a buffer whose last line
 * has no newline is damaged. We refuse the whole buffer (EINVAL) rather than
 * drop the cut line: a dropped "cpu1" row would make a CPU vanish from the
 * table for one sample, and a dropped "procs_running" would serve 0. A sample
 * is all or nothing, and a refused one leaves the last good snapshot served.
 *
 * Strictness: every number must fit in 64 bits (overflow is refused, never
 * wrapped) and end at a blank or the newline; the aggregate "cpu", "ctxt" and
 * "procs_*" lines may appear once; cpuN lines must come in increasing N as
 * the kernel prints them, so no CPU can get two rows. Older kernels print
 * fewer time columns (2.6.11 has 7, 2.4 has 4): the missing ones read 0.
 * Lines we do not serve (intr, softirq, btime, processes) are not parsed.
 */
#include "collect.h"
#include "parse.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

/* Far above any kernel's NR_CPUS: only a guard against garbage. */
#define CPU_NUMBER_MAX (1u << 20)

enum stat_line {
	SEEN_TOTAL = 1u << 0,
	SEEN_CTXT = 1u << 1,
	SEEN_RUNNING = 1u << 2,
	SEEN_BLOCKED = 1u << 3,
};

static bool at_eol(const char *p)
{
	return *skip_blanks(p) == '\n';
}

/*
 * The time columns. Columns past the eighth (guest, guest_nice: already
 * counted inside user and nice) are not kept but must still be numbers.
 */
static int scan_times(const char *p, struct cpustat_times *t)
{
	uint64_t *field[] = { &t->user, &t->nice, &t->system, &t->idle,
			      &t->iowait, &t->irq, &t->softirq, &t->steal };
	const unsigned nfields = sizeof(field) / sizeof(field[0]);
	uint64_t ignored;
	unsigned n;

	memset(t, 0, sizeof(*t));
	for (n = 0; !at_eol(p); n++)
		if (!scan_u64(&p, n < nfields ? field[n] : &ignored))
			return -1;
	/* user, nice, system and idle exist on every kernel since 2.4. */
	return n >= 4 ? 0 : -1;
}

/* "cpuN ...": one more row, kept in the kernel's increasing order. */
static int parse_cpu_row(const char *p, struct cpustat *out)
{
	struct cpustat_cpu *row;
	uint64_t cpu;

	p += 3;
	if (!scan_u64(&p, &cpu) || cpu > CPU_NUMBER_MAX)
		return EINVAL;
	if (out->ncpu > 0 && cpu <= out->cpus[out->ncpu - 1].cpu)
		return EINVAL;
	if (out->ncpu >= out->cap)
		return E2BIG;
	row = &out->cpus[out->ncpu];
	if (scan_times(p, &row->t) != 0)
		return EINVAL;
	row->cpu = (unsigned)cpu;
	out->ncpu++;
	return 0;
}

/* Lines that may appear once: true the first time, false after. */
static bool claim(unsigned *seen, unsigned line)
{
	if (*seen & line)
		return false;
	*seen |= line;
	return true;
}

/* The aggregate "cpu" line. */
static int parse_total(const char *p, unsigned *seen, struct cpustat_times *t)
{
	return claim(seen, SEEN_TOTAL) && scan_times(p, t) == 0 ? 0 : EINVAL;
}

/* "name N": one number and nothing else on the line. */
static int parse_single(const char *p, unsigned line, unsigned *seen, uint64_t *out)
{
	return claim(seen, line) && scan_u64(&p, out) && at_eol(p) ? 0 : EINVAL;
}

/* One line; 0 or the errno to fail with. */
static int parse_line(const char *p, struct cpustat *out, unsigned *seen)
{
	if (line_is(p, "cpu"))
		return parse_total(p + 3, seen, &out->total);
	if (strncmp(p, "cpu", 3) == 0 && p[3] >= '0' && p[3] <= '9')
		return parse_cpu_row(p, out);
	if (line_is(p, "ctxt"))
		return parse_single(p + 4, SEEN_CTXT, seen, &out->ctxt);
	if (line_is(p, "procs_running"))
		return parse_single(p + 13, SEEN_RUNNING, seen, &out->procs_running);
	if (line_is(p, "procs_blocked"))
		return parse_single(p + 13, SEEN_BLOCKED, seen, &out->procs_blocked);
	return 0;
}

static void reset(struct cpustat *out)
{
	memset(&out->total, 0, sizeof(out->total));
	out->ncpu = 0;
	out->ctxt = out->procs_running = out->procs_blocked = 0;
}

/* Fails with err and leaves no rows a careless caller could serve. */
static int refuse(struct cpustat *out, int err)
{
	out->ncpu = 0;
	errno = err;
	return -1;
}

int cpustat_parse(const char *buf, struct cpustat *out)
{
	const unsigned required = SEEN_TOTAL | SEEN_CTXT;
	unsigned seen = 0;
	const char *p, *nl;

	reset(out);
	for (p = buf; *p != '\0'; p = nl + 1) {
		int err;

		nl = strchr(p, '\n');
		if (nl == NULL)
			return refuse(out, EINVAL); /* cut off: see the top */
		err = parse_line(p, out, &seen);
		if (err != 0)
			return refuse(out, err);
	}
	if ((seen & required) != required)
		return refuse(out, EINVAL);
	return 0;
}
