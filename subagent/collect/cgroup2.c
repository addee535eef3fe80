/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * cgroup2.c - the unified hierarchy (cgroup v2): cpu.stat, memory.*,
 * io.stat, pids.* and the PSI files of one cgroup. Times come in
 * microseconds and are served in nanoseconds.
 */
#include "cgroup.h"
#include "cgvalue.h"
#include "parse.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>

static int refuse(void)
{
	errno = EINVAL;
	return -1;
}

/* usec -> ns, refusing what 64 bits cannot hold. */
static bool us_to_ns(uint64_t us, uint64_t *ns)
{
	if (us > UINT64_MAX / 1000)
		return false;
	*ns = us * 1000;
	return true;
}

struct cpu_stat_v2 {
	uint64_t usage, user, system, periods, throttled, throttled_us;
};

int cg2_cpu_stat_parse(const char *buf, struct cgroup_stats *st)
{
#define F(n, m) { n, offsetof(struct cpu_stat_v2, m) }
	static const struct keyed_field fields[] = {
		F("usage_usec", usage), F("user_usec", user), F("system_usec", system),
		F("nr_periods", periods), F("nr_throttled", throttled),
		F("throttled_usec", throttled_us),
	};
#undef F
	static const struct keyed_format fmt = { .required = 1u };
	struct cpu_stat_v2 c;
	unsigned seen;

	if (parse_keyed(buf, fields, 6, &fmt, &c, sizeof(c), &seen) != 0 ||
	    !us_to_ns(c.usage, &st->cpu_ns) || !us_to_ns(c.user, &st->user_ns) ||
	    !us_to_ns(c.system, &st->system_ns) || !us_to_ns(c.throttled_us, &st->throttled_ns))
		return refuse();
	st->have |= CGS_CPU;
	if ((seen & 6u) == 6u)
		st->have |= CGS_CPU_SPLIT;
	if ((seen & 56u) == 56u) {
		st->nr_periods = c.periods;
		st->nr_throttled = c.throttled;
		st->have |= CGS_THROTTLE;
	}
	return 0;
}

int cg2_memory_events_parse(const char *buf, struct cgroup_stats *st)
{
	/* parse_keyed zeroes what it fills: a pair of its own, then copied. */
	static const struct keyed_field pair[] = { { "oom", 0 }, { "oom_kill", sizeof(uint64_t) } };
	static const struct keyed_format fmt = { .required = 3u };
	uint64_t v[2];
	unsigned seen;

	if (parse_keyed(buf, pair, 2, &fmt, v, sizeof(v), &seen) != 0)
		return refuse();
	st->oom = v[0];
	st->oom_kill = v[1];
	st->have |= CGS_OOM | CGS_OOM_KILL;
	return 0;
}

int cg2_memory_stat_parse(const char *buf, struct cgroup_stats *st)
{
	static const struct keyed_field pair[] = { { "anon", 0 }, { "file", sizeof(uint64_t) } };
	static const struct keyed_format fmt = { .required = 3u };
	uint64_t v[2];
	unsigned seen;

	if (parse_keyed(buf, pair, 2, &fmt, v, sizeof(v), &seen) != 0)
		return refuse();
	st->anon = v[0];
	st->file = v[1];
	st->have |= CGS_MEMSTAT;
	return 0;
}

/* One "key=N" of an io.stat line into its sum; keys we do not serve
 * (dbytes, dios, and whatever later kernels add) are checked and skipped. */
static bool io_word(const char **p, uint64_t sums[4])
{
	static const char *const keys[4] = { "rbytes", "wbytes", "rios", "wios" };
	const char *s = *p, *eq = s;
	uint64_t v;
	int k = -1;

	while (*eq != '\0' && *eq != '=' && *eq != ' ' && *eq != '\n')
		eq++;
	if (*eq != '=' || eq == s)
		return false;
	for (int i = 0; i < 4; i++)
		if ((size_t)(eq - s) == strlen(keys[i]) && memcmp(s, keys[i], (size_t)(eq - s)) == 0)
			k = i;
	s = eq + 1;
	if (!scan_u64(&s, &v) || (*s != ' ' && *s != '\n'))
		return false;
	if (k >= 0) {
		if (sums[k] > UINT64_MAX - v)
			return false;
		sums[k] += v;
	}
	*p = s;
	return true;
}

/* "MAJ:MIN" then words up to the newline. */
static bool io_line(const char *p, uint64_t sums[4])
{
	if (!cg_scan_dev(&p))
		return false;
	for (;;) {
		const char *s = skip_blanks(p);

		if (*s == '\n')
			return true;
		if (s == p || !io_word(&s, sums))
			return false;
		p = s;
	}
}

int cg2_io_stat_parse(const char *buf, struct cgroup_stats *st)
{
	uint64_t sums[4] = { 0 };

	for (const char *p = buf; *p != '\0'; p = strchr(p, '\n') + 1)
		if (strchr(p, '\n') == NULL || !io_line(p, sums))
			return refuse();
	st->rbytes = sums[0];
	st->wbytes = sums[1];
	st->rios = sums[2];
	st->wios = sums[3];
	st->have |= CGS_IO;
	return 0;
}

static void read_value(struct procfile *f, bool allow_max, uint64_t *out, uint32_t bit,
		       struct cgroup_stats *st, char *buf, size_t cap)
{
	const char *t = cg_text(f, buf, cap);

	if (t != NULL && cg_value_parse(t, allow_max, out) == 0)
		st->have |= bit;
}

static void read_psi(struct procfile *f, struct pressure *p, uint32_t bit,
		     struct cgroup_stats *st, char *buf, size_t cap)
{
	const char *t = cg_text(f, buf, cap);

	if (t != NULL && pressure_parse(t, p) == 0)
		st->have |= bit;
}

void cg2_read(struct procfile *f, struct cgroup_stats *st, char *buf, size_t cap)
{
	const char *t;

	if ((t = cg_text(&f[CGF_CPU_STAT], buf, cap)) != NULL)
		cg2_cpu_stat_parse(t, st);
	if ((t = cg_text(&f[CGF_MEM_EVENTS], buf, cap)) != NULL)
		cg2_memory_events_parse(t, st);
	if ((t = cg_text(&f[CGF_MEM_STAT], buf, cap)) != NULL)
		cg2_memory_stat_parse(t, st);
	if ((t = cg_text(&f[CGF_IO_BYTES], buf, cap)) != NULL)
		cg2_io_stat_parse(t, st);
	read_value(&f[CGF_MEM_CURRENT], false, &st->mem_current, CGS_MEM, st, buf, cap);
	read_value(&f[CGF_MEM_PEAK], false, &st->mem_peak, CGS_MEM_PEAK, st, buf, cap);
	read_value(&f[CGF_MEM_LIMIT], true, &st->mem_limit, CGS_MEM_LIMIT, st, buf, cap);
	read_value(&f[CGF_PIDS], false, &st->pids_current, CGS_PIDS, st, buf, cap);
	read_value(&f[CGF_PIDS_LIMIT], true, &st->pids_limit, CGS_PIDS_LIMIT, st, buf, cap);
	read_psi(&f[CGF_PSI_CPU], &st->psi_cpu, CGS_PSI_CPU, st, buf, cap);
	read_psi(&f[CGF_PSI_MEM], &st->psi_mem, CGS_PSI_MEM, st, buf, cap);
	read_psi(&f[CGF_PSI_IO], &st->psi_io, CGS_PSI_IO, st, buf, cap);
}
