/* sensors.c - start and read the scheduler, TCP and drop sensors. */
#include "sensors.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "probes.h"
#include "sched.skel.h"

/* One of the two sets of scheduler programs: tp_btf with task storage, or
 * raw_tp with a hash of pids. */
static int start_set(struct sensors *s, bool btf, char *why, size_t whylen)
{
	struct sched_bpf *k = sched_bpf__open();
	int err;

	if (k == NULL) {
		snprintf(why, whylen, "opening the scheduler sensors failed: %s", strerror(errno));
		return -1;
	}
	bpf_program__set_autoload(k->progs.on_switch, !btf);
	bpf_program__set_autoload(k->progs.on_wakeup, !btf);
	bpf_program__set_autoload(k->progs.on_wakeup_new, !btf);
	bpf_program__set_autoload(k->progs.on_switch_btf, btf);
	bpf_program__set_autoload(k->progs.on_wakeup_btf, btf);
	bpf_program__set_autoload(k->progs.on_wakeup_new_btf, btf);
	/* The map the other set uses stays, at its smallest. */
	if (btf)
		bpf_map__set_max_entries(k->maps.queued_at_by_pid, 1);
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

/* Names of the kernel's drop reasons, read from its BTF: they change
 * between kernel versions, so no table of ours could keep up. */
static void load_reason_names(struct sensors *s)
{
	struct btf *btf = btf__load_vmlinux_btf();
	const struct btf_type *t;
	const struct btf_enum *e;
	int id;

	if (btf == NULL)
		return;
	id = btf__find_by_name_kind(btf, "skb_drop_reason", BTF_KIND_ENUM);
	t = id > 0 ? btf__type_by_id(btf, id) : NULL;
	e = t ? btf_enum(t) : NULL;
	for (int i = 0; e != NULL && i < btf_vlen(t); i++) {
		const char *name = btf__name_by_offset(btf, e[i].name_off);

		if (name == NULL || e[i].val < 0 || e[i].val >= CM_DROP_REASONS)
			continue;
		if (strncmp(name, "SKB_DROP_REASON_", 16) == 0)
			name += 16;
		free(s->reason[e[i].val]);
		s->reason[e[i].val] = strdup(name);
	}
	btf__free(btf);
}

int sensors_start(struct sensors *s, bool raw_only, char *why, size_t whylen)
{
	load_reason_names(s);
	if (!raw_only && start_set(s, true, why, whylen) == 0)
		return 0;
	return start_set(s, false, why, whylen);
}

void sensors_stop(struct sensors *s)
{
	for (int i = 0; i < CM_DROP_REASONS; i++) {
		free(s->reason[i]);
		s->reason[i] = NULL;
	}
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

/* One line per reason that dropped something, summed over CPUs. */
static int report_drops(const struct sensors *s, FILE *out)
{
	unsigned n = possible_cpus();
	__u64 *v = calloc(n, sizeof(*v));
	int lines = 0;

	for (__u32 r = 0; v != NULL && r < CM_DROP_REASONS; r++) {
		__u64 sum = 0;

		if (bpf_map__lookup_elem(s->skel->maps.drop_reasons, &r, sizeof(r), v,
					 n * sizeof(*v), 0) != 0)
			break;
		for (unsigned c = 0; c < n; c++)
			sum += v[c];
		if (sum == 0)
			continue;
		fprintf(out, "drop %u %llu %s\n", r, (unsigned long long)sum,
			s->reason[r] ? s->reason[r] : "UNKNOWN");
		lines++;
	}
	free(v);
	return lines;
}

int sensors_report(const struct sensors *s, FILE *out)
{
	struct cm_hist h;
	int lines;

	if (s->skel == NULL)
		return 0;
	lines = report_cpus(s, out) + report_counts(s, out) + report_drops(s, out);
	if (hist_read_map(s->skel->maps.runqlat, &h) == 0) {
		fputs("runqlat", out);
		hist_report(out, &h);
		lines++;
	}
	return lines;
}
