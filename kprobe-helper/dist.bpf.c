// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * dist.bpf.c - one distribution row: the time from a START event to an END
 * event, or the values of one field of an event, into per-CPU log2 slots.
 *
 * The loader opens a fresh copy per row and sets the constants below before
 * loading: the verifier then drops the code of the modes and filters a row
 * does not use. Fields are read at the offsets tracefs gives for the
 * tracepoint (the loader looks them up by name), with sizes 1, 2, 4 or 8.
 *
 * Starts are kept in task storage (a pair matched per thread: no hash to
 * search, freed with the task) or, for a pair matched on event fields, in a
 * hash of the row's in-flight limit; a start that finds that hash full is
 * a miss, counted, never silent.
 */
#include "kernel.bpf.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "common/clustermon_kprobe.h"
#include "bits.bpf.h"
#include "filter.bpf.h"

enum { MODE_VALUE, MODE_THREAD, MODE_KEYED };

const volatile __s32 filter_tgid = -1;
const volatile __s32 filter_cpu = -1;
const volatile __u32 sample_every = 1;
const volatile bool filter_cgroup = false;
const volatile __u32 mode = MODE_VALUE;
/* value: the field; keyed: the key fields in START and in END. */
const volatile __u32 val_off = 0, val_size = 0;
const volatile bool val_signed = false;
const volatile __u32 nkeys = 0;
const volatile __u32 start_key_off[2] = {}, start_key_size[2] = {};
const volatile __u32 end_key_off[2] = {}, end_key_size[2] = {};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct cm_dist_stats);
} stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct cm_hist);
} hist SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, __u64);
} tstart SEC(".maps");

struct dist_key {
	__u64 k[2];
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);      /* the row's in-flight limit, set at load */
	__type(key, struct dist_key);
	__type(value, __u64);
} kstart SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_CGROUP_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} cgroup SEC(".maps");

/* A field of the tracepoint record (ctx) as a 64-bit number. */
static __always_inline __u64 field(void *ctx, __u32 off, __u32 size, bool sign)
{
	union {
		__u8 u8;
		__u16 u16;
		__u32 u32;
		__u64 u64;
	} v = {};

	if (off > 4096)
		return 0;
	switch (size) {
	case 1:
		bpf_probe_read_kernel(&v.u8, 1, ctx + off);
		return sign ? (__u64)(__s64)(__s8)v.u8 : v.u8;
	case 2:
		bpf_probe_read_kernel(&v.u16, 2, ctx + off);
		return sign ? (__u64)(__s64)(__s16)v.u16 : v.u16;
	case 4:
		bpf_probe_read_kernel(&v.u32, 4, ctx + off);
		return sign ? (__u64)(__s64)(__s32)v.u32 : v.u32;
	default:
		bpf_probe_read_kernel(&v.u64, 8, ctx + off);
		return v.u64;
	}
}

static __always_inline void record(__u64 v)
{
	__u32 zero = 0;
	struct cm_hist *h = bpf_map_lookup_elem(&hist, &zero);

	if (!h)
		return;
	h->slot[log2_slot(v)]++;
	h->sum += v;
}

/* The filters and 1-in-N sampling, where a value starts; its counters. */
static __always_inline struct cm_dist_stats *admit(void)
{
	struct cm_dist_stats *s;
	__u32 zero = 0;

	if (cm_filtered_out(filter_tgid, filter_cpu))
		return NULL;
	if (filter_cgroup && bpf_current_task_under_cgroup(&cgroup, 0) != 1)
		return NULL;
	s = bpf_map_lookup_elem(&stats, &zero);
	if (!s || !cm_sampled(&s->hits, &s->sampled, sample_every))
		return NULL;
	return s;
}

static __always_inline void make_key(void *ctx, struct dist_key *k, bool end)
{
	for (__u32 i = 0; i < 2; i++) {
		if (i >= nkeys)
			break;
		k->k[i] = end ? field(ctx, end_key_off[i], end_key_size[i], false)
			      : field(ctx, start_key_off[i], start_key_size[i], false);
	}
}

SEC("tracepoint")
int dist_start(void *ctx)
{
	struct cm_dist_stats *s = admit();
	struct dist_key k = {};
	__u64 now, *ts;
	__s64 v;

	if (!s)
		return 0;
	if (mode == MODE_VALUE) {
		v = (__s64)field(ctx, val_off, val_size, val_signed);
		/* Negative values (error returns) go to the lowest slot. */
		record(val_signed && v < 0 ? 0 : (__u64)v);
		return 0;
	}
	now = bpf_ktime_get_ns();
	if (mode == MODE_THREAD) {
		ts = bpf_task_storage_get(&tstart, bpf_get_current_task_btf(), 0,
					  BPF_LOCAL_STORAGE_GET_F_CREATE);
		if (ts)
			*ts = now;
		else
			s->misses++;
		return 0;
	}
	make_key(ctx, &k, false);
	if (bpf_map_update_elem(&kstart, &k, &now, BPF_ANY) != 0)
		s->misses++;
	return 0;
}

SEC("tracepoint")
int dist_end(void *ctx)
{
	struct dist_key k = {};
	__u64 now = bpf_ktime_get_ns(), *ts;

	if (mode == MODE_THREAD) {
		ts = bpf_task_storage_get(&tstart, bpf_get_current_task_btf(), 0, 0);
		if (ts && *ts != 0) {
			record(now - *ts);
			*ts = 0;
		}
		return 0;
	}
	make_key(ctx, &k, true);
	ts = bpf_map_lookup_elem(&kstart, &k);
	if (!ts)
		return 0;
	record(now - *ts);
	bpf_map_delete_elem(&kstart, &k);
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
