/* sensors.c - start and read the scheduler, TCP and drop sensors. */
#include "sensors.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "probes.h"
#include "sched.skel.h"

/* One of the two sched_switch programs: tp_btf with task storage, or raw_tp
 * with a hash of pids. */
static int start_set(struct sensors *s, bool btf, char *why, size_t whylen)
{
	struct sched_bpf *k = sched_bpf__open();
	int err;

	if (k == NULL) {
		snprintf(why, whylen, "opening the scheduler sensors failed: %s", strerror(errno));
		return -1;
	}
	bpf_program__set_autoload(k->progs.on_switch, !btf);
	bpf_program__set_autoload(k->progs.on_switch_btf, btf);
	/* The map the other set uses stays, at its smallest. */
	if (btf)
		bpf_map__set_max_entries(k->maps.seen_delay_by_pid, 1);
	err = sched_bpf__load(k);
	if (err == 0)
		err = sched_bpf__attach(k);
	if (err != 0) {
		snprintf(why, whylen, "starting the scheduler sensors (%s) failed: %s",
			 btf ? "tp_btf" : "raw_tp", strerror(-err));
		sched_bpf__destroy(k);
		return -1;
	}
	s->skel = k;
	s->btf = btf;
	return 0;
}

int sensors_start(struct sensors *s, bool raw_only, char *why, size_t whylen)
{
	if (!raw_only && start_set(s, true, why, whylen) == 0)
		return 0;
	return start_set(s, false, why, whylen);
}

void sensors_stop(struct sensors *s)
{
	sched_bpf__destroy(s->skel);
	s->skel = NULL;
}

/* bpf_ktime_get_ns() is CLOCK_MONOTONIC. */
static __u64 monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000u + (__u64)ts.tv_nsec;
}

/* Busy time includes the stretch the current task has run since the last
 * switch, so a CPU spinning in one task is not read as idle. */
static int report_cpus(const struct sensors *s, FILE *out)
{
	unsigned n = possible_cpus();
	struct cm_sched_cpu *v = calloc(n, sizeof(*v));
	__u32 zero = 0;
	__u64 now;

	if (v == NULL || bpf_map__lookup_elem(s->skel->maps.cpu_state, &zero, sizeof(zero), v,
					      n * sizeof(*v), 0) != 0) {
		free(v);
		return 0;
	}
	now = monotonic_ns();
	fprintf(out, "busy %u", n);
	for (unsigned c = 0; c < n; c++)
		fprintf(out, " %llu", (unsigned long long)(v[c].busy_ns +
			(v[c].running && now > v[c].since ? now - v[c].since : 0)));
	fprintf(out, "\nswitches %u", n);
	for (unsigned c = 0; c < n; c++)
		fprintf(out, " %llu", (unsigned long long)v[c].switches);
	fputc('\n', out);
	free(v);
	return 2;
}

static int report_counts(const struct sensors *s, FILE *out)
{
	unsigned n = possible_cpus();
	struct cm_sensor_counts *v = calloc(n, sizeof(*v)), sum = { 0 };
	__u32 zero = 0;

	if (v == NULL || bpf_map__lookup_elem(s->skel->maps.sensors, &zero, sizeof(zero), v,
					      n * sizeof(*v), 0) != 0) {
		free(v);
		return 0;
	}
	for (unsigned c = 0; c < n; c++) {
		sum.tcp_retransmits += v[c].tcp_retransmits;
		sum.skb_drops += v[c].skb_drops;
		sum.runqlat_lost += v[c].runqlat_lost;
	}
	fprintf(out, "sensors %llu %llu %llu\n", (unsigned long long)sum.tcp_retransmits,
		(unsigned long long)sum.skb_drops, (unsigned long long)sum.runqlat_lost);
	free(v);
	return 1;
}

int sensors_report(const struct sensors *s, FILE *out)
{
	struct cm_hist h;
	int lines;

	if (s->skel == NULL)
		return 0;
	lines = report_cpus(s, out) + report_counts(s, out);
	if (hist_read_map(s->skel->maps.runqlat, &h) == 0) {
		fputs("runqlat", out);
		hist_report(out, &h);
		lines++;
	}
	return lines;
}
