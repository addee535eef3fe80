/*
 * cpustat.c - /proc/stat: the aggregate and per-CPU time lines, context
 * switches, and runnable/blocked task counts.
 *
 * A line without its newline was cut off (short read, truncated fixture) and
 * is ignored: better a CPU missing for one sample than a row with a number cut
 * in half. Older kernels print fewer time columns; the missing ones read 0.
 */
#include "collect.h"
#include "parse.h"

#include <errno.h>
#include <string.h>

/* Up to 8 times; stops at the end of the line; fails on junk. */
static int scan_times(const char *p, struct cpustat_times *t)
{
	uint64_t *f[] = { &t->user, &t->nice, &t->system, &t->idle,
			  &t->iowait, &t->irq, &t->softirq, &t->steal };
	unsigned n = 0;

	memset(t, 0, sizeof(*t));
	for (; n < 8; n++) {
		p = skip_blanks(p);
		if (*p == '\n')
			break;
		if (!scan_u64(&p, f[n]))
			return -1;
	}
	/* user, nice, system, idle exist on every kernel since 2.4. */
	return n >= 4 ? 0 : -1;
}

static int scan_cpu_number(const char **p, unsigned *cpu)
{
	uint64_t v;

	*p += 3;
	if (!scan_u64(p, &v) || v > 1u << 20)
		return -1;
	*cpu = (unsigned)v;
	return 0;
}

static int scan_counter(const char *p, size_t skip, uint64_t *out)
{
	p += skip;
	return scan_u64(&p, out) ? 0 : -1;
}

static int parse_line(const char *p, struct cpustat *out, bool *have_total, bool *have_ctxt)
{
	struct cpustat_cpu *c;

	if (line_is(p, "cpu")) {
		*have_total = true;
		return scan_times(p + 3, &out->total);
	}
	if (strncmp(p, "cpu", 3) == 0 && p[3] >= '0' && p[3] <= '9') {
		if (out->ncpu >= out->cap) {
			errno = E2BIG;
			return -2;
		}
		c = &out->cpus[out->ncpu];
		if (scan_cpu_number(&p, &c->cpu) != 0 || scan_times(p, &c->t) != 0)
			return -1;
		out->ncpu++;
		return 0;
	}
	if (line_is(p, "ctxt")) {
		*have_ctxt = true;
		return scan_counter(p, 4, &out->ctxt);
	}
	if (line_is(p, "procs_running"))
		return scan_counter(p, 13, &out->procs_running);
	if (line_is(p, "procs_blocked"))
		return scan_counter(p, 13, &out->procs_blocked);
	return 0; /* intr, softirq, btime, processes: not ours */
}

int cpustat_parse(const char *buf, struct cpustat *out)
{
	bool have_total = false, have_ctxt = false;

	out->ncpu = 0;
	out->ctxt = out->procs_running = out->procs_blocked = 0;
	memset(&out->total, 0, sizeof(out->total));
	for (const char *p = buf; p != NULL && *p != '\0'; p = next_line(p)) {
		int rc;

		if (strchr(p, '\n') == NULL)
			break; /* cut off: see above */
		rc = parse_line(p, out, &have_total, &have_ctxt);
		if (rc == -2)
			return -1;
		if (rc != 0) {
			errno = EINVAL;
			return -1;
		}
	}
	if (!have_total || !have_ctxt) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}
