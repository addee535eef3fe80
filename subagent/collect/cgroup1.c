/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * cgroup1.c - the v1 controllers (cpu, cpuacct, memory, blkio, pids), each
 * in its own hierarchy or sharing one ("cpu,cpuacct"). Times are already
 * in nanoseconds; memory.stat's total_* figures are used because
 * usage_in_bytes counts the children too.
 */
#include "cgroup.h"
#include "cgvalue.h"
#include "parse.h"

#include <errno.h>
#include <string.h>

static int refuse(void)
{
	errno = EINVAL;
	return -1;
}

int cg1_cpu_stat_parse(const char *buf, struct cgroup_stats *st)
{
	static const struct keyed_field f[] = {
		{ "nr_periods", 0 }, { "nr_throttled", 8 }, { "throttled_time", 16 },
	};
	static const struct keyed_format fmt = { .required = 7u };
	uint64_t v[3];
	unsigned seen;

	if (parse_keyed(buf, f, 3, &fmt, v, sizeof(v), &seen) != 0)
		return refuse();
	st->nr_periods = v[0];
	st->nr_throttled = v[1];
	st->throttled_ns = v[2];
	st->have |= CGS_THROTTLE;
	return 0;
}

int cg1_oom_control_parse(const char *buf, struct cgroup_stats *st)
{
	static const struct keyed_field f[] = { { "oom_kill", 0 } };
	static const struct keyed_format fmt = { .required = 1u };
	uint64_t v;
	unsigned seen;

	if (parse_keyed(buf, f, 1, &fmt, &v, sizeof(v), &seen) != 0)
		return refuse();
	st->oom_kill = v;
	st->have |= CGS_OOM_KILL;
	return 0;
}

int cg1_memory_stat_parse(const char *buf, struct cgroup_stats *st)
{
	static const struct keyed_field f[] = {
		{ "total_rss", 0 }, { "total_cache", 8 }, { "rss", 16 }, { "cache", 24 },
	};
	static const struct keyed_format fmt = { 0 };
	uint64_t v[4];
	unsigned seen;

	if (parse_keyed(buf, f, 4, &fmt, v, sizeof(v), &seen) != 0)
		return refuse();
	if ((seen & 3u) == 3u) {
		st->anon = v[0];
		st->file = v[1];
	} else if ((seen & 12u) == 12u) {
		st->anon = v[2];
		st->file = v[3];
	} else {
		return refuse();
	}
	st->have |= CGS_MEMSTAT;
	return 0;
}

static bool add(uint64_t *sum, uint64_t v)
{
	if (*sum > UINT64_MAX - v)
		return false;
	*sum += v;
	return true;
}

/* "MAJ:MIN OP N" or the closing "Total N". */
static bool blkio_line(const char *p, uint64_t *read, uint64_t *write)
{
	uint64_t v;
	const char *op;
	size_t len;

	if (strncmp(p, "Total ", 6) == 0) {
		p += 6;
		return scan_u64(&p, &v) && *p == '\n';
	}
	if (!cg_scan_dev(&p) || *p++ != ' ')
		return false;
	op = p;
	len = strcspn(op, " \n");
	p = op + len;
	if (*p++ != ' ' || !scan_u64(&p, &v) || *p != '\n')
		return false;
	if (len == 4 && memcmp(op, "Read", 4) == 0)
		return add(read, v);
	if (len == 5 && memcmp(op, "Write", 5) == 0)
		return add(write, v);
	return true;
}

int cg1_blkio_parse(const char *buf, uint64_t *read, uint64_t *write)
{
	*read = *write = 0;
	for (const char *p = buf; *p != '\0'; p = strchr(p, '\n') + 1)
		if (strchr(p, '\n') == NULL || !blkio_line(p, read, write)) {
			*read = *write = 0;
			return refuse();
		}
	return 0;
}

/* The kernel prints "no limit" as PAGE_COUNTER_MAX pages in bytes, just
 * under 2^63 whatever the page size: 2^62 and above means none. */
uint64_t cg1_limit(uint64_t v)
{
	return v >= (1ull << 62) ? CG_UNLIMITED : v;
}

static bool value_of(struct procfile *f, bool allow_max, uint64_t *out, char *buf, size_t cap)
{
	const char *t = cg_text(f, buf, cap);

	return t != NULL && cg_value_parse(t, allow_max, out) == 0;
}

static void read_cpu(struct procfile *f, struct cgroup_stats *st, char *buf, size_t cap)
{
	const char *t;

	if (value_of(&f[CGF_CPUACCT], false, &st->cpu_ns, buf, cap))
		st->have |= CGS_CPU;
	if (value_of(&f[CGF_CPUACCT_USER], false, &st->user_ns, buf, cap) &&
	    value_of(&f[CGF_CPUACCT_SYS], false, &st->system_ns, buf, cap))
		st->have |= CGS_CPU_SPLIT;
	if ((t = cg_text(&f[CGF_CPU_STAT], buf, cap)) != NULL)
		cg1_cpu_stat_parse(t, st);
}

static void read_memory(struct procfile *f, struct cgroup_stats *st, char *buf, size_t cap)
{
	const char *t;

	if (value_of(&f[CGF_MEM_CURRENT], false, &st->mem_current, buf, cap))
		st->have |= CGS_MEM;
	if (value_of(&f[CGF_MEM_PEAK], false, &st->mem_peak, buf, cap))
		st->have |= CGS_MEM_PEAK;
	if (value_of(&f[CGF_MEM_LIMIT], false, &st->mem_limit, buf, cap)) {
		st->mem_limit = cg1_limit(st->mem_limit);
		st->have |= CGS_MEM_LIMIT;
	}
	if ((t = cg_text(&f[CGF_MEM_EVENTS], buf, cap)) != NULL)
		cg1_oom_control_parse(t, st);
	if ((t = cg_text(&f[CGF_MEM_STAT], buf, cap)) != NULL)
		cg1_memory_stat_parse(t, st);
}

void cg1_read(struct procfile *f, struct cgroup_stats *st, char *buf, size_t cap)
{
	const char *t;

	read_cpu(f, st, buf, cap);
	read_memory(f, st, buf, cap);
	if ((t = cg_text(&f[CGF_IO_BYTES], buf, cap)) != NULL &&
	    cg1_blkio_parse(t, &st->rbytes, &st->wbytes) == 0 &&
	    (t = cg_text(&f[CGF_IO_OPS], buf, cap)) != NULL &&
	    cg1_blkio_parse(t, &st->rios, &st->wios) == 0)
		st->have |= CGS_IO;
	if (value_of(&f[CGF_PIDS], false, &st->pids_current, buf, cap))
		st->have |= CGS_PIDS;
	if (value_of(&f[CGF_PIDS_LIMIT], true, &st->pids_limit, buf, cap))
		st->have |= CGS_PIDS_LIMIT;
}
