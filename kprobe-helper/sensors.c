/* SPDX-License-Identifier: BSD-2-Clause */
/* sensors.c - start and read the scheduler, TCP and drop sensors. */
#include "sensors.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "core/clock.h"   /* CLOCK_MONOTONIC, as bpf_ktime_get_ns() */
#include "probes.h"
#include "sched.skel.h"

/* One of the two sets of scheduler programs: tp_btf with task storage, or
 * raw_tp with a hash of pids. */
static int start_set(struct sensors *s, bool btf, char *why, size_t whylen)
{
	static const char *const btf_progs[] = { "on_switch_btf", "on_wakeup_btf",
		"on_wakeup_new_btf", "on_fork_btf", "on_exit_btf" };
	static const char *const raw_progs[] = { "on_switch", "on_wakeup", "on_wakeup_new",
		"on_fork", "on_exit" };
	struct sched_bpf *k = sched_bpf__open();
	int err;

	if (k == NULL) {
		snprintf(why, whylen, "opening the scheduler sensors failed: %s", strerror(errno));
		return -1;
	}
	for (size_t i = 0; i < sizeof(btf_progs) / sizeof(btf_progs[0]); i++) {
		bpf_program__set_autoload(bpf_object__find_program_by_name(k->obj, btf_progs[i]),
					  btf);
		bpf_program__set_autoload(bpf_object__find_program_by_name(k->obj, raw_progs[i]),
					  !btf);
	}
	/* Maps a set does not use stay, at their smallest. */
	if (btf)
		bpf_map__set_max_entries(k->maps.queued_at_by_pid, 1);
	k->rodata->per_process = s->per_process;
	if (!s->per_process) {
		bpf_map__set_max_entries(k->maps.proc_acct, 1);
		bpf_map__set_max_entries(k->maps.ran, 1);
	}
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

int sensors_start(struct sensors *s, bool raw_only, bool per_process, char *why,
		  size_t whylen)
{
	s->per_process = per_process;
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
	now = cm_clock_ns();
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
		sum.procs_lost += v[c].procs_lost;
	}
	fprintf(out, "sensors %llu %llu %llu %llu\n", (unsigned long long)sum.tcp_retransmits,
		(unsigned long long)sum.skb_drops, (unsigned long long)sum.runqlat_lost,
		(unsigned long long)sum.procs_lost);
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

/* ------------------------------------------------ per-process accounting */

struct proc_news {
	__u32 tgid, mark;
	struct cm_proc_acct acct;
};

/* Takes one mark out of the ran map: atomically where the kernel can
 * (5.14+ for hashes), else a lookup and a delete (a mark set in between is
 * lost, and set again the next time a thread of the process runs). */
static int take_mark(int fd, __u32 tgid, __u32 *mark)
{
	if (bpf_map_lookup_and_delete_elem(fd, &tgid, mark) == 0)
		return 0;
	if (bpf_map_lookup_elem(fd, &tgid, mark) != 0)
		return -1;
	bpf_map_delete_elem(fd, &tgid);
	return 0;
}

/* The marked tgids with their sums, read before cpu_state (see below). */
static size_t drain_marks(const struct sensors *s, struct proc_news *v, size_t max)
{
	int ran_fd = bpf_map__fd(s->skel->maps.ran), acct_fd = bpf_map__fd(s->skel->maps.proc_acct);
	__u32 *keys = malloc(max * sizeof(*keys)), key, *prev = NULL;
	size_t nkeys = 0, n = 0;

	while (keys != NULL && nkeys < max && bpf_map_get_next_key(ran_fd, prev, &key) == 0) {
		keys[nkeys] = key;
		prev = &keys[nkeys++];
	}
	for (size_t i = 0; i < nkeys; i++) {
		v[n].tgid = keys[i];
		if (take_mark(ran_fd, keys[i], &v[n].mark) != 0)
			continue;
		if (bpf_map_lookup_elem(acct_fd, &keys[i], &v[n].acct) != 0)
			memset(&v[n].acct, 0, sizeof(v[n].acct));
		n++;
	}
	free(keys);
	return n;
}

/* A task on a CPU since `since` has run that long without a switch to
 * account it: added to its process, listed even if it was never switched
 * out since the last drain. The sums were read first, so a switch in
 * between leaves a stretch out (read next time), never counts it twice. */
static size_t add_running(const struct sensors *s, struct proc_news *v, size_t n, size_t max)
{
	unsigned ncpu = possible_cpus();
	struct cm_sched_cpu *c = calloc(ncpu, sizeof(*c));
	int acct_fd = bpf_map__fd(s->skel->maps.proc_acct);
	__u32 zero = 0;
	__u64 now;

	if (c == NULL || bpf_map__lookup_elem(s->skel->maps.cpu_state, &zero, sizeof(zero), c,
					      ncpu * sizeof(*c), 0) != 0) {
		free(c);
		return n;
	}
	now = cm_clock_ns();
	for (unsigned cpu = 0; cpu < ncpu; cpu++) {
		size_t i = 0;

		if (!c[cpu].running || c[cpu].tgid == 0 || now <= c[cpu].since)
			continue;
		while (i < n && v[i].tgid != c[cpu].tgid)
			i++;
		if (i == n) {
			if (n == max)
				continue;
			v[n] = (struct proc_news){ .tgid = c[cpu].tgid, .mark = CM_RAN };
			if (bpf_map_lookup_elem(acct_fd, &v[n].tgid, &v[n].acct) != 0)
				continue;
			n++;
		}
		v[i].acct.cpu_ns += now - c[cpu].since;
	}
	free(c);
	return n;
}

int sensors_report_procs(const struct sensors *s, FILE *out)
{
	size_t max = CM_MAX_PROCS + possible_cpus(), n;
	struct proc_news *v;

	if (s->skel == NULL || !s->per_process || (v = calloc(max, sizeof(*v))) == NULL)
		return 0;
	n = drain_marks(s, v, CM_MAX_PROCS);
	n = add_running(s, v, n, max);
	for (size_t i = 0; i < n; i++)
		fprintf(out, "proc %u %llu %llu %u\n", v[i].tgid,
			(unsigned long long)v[i].acct.cpu_ns,
			(unsigned long long)v[i].acct.run_delay_ns, v[i].mark);
	free(v);
	return (int)n;
}
