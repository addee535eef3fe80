/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * cpu.c - the "cpu" source: /proc/stat per CPU, per-CPU context switches,
 * and CPU/IO pressure, turned into a cpu_snapshot.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../collect/collect.h"
#include "common/clock.h"
#include "../core/counter.h"
#include "cpu.h"
#include "../runtime/dist.h"

static struct snapshot_slot cpu_slot = SNAPSHOT_SLOT_INIT;

/* What we remember of one CPU between samples. */
struct cpu_track {
	bool seen;                 /* prev is valid */
	struct cpustat_times prev; /* raw ticks of the last sample */
	uint32_t util;             /* the last interval's utilisation */
	struct mono_counter ms[CPU_TIME_KINDS];
	struct mono_counter ctxsw;
};

struct cpu_source {
	struct procfile stat, psi_cpu, psi_io;
	char *buf;
	size_t bufcap;
	struct cpustat raw;
	struct cpu_track *track;
	unsigned ntrack;
	struct cpustat_times prev_total;
	bool have_prev_total;
	uint32_t total_util;
	struct ctxsw ctxsw;
	uint64_t ctxsw_read_ns; /* when the counters were last read */
	unsigned util_dist;     /* distribution cpu.util */
	unsigned hz;
};

/*
 * Reading a perf counter that lives on another CPU costs an inter-processor
 * interrupt there (smp_call_function_single): at 100 Hz on every CPU that is
 * most of a sample's cost and disturbs the CPUs we measure. Context-switch
 * counts are read at most once a second; between reads the row keeps its
 * last count, which stays monotonic.
 */
#define CTXSW_REFRESH_NS 1000000000ull

static void cpu_fini(void *ctx)
{
	struct cpu_source *cs = ctx;

	if (cs == NULL)
		return;
	procfile_close(&cs->stat);
	procfile_close(&cs->psi_cpu);
	procfile_close(&cs->psi_io);
	ctxsw_close(&cs->ctxsw);
	free(cs->buf);
	free(cs->raw.cpus);
	free(cs->track);
	free(cs);
}

static void *cpu_init(const char *root)
{
	struct cpu_source *cs = calloc(1, sizeof(*cs));
	long possible = sysconf(_SC_NPROCESSORS_CONF);

	if (cs == NULL)
		return NULL;
	cs->stat.fd = cs->psi_cpu.fd = cs->psi_io.fd = -1;
	cs->hz = (unsigned)sysconf(_SC_CLK_TCK);
	/* Every interval's total busy share, in hundredths (0..10000 fits 15 buckets). */
	cs->util_dist = dist_register("cpu.util", "hundredths", 15);
	cs->bufcap = 64 * 1024;
	cs->raw.cap = possible > 0 ? (unsigned)possible : 1;
	cs->buf = malloc(cs->bufcap);
	cs->raw.cpus = calloc(cs->raw.cap, sizeof(*cs->raw.cpus));
	if (cs->buf == NULL || cs->raw.cpus == NULL ||
	    procfile_open(&cs->stat, root, "proc/stat") != 0) {
		cpu_fini(cs);
		return NULL;
	}
	/* Optional files: absent pressure is served as absent, not as zero. */
	procfile_open(&cs->psi_cpu, root, "proc/pressure/cpu");
	procfile_open(&cs->psi_io, root, "proc/pressure/io");
	/* Per-CPU context switches only make sense for the live kernel. */
	if (root[0] == '\0' || strcmp(root, "/") == 0)
		ctxsw_open(&cs->ctxsw, cs->raw.cap);
	return cs;
}

/* Reads a whole kept-open file, growing the buffer for big /proc/stat files. */
static int read_grow(struct procfile *pf, char **buf, size_t *cap)
{
	for (;;) {
		char *bigger;

		if (procfile_read(pf, *buf, *cap) >= 0)
			return 0;
		if (errno != EFBIG || *cap >= 16u << 20)
			return -1;
		bigger = realloc(*buf, *cap * 2);
		if (bigger == NULL)
			return -1;
		*buf = bigger;
		*cap *= 2;
	}
}

static int parse_stat_grow(struct cpu_source *cs)
{
	for (;;) {
		struct cpustat_cpu *bigger;

		if (cpustat_parse(cs->buf, &cs->raw) == 0)
			return 0;
		if (errno != E2BIG || cs->raw.cap >= 65536)
			return -1;
		bigger = realloc(cs->raw.cpus, 2 * cs->raw.cap * sizeof(*bigger));
		if (bigger == NULL)
			return -1;
		cs->raw.cpus = bigger;
		cs->raw.cap *= 2;
	}
}

static struct cpu_track *track_for(struct cpu_source *cs, unsigned cpu)
{
	if (cpu >= cs->ntrack) {
		unsigned n = cpu + 1 > 2 * cs->ntrack ? cpu + 1 : 2 * cs->ntrack;
		struct cpu_track *t = realloc(cs->track, n * sizeof(*t));

		if (t == NULL)
			return NULL;
		memset(t + cs->ntrack, 0, (n - cs->ntrack) * sizeof(*t));
		cs->track = t;
		cs->ntrack = n;
	}
	return &cs->track[cpu];
}

static uint64_t times_total(const struct cpustat_times *t)
{
	return t->user + t->nice + t->system + t->idle + t->iowait + t->irq +
	       t->softirq + t->steal;
}

static uint64_t times_idle(const struct cpustat_times *t)
{
	return t->idle + t->iowait;
}

/* Busy share between two raw samples; a counter that went backwards (CPU
 * offline and back) yields 0 rather than a nonsense figure. */
