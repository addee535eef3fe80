// SPDX-License-Identifier: GPL-2.0
/*
 * sched.bpf.c - the helper's default kernel sensors: busy time and context
 * switches per CPU and the run-queue latency distribution (enqueue to
 * switch-in, what bcc's runqlat measures), all from sched_switch alone, and
 * counters of TCP retransmits and dropped packets.
 */
#include "kernel.bpf.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "clustermon_kprobe.h"
#include "bits.bpf.h"

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct cm_sched_cpu);
} cpu_state SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct cm_hist);
} runqlat SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct cm_sensor_counts);
} sensors SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, CM_DROP_REASONS);
	__type(key, __u32);
	__type(value, __u64);
} drop_reasons SEC(".maps");

/*
 * Run-queue latency without the wakeup tracepoints: the kernel already adds
 * each wait (enqueue, by wakeup or preemption, to arrival on a CPU) to the
 * task's sched_info.run_delay. A task switched out has just been through
 * exactly one such wait since its last switch-out, so the growth of its
 * run_delay is that wait. One program on sched_switch instead of three
 * halves the events per context switch (benchmarked in tests/bench).
 *
 * The last run_delay seen per task lives in the task's own storage where
 * the kernel runs BTF tracepoints (tp_btf), else in a hash by pid.
 */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, __u64);
} seen_delay SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, CM_MAX_INFLIGHT);
	__type(key, __u32);
	__type(value, __u64);
} seen_delay_by_pid SEC(".maps");

static __always_inline struct cm_sensor_counts *counts(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&sensors, &zero);
}

static __always_inline void account_switch(__u64 now, __u32 next_pid)
{
	__u32 zero = 0;
	struct cm_sched_cpu *c = bpf_map_lookup_elem(&cpu_state, &zero);

	if (!c)
		return;
	if (c->running && now > c->since)
		c->busy_ns += now - c->since;
	c->since = now;
	c->running = next_pid != 0;
	c->switches++;
}

/* The wait that preceded the run now ending, from run_delay's growth. A
 * stored 0 means "never seen": the first switch-out only records. */
static __always_inline void account_wait(__u64 *last, __u64 run_delay)
{
	struct cm_hist *h;
	__u32 zero = 0;

	if (*last != 0 && run_delay >= *last - 1) {
		__u64 wait = run_delay - (*last - 1);

		h = bpf_map_lookup_elem(&runqlat, &zero);
		if (h) {
			h->slot[log2_slot(wait)]++;
			h->sum += wait;
		}
	}
	*last = run_delay + 1;
}

static __always_inline void count_lost(void)
{
	struct cm_sensor_counts *c = counts();

	if (c)
		c->runqlat_lost++;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(on_switch_btf, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	__u64 *last;

	account_switch(bpf_ktime_get_ns(), next->pid);
	if (prev->pid == 0 || !bpf_core_field_exists(prev->sched_info))
		return 0;
	last = bpf_task_storage_get(&seen_delay, prev, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (last)
		account_wait(last, prev->sched_info.run_delay);
	else
		count_lost();
	return 0;
}

SEC("raw_tp/sched_switch")
int BPF_PROG(on_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	__u32 pid = BPF_CORE_READ(prev, pid);
	__u64 zero = 0, *last;

	account_switch(bpf_ktime_get_ns(), BPF_CORE_READ(next, pid));
	if (pid == 0 || !bpf_core_field_exists(prev->sched_info))
		return 0;
	last = bpf_map_lookup_elem(&seen_delay_by_pid, &pid);
	if (!last && bpf_map_update_elem(&seen_delay_by_pid, &pid, &zero, BPF_NOEXIST) == 0)
		last = bpf_map_lookup_elem(&seen_delay_by_pid, &pid);
	if (last)
		account_wait(last, BPF_CORE_READ(prev, sched_info.run_delay));
	else
		count_lost();
	return 0;
}

SEC("tracepoint/tcp/tcp_retransmit_skb")
int on_retransmit(void *ctx)
{
	struct cm_sensor_counts *c = counts();

	if (c)
		c->tcp_retransmits++;
	return 0;
}

SEC("tracepoint/skb/kfree_skb")
int on_kfree_skb(struct trace_event_raw_kfree_skb *ctx)
{
	struct cm_sensor_counts *c = counts();
	__u32 reason = 0;
	__u64 *n;

	if (c)
		c->skb_drops++;
	if (bpf_core_field_exists(ctx->reason))
		reason = BPF_CORE_READ(ctx, reason);
	if (reason >= CM_DROP_REASONS)
		reason = CM_DROP_REASONS - 1;
	n = bpf_map_lookup_elem(&drop_reasons, &reason);
	if (n)
		(*n)++;
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
