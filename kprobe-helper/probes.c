/* SPDX-License-Identifier: BSD-2-Clause */
/* probes.c - load, attach, read and detach run-time probes. */
#include "probes.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "probes.skel.h"

unsigned possible_cpus(void)
{
	static int n;

	if (n <= 0)
		n = libbpf_num_possible_cpus();
	return n > 0 ? (unsigned)n : 1;
}

bool kernel_has_kprobes(void)
{
	/* The kprobe PMU is registered exactly when CONFIG_KPROBES is on. */
	return access("/sys/bus/event_source/devices/kprobe", F_OK) == 0;
}

/* The one program a probe of this kind runs (and its exit partner). */
static void programs_for(struct probes_bpf *skel, enum spec_kind kind,
			 struct bpf_program **entry, struct bpf_program **exit)
{
	*exit = NULL;
	switch (kind) {
	case SPEC_TRACEPOINT: *entry = skel->progs.count_tp; break;
	case SPEC_RAW_TRACEPOINT: *entry = skel->progs.count_raw; break;
	case SPEC_KPROBE:
	case SPEC_KRETPROBE: *entry = skel->progs.count_kprobe; break;
	case SPEC_LATENCY_KPROBE:
		*entry = skel->progs.enter_kprobe;
		*exit = skel->progs.exit_kretprobe;
		break;
	default:
		*entry = skel->progs.enter_tp;
		*exit = skel->progs.exit_tp;
		break;
	}
}

static struct bpf_link *attach_one(struct bpf_program *prog, const struct probe_spec *s,
				   bool exit)
{
	switch (s->kind) {
	case SPEC_TRACEPOINT:
		return bpf_program__attach_tracepoint(prog, s->category, s->name);
	case SPEC_RAW_TRACEPOINT:
		return bpf_program__attach_raw_tracepoint(prog, s->name);
	case SPEC_KPROBE:
		return bpf_program__attach_kprobe(prog, false, s->name);
	case SPEC_KRETPROBE:
		return bpf_program__attach_kprobe(prog, true, s->name);
	case SPEC_LATENCY_KPROBE:
		return bpf_program__attach_kprobe(prog, exit, s->name);
	default:
		return exit ? bpf_program__attach_tracepoint(prog, s->exit_category, s->exit_name)
			    : bpf_program__attach_tracepoint(prog, s->category, s->name);
	}
}

static void attach_error(const struct probe_spec *s, bool exit, int err, char *why,
			 size_t whylen)
{
	const char *cat = exit ? s->exit_category : s->category;
	const char *name = exit ? s->exit_name : s->name;

	if (s->kind == SPEC_RAW_TRACEPOINT && err == ENOENT)
		snprintf(why, whylen, "no raw tracepoint %s in this kernel", name);
	else if (err == ENOENT && !spec_needs_kprobes(s))
		snprintf(why, whylen, "no tracepoint %s:%s in this kernel "
			 "(see /sys/kernel/tracing/events)", cat, name);
	else if (err == ENOENT)
		snprintf(why, whylen, "no kernel function %s to probe", name);
	else
		snprintf(why, whylen, "attaching to %s failed: %s", name, strerror(err));
}

static void set_filters(struct probes_bpf *skel, const struct probe_filter *f)
{
	skel->rodata->filter_tgid = f->tgid;
	skel->rodata->filter_cpu = f->cpu;
	skel->rodata->sample_every = f->every;
}

enum probe_error probe_attach(struct probe *p, char *why, size_t whylen)
{
	struct bpf_program *entry, *exit, *prog;
	int err;

	if (spec_needs_kprobes(&p->spec) && !kernel_has_kprobes()) {
		snprintf(why, whylen, "kernel has no kprobes (CONFIG_KPROBES is off)");
		return PROBE_UNSUPPORTED;
	}
	p->skel = probes_bpf__open();
	if (p->skel == NULL) {
		snprintf(why, whylen, "cannot open the BPF object: %s", strerror(errno));
		return PROBE_FAILED;
	}
	set_filters(p->skel, &p->filter);
	programs_for(p->skel, p->spec.kind, &entry, &exit);
	bpf_object__for_each_program(prog, p->skel->obj)
		bpf_program__set_autoload(prog, prog == entry || prog == exit);
	err = probes_bpf__load(p->skel);
	if (err != 0) {
		snprintf(why, whylen, "the kernel refused the BPF program: %s", strerror(-err));
		probe_detach(p);
		return PROBE_FAILED;
	}
	for (int i = 0; i < 2; i++) {
		prog = i == 0 ? entry : exit;
		if (prog == NULL)
			continue;
		p->links[i] = attach_one(prog, &p->spec, i == 1);
		if (p->links[i] == NULL) {
			attach_error(&p->spec, i == 1, errno, why, whylen);
			probe_detach(p);
			return PROBE_FAILED;
		}
	}
	return PROBE_OK;
}

void probe_detach(struct probe *p)
{
	for (int i = 0; i < 2; i++) {
		bpf_link__destroy(p->links[i]);
		p->links[i] = NULL;
	}
	probes_bpf__destroy(p->skel);
	p->skel = NULL;
}

int probe_read(const struct probe *p, struct cm_probe_stats *total, __u64 *per_cpu,
	       unsigned ncpu)
{
	unsigned n = possible_cpus();
	struct cm_probe_stats *v = calloc(n, sizeof(*v));
	__u32 zero = 0;
	int rc;

	if (v == NULL)
		return -1;
	rc = bpf_map__lookup_elem(p->skel->maps.stats, &zero, sizeof(zero), v,
				  n * sizeof(*v), 0);
	memset(total, 0, sizeof(*total));
	for (unsigned c = 0; rc == 0 && c < n; c++) {
		total->hits += v[c].hits;
		total->sampled += v[c].sampled;
		total->lost += v[c].lost;
		if (c < ncpu)
			per_cpu[c] = v[c].hits;
	}
	free(v);
	return rc;
}

int hist_read_map(const struct bpf_map *map, struct cm_hist *total)
{
	unsigned n = possible_cpus();
	struct cm_hist *v = calloc(n, sizeof(*v));
	__u32 zero = 0;
	int rc;

	if (v == NULL)
		return -1;
	rc = bpf_map__lookup_elem(map, &zero, sizeof(zero), v, n * sizeof(*v), 0);
	memset(total, 0, sizeof(*total));
	for (unsigned c = 0; rc == 0 && c < n; c++) {
		for (int i = 0; i < CM_HIST_SLOTS; i++)
			total->slot[i] += v[c].slot[i];
		total->sum += v[c].sum;
	}
	free(v);
	return rc;
}

void hist_report(FILE *out, uint32_t id, const struct cm_hist *h)
{
	struct wire_reply r = { .kind = id ? WIRE_R_HIST : WIRE_R_RUNQLAT, .u.hist.id = id };

	_Static_assert(CM_HIST_SLOTS == WIRE_HIST_SLOTS, "the protocol carries every slot");
	r.u.hist.sum = h->sum;
	memcpy(r.u.hist.slot, h->slot, sizeof(r.u.hist.slot));
	wire_write_reply(out, &r);
}

int probe_read_hist(const struct probe *p, struct cm_hist *total)
{
	return hist_read_map(p->skel->maps.hist, total);
}

int probe_pin(const struct probe *p, const char *path)
{
	return bpf_map__pin(p->skel->maps.stats, path);
}
