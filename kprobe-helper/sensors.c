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

int sensors_start(struct sensors *s, char *why, size_t whylen)
{
	int err;

	s->skel = sched_bpf__open_and_load();
	if (s->skel == NULL) {
		snprintf(why, whylen, "loading the scheduler sensors failed: %s", strerror(errno));
		return -1;
	}
	err = sched_bpf__attach(s->skel);
	if (err != 0) {
		snprintf(why, whylen, "attaching the scheduler sensors failed: %s",
			 strerror(-err));
		sensors_stop(s);
		return -1;
	}
	return 0;
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
