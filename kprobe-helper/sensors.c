/* SPDX-License-Identifier: BSD-2-Clause */
/* sensors.c - start and read the scheduler, TCP and drop sensors. */
#include "sensors.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "core/clock.h"   /* CLOCK_MONOTONIC, as bpf_ktime_get_ns() */
#include "probes.h"
#include "ranlist.h"
#include "sched.skel.h"

/* A slot per possible pid (pid_max rounded up to a power of two), at most
 * CM_MAX_PROC_SLOTS: above that, processes sharing a slot spill. */
static size_t proc_slots_wanted(void)
{
	FILE *f = fopen("/proc/sys/kernel/pid_max", "r");
	unsigned long pid_max = CM_MAX_PROC_SLOTS;
	size_t n = 1024;

	if (f != NULL) {
		if (fscanf(f, "%lu", &pid_max) != 1)
			pid_max = CM_MAX_PROC_SLOTS;
		fclose(f);
	}
	while (n < pid_max && n < CM_MAX_PROC_SLOTS)
		n <<= 1;
	return n;
}

static void *map_whole(struct bpf_map *m, size_t bytes)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, bpf_map__fd(m), 0);

	return p == MAP_FAILED ? NULL : p;
}

/* The slots and rings into our memory (a drain then needs no system call
 * per process), and the first epoch: 0 is what a slot starts with. */
static int map_accounting(struct sensors *s, struct sched_bpf *k)
{
	s->slots_bytes = s->nslots * sizeof(struct cm_proc_slot);
	s->rings_bytes = s->nrings * sizeof(struct cm_ran_ring);
	s->slots = map_whole(k->maps.proc_slots, s->slots_bytes);
	s->rings = map_whole(k->maps.ran_rings, s->rings_bytes);
	if (s->slots == NULL || s->rings == NULL)
		return -errno;
	__atomic_store_n(&k->bss->epoch, 1, __ATOMIC_SEQ_CST);
	return 0;
}

static void unmap_accounting(struct sensors *s)
{
	if (s->slots != NULL)
		munmap(s->slots, s->slots_bytes);
	if (s->rings != NULL)
		munmap(s->rings, s->rings_bytes);
	s->slots = NULL;
	s->rings = NULL;
}

/* One of the two sets of scheduler programs: tp_btf with task storage, or
 * raw_tp with a hash of pids. */
static int start_set(struct sensors *s, bool btf, char *why, size_t whylen)
{
	static const char *const btf_progs[] = { "on_switch_btf", "on_wakeup_btf",
		"on_wakeup_new_btf", "on_fork_btf", "on_exit_btf", "on_exec_btf" };
	static const char *const raw_progs[] = { "on_switch", "on_wakeup", "on_wakeup_new",
		"on_fork", "on_exit", "on_exec" };
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
	s->nslots = s->per_process ? proc_slots_wanted() : 1;
	s->nrings = s->per_process ? possible_cpus() : 1;
	k->rodata->slot_mask = (__u32)s->nslots - 1;
	bpf_map__set_max_entries(k->maps.proc_slots, (__u32)s->nslots);
	bpf_map__set_max_entries(k->maps.ran_rings, (__u32)s->nrings);
	if (!s->per_process)
		bpf_map__set_max_entries(k->maps.proc_spill, 1);
	err = sched_bpf__load(k);
	if (err == 0 && s->per_process)
		err = map_accounting(s, k);
	if (err == 0)
		err = sched_bpf__attach(k);
	if (err != 0) {
		unmap_accounting(s);
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
	unmap_accounting(s);
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

static struct cm_ran_ring *ring(const struct sensors *s, size_t cpu)
{
	return (struct cm_ran_ring *)(s->rings + cpu * sizeof(struct cm_ran_ring));
}

/* A process's sums from its slot, or from the spill hash when another
 * process holds the slot; 0 when neither has it (gone and reused). */
static void read_sums(const struct sensors *s, struct ran_news *p)
{
	volatile struct cm_proc_slot *e = &s->slots[p->tgid & (s->nslots - 1)];
	struct cm_proc_slot spill;

	if (e->tgid == p->tgid) {
		p->cpu_ns = e->cpu_ns;
		p->run_delay_ns = e->run_delay_ns;
	} else if (bpf_map__lookup_elem(s->skel->maps.proc_spill, &p->tgid, sizeof(p->tgid),
					&spill, sizeof(spill), 0) == 0) {
		p->cpu_ns = spill.cpu_ns;
		p->run_delay_ns = spill.run_delay_ns;
	}
}

/* A task on a CPU since `since` has run that long without a switch to
 * account it: added to its process, listed even if it was never switched
 * out since the last drain. The sums were read first, so a switch in
 * between leaves a stretch out (read next time), never counts it twice. */
static size_t add_running(const struct sensors *s, struct ran_news *v, size_t n)
{
	unsigned ncpu = possible_cpus();
	struct cm_sched_cpu *c = calloc(ncpu, sizeof(*c));
	size_t sorted = n;
	__u32 zero = 0;
	__u64 now;

	if (c == NULL || bpf_map__lookup_elem(s->skel->maps.cpu_state, &zero, sizeof(zero), c,
					      ncpu * sizeof(*c), 0) != 0) {
		free(c);
		return n;
	}
	now = cm_clock_ns();
	for (unsigned cpu = 0; cpu < ncpu; cpu++) {
		__u32 tgid = c[cpu].tgid;
		struct ran_news *p;

		if (!c[cpu].running || tgid == 0 || tgid > CM_PID_MAX_LIMIT || now <= c[cpu].since)
			continue;
		p = ran_find(v, sorted, tgid);
		for (size_t i = sorted; p == NULL && i < n; i++)
			if (v[i].tgid == tgid)
				p = &v[i];
		if (p == NULL) {
			p = &v[n++];
			*p = (struct ran_news){ .tgid = tgid, .mark = CM_RAN };
			read_sums(s, p);
		}
		p->cpu_ns += now - c[cpu].since;
	}
	free(c);
	return n;
}

/* A new epoch first: a process that runs after this is listed again, so
 * none is missed between reading a ring and the next drain. */
static void next_epoch(const struct sensors *s)
{
	__u32 e = s->skel->bss->epoch + 1;

	__atomic_store_n(&s->skel->bss->epoch, e ? e : 1, __ATOMIC_SEQ_CST);
}

int sensors_report_procs(const struct sensors *s, FILE *out)
{
	size_t ncpu = possible_cpus(), n = 0;
	uint64_t *ent;
	struct ran_news *v;

	if (s->skel == NULL || !s->per_process || s->rings == NULL)
		return 0;
	ent = malloc(CM_RAN_RING * sizeof(*ent));
	v = malloc((s->nrings * CM_RAN_RING + ncpu) * sizeof(*v));
	if (ent == NULL || v == NULL) {
		free(ent);
		free(v);
		return 0;
	}
	next_epoch(s);
	for (size_t cpu = 0; cpu < s->nrings; cpu++)
		n += ran_decode(ent, ran_take(ring(s, cpu), ent), v + n);
	n = ran_merge(v, n);
	for (size_t i = 0; i < n; i++)
		read_sums(s, &v[i]);
	n = add_running(s, v, n);
	for (size_t i = 0; i < n; i++)
		fprintf(out, "proc %u %llu %llu %u\n", v[i].tgid, (unsigned long long)v[i].cpu_ns,
			(unsigned long long)v[i].run_delay_ns, v[i].mark);
	free(ent);
	free(v);
	return (int)n;
}
