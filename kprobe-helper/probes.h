/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * probes.h - the user-space side of probes.bpf.c: one loaded copy of the
 * object per probe, attached to what its spec names.
 */
#ifndef CLUSTERMON_PROBES_H
#define CLUSTERMON_PROBES_H

#include <linux/types.h>
#include <stdbool.h>
#include <stdio.h>

#include "common/clustermon_kprobe.h"
#include "common/spec.h"
#include "common/wire.h"

struct probes_bpf;
struct bpf_link;

struct probe {
	uint32_t id;
	struct probe_spec spec;
	struct probe_filter filter;
	struct probes_bpf *skel;
	struct bpf_link *links[2];
};

enum probe_error { PROBE_OK, PROBE_UNSUPPORTED, PROBE_FAILED };

/* Loads and attaches p (id, spec and filter filled in); on failure nothing
 * stays in the kernel and why says what went wrong. */
enum probe_error probe_attach(struct probe *p, char *why, size_t whylen);
void probe_detach(struct probe *p);
/* Sums of the per-CPU counters; per_cpu[ncpu] gets each CPU's hits. */
int probe_read(const struct probe *p, struct cm_probe_stats *total, __u64 *per_cpu,
	       unsigned ncpu);
/* Pins the counters map at path (for bpftool map show pinned PATH). */
int probe_pin(const struct probe *p, const char *path);
/* The latency histogram summed over CPUs. */
int probe_read_hist(const struct probe *p, struct cm_hist *total);

/* A per-CPU histogram map (one entry) summed over CPUs. */
struct bpf_map;
int hist_read_map(const struct bpf_map *map, struct cm_hist *total);

/* " SUM SLOT0 ... SLOT63\n" of a histogram, after its line head. */
/* A hist line for probe id, or the runqlat line for id 0. */
void hist_report(FILE *out, uint32_t id, const struct cm_hist *h);

/* Whether this kernel can attach kprobes at all. */
bool kernel_has_kprobes(void);
/* Number of possible CPUs (the per-CPU map value count). */
unsigned possible_cpus(void);

#endif
