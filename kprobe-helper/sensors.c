/* SPDX-License-Identifier: BSD-2-Clause */
/* sensors.c - start and read the scheduler, TCP and drop sensors. */
#include "sensors.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "common/clock.h"   /* CLOCK_MONOTONIC, as bpf_ktime_get_ns() */
#include "probes.h"
#include "common/ranlist.h"
#include "sensors.skel.h"

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

/* The slots and rings into our memory: a drain then needs no system call
 * per process. */
static int map_accounting(struct sensors *s, struct sensors_bpf *k)
{
	s->slots_bytes = s->nslots * sizeof(struct cm_proc_slot);
	s->rings_bytes = s->nrings * sizeof(struct cm_ran_ring);
	s->slots = map_whole(k->maps.proc_slots, s->slots_bytes);
	s->rings = map_whole(k->maps.ran_rings, s->rings_bytes);
	if (s->slots == NULL || s->rings == NULL)
		return -errno;
	return ran_reader_init(&s->reader, s->nrings) == 0 ? 0 : -ENOMEM;
}

static void unmap_accounting(struct sensors *s)
{
	if (s->slots != NULL)
		munmap(s->slots, s->slots_bytes);
	if (s->rings != NULL)
		munmap(s->rings, s->rings_bytes);
	s->slots = NULL;
	s->rings = NULL;
	ran_reader_free(&s->reader);
}

/* Per-cgroup sums in the cgroups' own storage where the kernel has it and
 * the BTF programs run; else in the cgroup_sched hash. */
static bool cgroup_storage_usable(const struct sensors *s, bool btf)
{
	return btf && s->per_cgroup &&
	       libbpf_probe_bpf_map_type((enum bpf_map_type)CM_MAP_TYPE_CGRP_STORAGE, NULL) == 1;
}

/* The programs of one set (tp_btf with task storage, or raw_tp with a
 * hash of pids) and the sensors they serve: the wakeup programs (the
 * second and third of each) only when something needs a wakeup time. */
static void choose_programs(struct sensors *s, struct sensors_bpf *k, bool btf)
{
	static const char *const btf_progs[] = { "on_switch_btf", "on_wakeup_btf",
		"on_wakeup_new_btf", "on_fork_btf", "on_exit_btf", "on_exec_btf" };
	static const char *const raw_progs[] = { "on_switch", "on_wakeup", "on_wakeup_new",
		"on_fork", "on_exit", "on_exec" };
	bool waits = s->per_process || s->per_cgroup || s->runqlat;

	for (size_t i = 0; i < sizeof(btf_progs) / sizeof(btf_progs[0]); i++) {
		bool on = i == 0 || i > 2 || waits;

		bpf_program__set_autoload(bpf_object__find_program_by_name(k->obj, btf_progs[i]),
					  btf && on);
		bpf_program__set_autoload(bpf_object__find_program_by_name(k->obj, raw_progs[i]),
					  !btf && on);
	}
	bpf_program__set_autoload(k->progs.on_switch_btf, btf && !s->cgroup_storage);
	bpf_program__set_autoload(k->progs.on_switch_cgs, s->cgroup_storage);
	bpf_program__set_autoload(k->progs.dump_cgroups, s->cgroup_storage);
	bpf_program__set_autoattach(k->progs.dump_cgroups, false);
	bpf_map__set_autocreate(k->maps.cgroup_store, s->cgroup_storage);
	k->rodata->per_process = s->per_process;
	k->rodata->per_cgroup = s->per_cgroup;
	k->rodata->node_runqlat = s->runqlat;
	k->rodata->waits = waits;
	k->rodata->exit_log = s->exit_log;
	bpf_program__set_autoload(k->progs.on_oom_victim, s->exit_log);
	if (!s->exit_log) {
		bpf_map__set_max_entries(k->maps.exit_ring, (__u32)sysconf(_SC_PAGESIZE));
		bpf_map__set_max_entries(k->maps.oom_ring, (__u32)sysconf(_SC_PAGESIZE));
		bpf_map__set_max_entries(k->maps.exec_args, 1);
	}
	/* Maps a set does not use stay, at their smallest. */
	if (btf || !waits)
		bpf_map__set_max_entries(k->maps.queued_at_by_pid, 1);
	if (!s->per_cgroup || s->cgroup_storage)
		bpf_map__set_max_entries(k->maps.cgroup_sched, 1);
	s->nslots = s->per_process ? proc_slots_wanted() : 1;
	s->nrings = s->per_process ? possible_cpus() : 1;
	k->rodata->slot_mask = (__u32)s->nslots - 1;
	bpf_map__set_max_entries(k->maps.proc_slots, (__u32)s->nslots);
	bpf_map__set_max_entries(k->maps.ran_rings, (__u32)s->nrings);
	if (!s->per_process)
		bpf_map__set_max_entries(k->maps.proc_spill, 1);
}

