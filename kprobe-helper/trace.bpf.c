// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * trace.bpf.c - one trace session: every event that passes the filters is
 * recorded into the ring buffer of the CPU it happened on (an array of
 * ring buffers indexed by CPU, so CPUs never contend and each buffer holds
 * one CPU's events in order). A full buffer drops the record and counts it
 * in that CPU's lost counter: never silently.
 *
 * The helper is woken only when a buffer is a quarter full (it drains them
 * on a timer as well): woken for every record, it would fill the trace with
 * its own switches, each wakeup recording another one.
 *
 * The loader opens a fresh copy per session and sets the constants below
 * before loading; raw_len is then a known constant to the verifier, which
 * is what a ring buffer reservation of a variable record needs.
 *
 * sched_switch is recorded on its raw tracepoint, reading the two tasks:
 * the kernel skips a classic tracepoint's programs on a CPU where another
 * task was preempted inside a BPF system call (a shared per-CPU recursion
 * guard), and the scheduler's switches are exactly what happens then.
 */
#include "kernel.bpf.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "common/clustermon_kprobe.h"
#include "filter.bpf.h"

const volatile __s32 filter_tgid = -1;
const volatile __s32 filter_cpu = -1;
const volatile __u32 sample_every = 1;
const volatile __u32 raw_len = 0;   /* bytes of the tracepoint record to copy */
const volatile __u64 wakeup_bytes = 1024; /* wake the helper when a buffer holds this */
/* The end of the session's window, set when it starts: events after it are
 * not the session's (the helper detaches a little later). */
__u64 end_ns = ~0ull;

struct ringbuf {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);   /* the session's buffer size, set at load */
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1);      /* the number of possible CPUs, set at load */
	__type(key, __u32);
	__array(values, struct ringbuf);
} buffers SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct cm_trace_stats);
} stats SEC(".maps");

/* A reserved record with its header filled, or NULL (filtered out, not
 * sampled, or lost: then counted); *buf is its ring buffer. */
static __always_inline struct cm_trace_rec *begin(__u32 len, void **buf)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 cpu = bpf_get_smp_processor_id(), zero = 0;
	__u64 ts = bpf_ktime_get_ns();
	struct cm_trace_stats *s;
	struct cm_trace_rec *r;
	void *rb;

	if (ts >= end_ns)
		return NULL;
	if (cm_filtered_out(filter_tgid, filter_cpu))
		return NULL;
	s = bpf_map_lookup_elem(&stats, &zero);
	if (!s || !cm_sampled(&s->hits, &s->sampled, sample_every))
		return NULL;
	rb = bpf_map_lookup_elem(&buffers, &cpu);
	r = rb && len <= CM_TRACE_MAX_RAW ? bpf_ringbuf_reserve(rb, sizeof(*r) + len, 0) : NULL;
	if (!r) {
		s->lost++;
		return NULL;
	}
	r->ts = ts;
	r->cpu = cpu;
	r->pid = id >> 32;
	r->tid = (__u32)id;
	r->len = len;
	*buf = rb;
	return r;
}

static __always_inline void submit(struct cm_trace_rec *r, void *rb)
{
	__u64 queued = bpf_ringbuf_query(rb, BPF_RB_AVAIL_DATA);

	bpf_ringbuf_submit(r, queued >= wakeup_bytes ? BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP);
}

SEC("tracepoint")
int trace_tp(void *ctx)
{
	void *rb;
	struct cm_trace_rec *r = begin(raw_len, &rb);

	if (!r)
		return 0;
	/* On a fault the helper zeroes the copy: no stale buffer bytes leak. */
	if (raw_len > 0)
		bpf_probe_read_kernel(r + 1, raw_len, ctx);
	submit(r, rb);
	return 0;
}

SEC("raw_tp")
int trace_raw(void *ctx)
{
	void *rb;
	struct cm_trace_rec *r = begin(0, &rb);

	if (r)
		submit(r, rb);
	return 0;
}

static __always_inline __s64 task_state(struct task_struct *t)
{
	if (bpf_core_field_exists(t->__state))
		return BPF_CORE_READ(t, __state);
	return BPF_CORE_READ((struct task_struct___old *)t, state);
}

SEC("raw_tp/sched_switch")
int BPF_PROG(trace_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	void *rb;
	struct cm_trace_rec *r = begin(sizeof(struct cm_switch_rec), &rb);
	struct cm_switch_rec *e;

	if (!r)
		return 0;
	e = (struct cm_switch_rec *)(r + 1);
	BPF_CORE_READ_STR_INTO(&e->prev_comm, prev, comm);
	e->prev_pid = BPF_CORE_READ(prev, pid);
	e->prev_prio = BPF_CORE_READ(prev, prio);
	e->prev_state = preempt ? 0 : task_state(prev);
	BPF_CORE_READ_STR_INTO(&e->next_comm, next, comm);
	e->next_pid = BPF_CORE_READ(next, pid);
	e->next_prio = BPF_CORE_READ(next, prio);
	submit(r, rb);
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
