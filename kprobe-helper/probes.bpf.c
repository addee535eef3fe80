// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * probes.bpf.c - one run-time probe: an event counter or a latency pair.
 *
 * The loader opens a fresh copy of this object per probe and sets the
 * filters below before loading, so the verifier drops the filter code a
 * probe does not use and each probe has maps of its own (nothing shared,
 * no locks: every counter is per CPU). Filters and sampling are decided
 * before any map write.
 */
#include "kernel.bpf.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "common/clustermon_kprobe.h"
#include "bits.bpf.h"
#include "filter.bpf.h"

const volatile __s32 filter_tgid = -1;
const volatile __s32 filter_cpu = -1;
const volatile __u32 sample_every = 1;

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct cm_probe_stats);
} stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct cm_hist);
} hist SEC(".maps");

/* Entry timestamps of latency pairs, by thread. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, CM_MAX_INFLIGHT);
	__type(key, __u64);
	__type(value, __u64);
} start SEC(".maps");

static __always_inline bool filtered_out(void)
{
	return cm_filtered_out(filter_tgid, filter_cpu);
}

static __always_inline struct cm_probe_stats *my_stats(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&stats, &zero);
}

/* Counts a hit; true when 1-in-N sampling keeps it. */
static __always_inline bool admit(struct cm_probe_stats *s)
{
	return cm_sampled(&s->hits, &s->sampled, sample_every);
}

static __always_inline int count_event(void)
{
	struct cm_probe_stats *s;

	if (filtered_out())
		return 0;
	s = my_stats();
	if (s)
		admit(s);
	return 0;
}

static __always_inline int latency_enter(void)
{
	__u64 id = bpf_get_current_pid_tgid(), ts;
	struct cm_probe_stats *s;

	if (filtered_out())
		return 0;
	s = my_stats();
	if (!s || !admit(s))
		return 0;
	ts = bpf_ktime_get_ns();
	if (bpf_map_update_elem(&start, &id, &ts, BPF_ANY) != 0)
		s->lost++;
	return 0;
}

static __always_inline int latency_exit(void)
{
	__u64 id = bpf_get_current_pid_tgid(), *tsp, delta;
	struct cm_probe_stats *s;
	struct cm_hist *h;
	__u32 zero = 0;

	tsp = bpf_map_lookup_elem(&start, &id);
	if (!tsp) {
		/* No entry: lost, unless sampling or the CPU filter skipped
		 * the entry on purpose (then it cannot be told apart). */
		if (sample_every <= 1 && filter_cpu < 0 && !filtered_out()) {
			s = my_stats();
			if (s)
				s->lost++;
		}
		return 0;
	}
	delta = bpf_ktime_get_ns() - *tsp;
	bpf_map_delete_elem(&start, &id);
	h = bpf_map_lookup_elem(&hist, &zero);
	if (!h)
		return 0;
	h->slot[log2_slot(delta)]++;
	h->sum += delta;
	return 0;
}

SEC("tracepoint")
int count_tp(void *ctx)
{
	return count_event();
}

SEC("raw_tp")
int count_raw(void *ctx)
{
	return count_event();
}

SEC("kprobe")
int count_kprobe(struct pt_regs *ctx)
{
	return count_event();
}

SEC("tracepoint")
int enter_tp(void *ctx)
{
	return latency_enter();
}

SEC("tracepoint")
int exit_tp(void *ctx)
{
	return latency_exit();
}

SEC("kprobe")
int enter_kprobe(struct pt_regs *ctx)
{
	return latency_enter();
}

SEC("kretprobe")
int exit_kretprobe(struct pt_regs *ctx)
{
	return latency_exit();
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