static uint32_t util_between(const struct cpustat_times *prev, const struct cpustat_times *cur)
{
	uint64_t t0 = times_total(prev), t1 = times_total(cur);
	uint64_t i0 = times_idle(prev), i1 = times_idle(cur);

	if (t1 < t0 || i1 < i0 || t1 - t0 < i1 - i0)
		return 0;
	return util_hundredths((t1 - t0) - (i1 - i0), t1 - t0);
}

/* The first sample has no earlier one: it measures from boot, as vmstat's
 * and mpstat's first report do, rather than serve a busy CPU as idle. */
static const struct cpustat_times since_boot;

/*
 * The kernel counts CPU time in ticks: two samples less than a tick apart
 * (10 ms sampling, or a wake from idle right beside a timed sample) see no
 * time pass, which says nothing about how busy the CPU was. Such a sample
 * keeps the last utilisation and measures the next from the older one.
 */
static bool ticked(const struct cpustat_times *prev, const struct cpustat_times *cur)
{
	return times_total(cur) != times_total(prev);
}

static void fill_row(struct cpu_source *cs, const struct cpustat_cpu *in,
		     struct cpu_track *tr, struct cpu_row *row, bool read_ctxsw)
{
	const uint64_t raw[CPU_TIME_KINDS] = {
		in->t.user, in->t.nice, in->t.system, in->t.idle,
		in->t.iowait, in->t.irq, in->t.softirq, in->t.steal,
	};
	uint64_t ctx;

	row->cpu = in->cpu;
	for (int k = 0; k < CPU_TIME_KINDS; k++) {
		mono_counter_feed(&tr->ms[k], ticks_to_ms(raw[k], cs->hz), NULL);
		row->ms[k] = tr->ms[k].value;
	}
	if (!tr->seen || ticked(&tr->prev, &in->t)) {
		tr->util = util_between(tr->seen ? &tr->prev : &since_boot, &in->t);
		tr->prev = in->t;
		tr->seen = true;
	}
	row->util = tr->util;
	if (read_ctxsw && ctxsw_read(&cs->ctxsw, in->cpu, &ctx) == 0)
		mono_counter_feed(&tr->ctxsw, ctx, NULL);
	row->have_ctxsw = tr->ctxsw.primed;
	row->ctxsw = tr->ctxsw.value;
}

static void read_psi(struct cpu_source *cs, struct procfile *pf, struct psi_avgs *out)
{
	struct pressure p;

	memset(out, 0, sizeof(*out));
	if (pf->fd < 0 || read_grow(pf, &cs->buf, &cs->bufcap) != 0 ||
	    pressure_parse(cs->buf, &p) != 0 || !p.have_some)
		return;
	out->present = true;
	out->some10 = p.some.avg10;
	out->some60 = p.some.avg60;
	out->some300 = p.some.avg300;
	out->full10 = p.have_full ? p.full.avg10 : 0;
}

static void cpu_snapshot_destroy(struct snapshot *s)
{
	free(s);
}

static int compare_rows(const void *a, const void *b)
{
	const struct cpu_row *x = a, *y = b;

	return (x->cpu > y->cpu) - (x->cpu < y->cpu);
}

static int cpu_sample(void *ctx)
{
	struct cpu_source *cs = ctx;
	struct cpu_snapshot *snap;
	uint64_t now = cm_clock_ns();
	bool read_ctxsw = cs->ctxsw_read_ns == 0 || now - cs->ctxsw_read_ns >= CTXSW_REFRESH_NS;

	if (read_ctxsw)
		cs->ctxsw_read_ns = now;
	if (read_grow(&cs->stat, &cs->buf, &cs->bufcap) != 0 || parse_stat_grow(cs) != 0)
		return -1;
	snap = calloc(1, sizeof(*snap) + cs->raw.ncpu * sizeof(snap->rows[0]));
	if (snap == NULL)
		return -1;
	snap->hdr.refs = 1;
	snap->hdr.destroy = cpu_snapshot_destroy;
	for (unsigned i = 0; i < cs->raw.ncpu; i++) {
		struct cpu_track *tr = track_for(cs, cs->raw.cpus[i].cpu);

		if (tr == NULL) {
			free(snap);
			return -1;
		}
		fill_row(cs, &cs->raw.cpus[i], tr, &snap->rows[snap->ncpu++], read_ctxsw);
	}
	qsort(snap->rows, snap->ncpu, sizeof(snap->rows[0]), compare_rows);
	if (!cs->have_prev_total || ticked(&cs->prev_total, &cs->raw.total)) {
		cs->total_util = util_between(cs->have_prev_total ? &cs->prev_total : &since_boot,
					      &cs->raw.total);
		if (cs->have_prev_total)
			dist_add(cs->util_dist, cs->total_util);
		cs->prev_total = cs->raw.total;
		cs->have_prev_total = true;
	}
	snap->total_util = cs->total_util;
	snap->ctxt = cs->raw.ctxt;
	snap->procs_running = (uint32_t)cs->raw.procs_running;
	snap->procs_blocked = (uint32_t)cs->raw.procs_blocked;
	read_psi(cs, &cs->psi_cpu, &snap->psi_cpu);
	read_psi(cs, &cs->psi_io, &snap->psi_io);
	snapshot_publish(&cpu_slot, &snap->hdr);
	return 0;
}

const struct source_ops cpu_source_ops = {
	.index = SOURCE_CPU,
	.name = "cpu",
	.slot = &cpu_slot,
	.default_interval_ms = 100,
	.init = cpu_init,
	.sample = cpu_sample,
	.fini = cpu_fini,
};
