// SPDX-License-Identifier: GPL-2.0
/*
 * sched.bpf.c - the helper's default kernel sensors: busy time and context
 * switches per CPU and the run-queue latency distribution (wakeup to
 * switch-in, as bcc's runqlat measures it) from the scheduler's raw
 * tracepoints (about 90 ns an event here, against 140-200 ns for the
 * classic ones), and counters of TCP retransmits and dropped packets.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "clustermon_kprobe.h"

#define TASK_RUNNING 0

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

/* When each runnable task was woken (or preempted). Where the kernel lets
 * BTF-typed tracepoints (tp_btf) run, in the task's own storage: no hashing
 * and no bucket lock on the hot path, and nothing to fill up. Elsewhere in a
 * hash by pid, which the loader sizes down when it is not used. */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, __u64);
} queued_at SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, CM_MAX_INFLIGHT);
	__type(key, __u32);
	__type(value, __u64);
} queued SEC(".maps");

/* task_struct.state was renamed __state in 5.14. */
struct task_struct___pre514 {
	long state;
} __attribute__((preserve_access_index));

static __always_inline long task_state(struct task_struct *t)
{
	struct task_struct___pre514 *old = (void *)t;

	if (bpf_core_field_exists(t->__state))
		return BPF_CORE_READ(t, __state);
	return BPF_CORE_READ(old, state);
}

static __always_inline struct cm_sensor_counts *counts(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&sensors, &zero);
}

static __always_inline void enqueue(__u32 pid)
{
	__u64 ts = bpf_ktime_get_ns();
	struct cm_sensor_counts *c;

	if (pid == 0)
		return;
	if (bpf_map_update_elem(&queued, &pid, &ts, BPF_ANY) != 0) {
		c = counts();
		if (c)
			c->runqlat_lost++;
	}
}

static __always_inline __u32 log2_slot(__u64 v)
{
	__u32 r = 0;

#pragma unroll
	for (int shift = 32; shift > 0; shift >>= 1) {
		if (v >> shift) {
			v >>= shift;
			r += shift;
		}
	}
	return r < CM_HIST_SLOTS ? r : CM_HIST_SLOTS - 1;
}



SEC("raw_tp/sched_wakeup")
int BPF_PROG(on_wakeup, struct task_struct *p)
{
	enqueue(BPF_CORE_READ(p, pid));
	return 0;
}

SEC("raw_tp/sched_wakeup_new")
int BPF_PROG(on_wakeup_new, struct task_struct *p)
{
	enqueue(BPF_CORE_READ(p, pid));
	return 0;
}

static __always_inline void record_runqlat(__u64 delta)
{
	__u32 zero = 0;
	struct cm_hist *h = bpf_map_lookup_elem(&runqlat, &zero);

	if (h) {
		h->slot[log2_slot(delta)]++;
		h->sum += delta;
	}
}

static __always_inline void dequeue(__u32 pid, __u64 now)
{
	__u64 *tsp = bpf_map_lookup_elem(&queued, &pid);

	if (!tsp)
		return;
	if (now > *tsp)
		record_runqlat(now - *tsp);
	bpf_map_delete_elem(&queued, &pid);
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

SEC("raw_tp/sched_switch")
int BPF_PROG(on_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	__u64 now = bpf_ktime_get_ns();
	__u32 next_pid = BPF_CORE_READ(next, pid);

	account_switch(now, next_pid);
	/* A task switched out while runnable waits in the queue again. */
	if (task_state(prev) == TASK_RUNNING)
		enqueue(BPF_CORE_READ(prev, pid));
	if (next_pid != 0)
		dequeue(next_pid, now);
	return 0;
}

/* The same with task storage, for kernels that run tp_btf programs. */
static __always_inline void mark_queued(struct task_struct *p)
{
	__u64 *ts = bpf_task_storage_get(&queued_at, p, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	struct cm_sensor_counts *c;

	if (ts) {
		*ts = bpf_ktime_get_ns();
	} else {
		c = counts();
		if (c)
			c->runqlat_lost++;
	}
}

SEC("tp_btf/sched_wakeup")
int BPF_PROG(on_wakeup_btf, struct task_struct *p)
{
	mark_queued(p);
	return 0;
}

SEC("tp_btf/sched_wakeup_new")
int BPF_PROG(on_wakeup_new_btf, struct task_struct *p)
{
	mark_queued(p);
	return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(on_switch_btf, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	__u64 now = bpf_ktime_get_ns(), *ts;

	account_switch(now, next->pid);
	if (task_state(prev) == TASK_RUNNING && prev->pid != 0)
		mark_queued(prev);
	if (next->pid == 0)
		return 0;
	ts = bpf_task_storage_get(&queued_at, next, 0, 0);
	if (ts && *ts && now > *ts) {
		record_runqlat(now - *ts);
		*ts = 0;
	}
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
