// SPDX-License-Identifier: GPL-2.0
/*
 * trace.bpf.c - one trace session: every event that passes the filters is
 * recorded into the ring buffer of the CPU it happened on (an array of
 * ring buffers indexed by CPU, so CPUs never contend and each buffer holds
 * one CPU's events in order). A full buffer drops the record and counts it
 * in that CPU's lost counter: never silently.
 *
 * The loader opens a fresh copy per session and sets the constants below
 * before loading; raw_len is then a known constant to the verifier, which
 * is what a ring buffer reservation of a variable record needs.
 */
#include "kernel.bpf.h"
#include <bpf/bpf_helpers.h>
#include "clustermon_kprobe.h"

const volatile __s32 filter_tgid = -1;
const volatile __s32 filter_cpu = -1;
const volatile __u32 sample_every = 1;
const volatile __u32 raw_len = 0;   /* bytes of the tracepoint record to copy */

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

static __always_inline int record(void *ctx, bool copy)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 cpu = bpf_get_smp_processor_id(), zero = 0, len = copy ? raw_len : 0;
	struct cm_trace_stats *s;
	struct cm_trace_rec *r;
	void *rb;

	if (filter_tgid >= 0 && (__s32)(id >> 32) != filter_tgid)
		return 0;
	if (filter_cpu >= 0 && (__s32)cpu != filter_cpu)
		return 0;
	s = bpf_map_lookup_elem(&stats, &zero);
	if (!s)
		return 0;
	s->hits++;
	if (sample_every > 1 && s->hits % sample_every != 0)
		return 0;
	s->sampled++;
	rb = bpf_map_lookup_elem(&buffers, &cpu);
	if (!rb || len > CM_TRACE_MAX_RAW) {
		s->lost++;
		return 0;
	}
	r = bpf_ringbuf_reserve(rb, sizeof(*r) + len, 0);
	if (!r) {
		s->lost++;
		return 0;
	}
	r->ts = bpf_ktime_get_ns();
	r->cpu = cpu;
	r->pid = id >> 32;
	r->tid = (__u32)id;
	r->len = len;
	/* On a fault the helper zeroes the copy: no stale buffer bytes leak. */
	if (len > 0)
		bpf_probe_read_kernel(r + 1, len, ctx);
	bpf_ringbuf_submit(r, 0);
	return 0;
}

SEC("tracepoint")
int trace_tp(void *ctx)
{
	return record(ctx, true);
}

SEC("raw_tp")
int trace_raw(void *ctx)
{
	return record(ctx, false);
}

char LICENSE[] SEC("license") = "GPL";