/* The iterator clustermond reads the cgroups' sums through: the unified
 * tree from its root, parents first. 0, or a negative errno. */
static int attach_cgroup_iter(struct sensors *s, struct sensors_bpf *k)
{
	union bpf_iter_link_info li = { .cgroup.order = BPF_CGROUP_ITER_DESCENDANTS_PRE };
	LIBBPF_OPTS(bpf_iter_attach_opts, o, .link_info = &li, .link_info_len = sizeof(li));

	s->cg_iter = bpf_program__attach_iter(k->progs.dump_cgroups, &o);
	return s->cg_iter != NULL ? 0 : -errno;
}

/* One of the two sets of scheduler programs started: 0, or -1 with why. */
static int start_set(struct sensors *s, bool btf, char *why, size_t whylen)
{
	struct sensors_bpf *k = sensors_bpf__open();
	int err;

	if (k == NULL) {
		snprintf(why, whylen, "opening the scheduler sensors failed: %s", strerror(errno));
		return -1;
	}
	s->cgroup_storage = cgroup_storage_usable(s, btf);
	choose_programs(s, k, btf);
	err = sensors_bpf__load(k);
	if (err == 0 && s->per_process)
		err = map_accounting(s, k);
	if (err == 0)
		err = sensors_bpf__attach(k);
	if (err == 0 && s->cgroup_storage)
		err = attach_cgroup_iter(s, k);
	if (err != 0) {
		unmap_accounting(s);
		bpf_link__destroy(s->cg_iter);
		s->cg_iter = NULL;
		snprintf(why, whylen, "starting the scheduler sensors (%s) failed: %s",
			 btf ? "tp_btf" : "raw_tp", strerror(-err));
		sensors_bpf__destroy(k);
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

int sensors_parse(const char *list, unsigned *features, char *why, size_t whylen)
{
	static const struct { const char *name; unsigned bit; } known[] = {
		{ "proc", SENSOR_PROC }, { "cgroup", SENSOR_CGROUP }, { "runqlat", SENSOR_RUNQLAT },
		{ "exits", SENSOR_EXITS },
	};
	const char *p = list;

	*features = 0;
	if (strcmp(list, "none") == 0)
		return 0;
	for (;;) {
		size_t len = strcspn(p, ","), i;

		for (i = 0; i < sizeof(known) / sizeof(known[0]); i++)
			if (strlen(known[i].name) == len && strncmp(p, known[i].name, len) == 0)
				break;
		if (i == sizeof(known) / sizeof(known[0])) {
			snprintf(why, whylen, "unknown sensor \"%.*s\" (proc, cgroup, runqlat, exits or none)",
				 (int)len, p);
			return -1;
		}
		*features |= known[i].bit;
		if (p[len] == '\0')
			return 0;
		p += len + 1;
	}
}

int sensors_start(struct sensors *s, bool raw_only, unsigned features, char *why,
		  size_t whylen)
{
	s->per_process = features & SENSOR_PROC;
	s->per_cgroup = features & SENSOR_CGROUP;
	s->runqlat = features & SENSOR_RUNQLAT;
	s->exit_log = features & SENSOR_EXITS;
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
	bpf_link__destroy(s->cg_iter);
	s->cg_iter = NULL;
	sensors_bpf__destroy(s->skel);
	s->skel = NULL;
}

/* Busy time includes the stretch the current task has run since the last
 * switch, so a CPU spinning in one task is not read as idle. */
static int report_cpus(const struct sensors *s, FILE *out)
{
	unsigned n = possible_cpus();
	struct cm_sched_cpu *v = calloc(n, sizeof(*v));
	uint64_t *col = calloc(n, sizeof(*col));
	struct wire_reply line = { .kind = WIRE_R_BUSY, .ncpu = n, .cpu = col };
	__u32 zero = 0;
	__u64 now;

	if (v == NULL || col == NULL ||
	    bpf_map__lookup_elem(s->skel->maps.cpu_state, &zero, sizeof(zero), v,
				 n * sizeof(*v), 0) != 0) {
		free(v);
		free(col);
		return 0;
	}
	now = cm_clock_ns();
	for (unsigned c = 0; c < n; c++)
		col[c] = v[c].busy_ns + (v[c].running && now > v[c].since ? now - v[c].since : 0);
	wire_write_reply(out, &line);
	line.kind = WIRE_R_SWITCHES;
	for (unsigned c = 0; c < n; c++)
		col[c] = v[c].switches;
	wire_write_reply(out, &line);
	free(v);
	free(col);
	return 2;
}

static int report_counts(const struct sensors *s, FILE *out)
{
	unsigned n = possible_cpus();
	struct cm_sensor_counts *v = calloc(n, sizeof(*v)), sum = { 0 };
	struct wire_reply line = { .kind = WIRE_R_SENSORS, .u.sensors.has_procs_lost = true };
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
	line.u.sensors.tcp_retransmits = sum.tcp_retransmits;
	line.u.sensors.skb_drops = sum.skb_drops;
	line.u.sensors.runqlat_lost = sum.runqlat_lost;
	line.u.sensors.procs_lost = sum.procs_lost;
	wire_write_reply(out, &line);
	free(v);
	return 1;
}

/* One line per reason that dropped something, summed over CPUs. */
static int report_drops(const struct sensors *s, FILE *out)
{
	unsigned n = possible_cpus();
	__u64 *v = calloc(n, sizeof(*v));
	struct wire_reply line = { .kind = WIRE_R_DROP };
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
		line.u.drop.reason = r;
		line.u.drop.count = sum;
		snprintf(line.u.drop.name, sizeof(line.u.drop.name), "%s",
			 s->reason[r] ? s->reason[r] : "UNKNOWN");
		lines += wire_write_reply(out, &line) == 0;
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
	if (s->runqlat && hist_read_map(s->skel->maps.runqlat, &h) == 0) {
		hist_report(out, 0, &h);
		lines++;
	}
	return lines;
}

/* ------------------------------------------------ per-process accounting */

/* A process's sums from its slot, or from the spill hash when another
 * process holds the slot; 0 when neither has it (gone and reused). */
static void read_sums(void *ctx, struct ran_news *p)
{
	const struct sensors *s = ctx;
	struct cm_proc_slot spill;

	if (ran_read_slot(s->slots, s->nslots, p))
		return;
	if (bpf_map__lookup_elem(s->skel->maps.proc_spill, &p->tgid, sizeof(p->tgid), &spill,
				 sizeof(spill), 0) == 0) {
		p->cpu_ns = spill.cpu_ns;
		p->run_delay_ns = spill.run_delay_ns;
	}
}

/* The tasks on a CPU now, which no switch has accounted yet. The sums were
 * read first, so a switch in between leaves a stretch out (read next
 * time), never counts it twice. */
static size_t add_running(struct sensors *s, struct ran_news *v, size_t n)
{
	unsigned ncpu = possible_cpus();
	struct cm_sched_cpu *c = calloc(ncpu, sizeof(*c));
	__u32 zero = 0;

	if (c != NULL && bpf_map__lookup_elem(s->skel->maps.cpu_state, &zero, sizeof(zero), c,
					      ncpu * sizeof(*c), 0) == 0)
		n = ran_add_running(v, n, n, c, ncpu, cm_clock_ns(), read_sums, s);
	free(c);
	return n;
}

/* The processes to report: the rings' news and what the reader carries,
 * or, when entries were lost, every process holding a slot. */
static ssize_t procs_to_report(struct sensors *s, struct ran_news **v)
{
	bool lost = false;
	ssize_t n = ran_drain(&s->reader, s->rings, (uint32_t)(cm_clock_ns() >> CM_EPOCH_SHIFT),
			      possible_cpus(), &lost);

	*v = s->reader.out;
	if (n < 0 || !lost)
		return n;
	*v = malloc((s->nslots + possible_cpus()) * sizeof(**v));
	return *v == NULL ? -1 : (ssize_t)ran_all_slots(s->slots, s->nslots, *v);
}

int sensors_report_procs(struct sensors *s, FILE *out)
{
	struct ran_news *v;
	ssize_t n, kept = 0;

	if (s->skel == NULL || !s->per_process || s->rings == NULL)
		return 0;
	if ((n = procs_to_report(s, &v)) < 0)
		return 0;
	for (ssize_t i = 0; i < n; i++)
		read_sums(s, &v[i]);
	n = (ssize_t)add_running(s, v, (size_t)n);
	for (ssize_t i = 0; i < n; i++) {
		struct wire_reply line = { .kind = WIRE_R_PROC };

		line.u.proc.tgid = v[i].tgid;
		line.u.proc.cpu_ns = v[i].cpu_ns;
		line.u.proc.run_delay_ns = v[i].run_delay_ns;
		line.u.proc.mark = (enum wire_proc_mark)v[i].mark;
		kept += wire_write_reply(out, &line) == 0;
	}
	if (v != s->reader.out)
		free(v);
	return (int)kept;
}

static int readonly_fd(const struct bpf_map *m)
{
	LIBBPF_OPTS(bpf_get_fd_by_id_opts, ro, .open_flags = BPF_F_RDONLY);
	struct bpf_map_info info = { 0 };
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(bpf_map__fd(m), &info, &len) != 0)
		return -1;
	return bpf_map_get_fd_by_id_opts(info.id, &ro);
}

/* Both of a reply's two fds, or none: 0, or -1 with any one open closed. */
static int both_or_none(int *fds)
{
	if (fds[0] >= 0 && fds[1] >= 0)
		return 0;
	for (int i = 0; i < 2; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	return -1;
}

int sensors_share_cgroup_fds(const struct sensors *s, int *fds)
{
	if (s->skel == NULL || !s->per_cgroup)
		return -1;
	/* An iterator's link lets its holder read what the iterator writes,
	 * nothing else (BPF_ITER_CREATE). */
	fds[0] = s->cg_iter != NULL ? fcntl(bpf_link__fd(s->cg_iter), F_DUPFD_CLOEXEC, 0)
				    : readonly_fd(s->skel->maps.cgroup_sched);
	fds[1] = readonly_fd(s->skel->maps.cpu_state);
	return both_or_none(fds);
}

int sensors_share_fds(const struct sensors *s, int *fds)
{
	const struct bpf_map *m[SENSORS_SHARED_MAPS];
	LIBBPF_OPTS(bpf_get_fd_by_id_opts, ro, .open_flags = BPF_F_RDONLY);
	LIBBPF_OPTS(bpf_get_fd_by_id_opts, rw);

	if (s->skel == NULL || !s->per_process || s->rings == NULL)
		return -1;
	m[0] = s->skel->maps.proc_slots;
	m[1] = s->skel->maps.ran_rings;
	m[2] = s->skel->maps.cpu_state;
	m[3] = s->skel->maps.proc_spill;
	for (int i = 0; i < SENSORS_SHARED_MAPS; i++) {
		struct bpf_map_info info = { 0 };
		__u32 len = sizeof(info);

		fds[i] = -1;
		/* The two arrays clustermond maps: the kernel refuses to mmap a
		 * BPF_F_RDONLY fd (do_mmap drops VM_SHARED for a file opened
		 * without write, and bpf_map_mmap wants it), so these fds can
		 * write; clustermond maps them PROT_READ, which bpf_map_mmap
		 * makes unable to become writable (VM_MAYWRITE cleared), and
		 * closes them at once. */
		if (bpf_obj_get_info_by_fd(bpf_map__fd(m[i]), &info, &len) == 0)
			fds[i] = bpf_map_get_fd_by_id_opts(info.id, i < 2 ? &rw : &ro);
		if (fds[i] < 0) {
			while (i-- > 0)
				close(fds[i]);
			return -1;
		}
	}
	return 0;
}

/* A fresh fd of m, with write access (a ring's reader writes its
 * position): -1 on failure. */
static int ring_fd(const struct bpf_map *m)
{
	struct bpf_map_info info = { 0 };
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(bpf_map__fd(m), &info, &len) != 0)
		return -1;
	return bpf_map_get_fd_by_id(info.id);
}

int sensors_share_exit_fd(const struct sensors *s, int *fds)
{
	if (s->skel == NULL || !s->exit_log)
		return -1;
	fds[0] = ring_fd(s->skel->maps.exit_ring);
	fds[1] = ring_fd(s->skel->maps.oom_ring);
	return both_or_none(fds);
}
