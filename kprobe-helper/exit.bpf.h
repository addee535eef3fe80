/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * exit.bpf.h - the exit log (issue 43), included by sensors.bpf.c, whose
 * per-process slots and per-CPU state it reads: a record per process when
 * its last thread exits, and one when the OOM killer marks a victim, into
 * exit_ring (clustermon_kprobe.h), drained by clustermond.
 *
 * Exact at exit: the CPU time is the helper's own sum over the process's
 * threads (switch by switch, plus the stretch running now), so a process
 * that lived 5 ms is there with what it used. The kernel's
 * sum_exec_runtime lags by what update_curr has not charged yet (up to a
 * tick); it is used only when it is larger, i.e. for a process the helper
 * did not see start.
 */
#ifndef CLUSTERMON_EXIT_BPF_H
#define CLUSTERMON_EXIT_BPF_H

/* -S without exits: the verifier drops this code. */
const volatile bool exit_log = true;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, CM_EXIT_RING_BYTES);
} exit_ring SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, CM_OOM_RING_BYTES);
} oom_ring SEC(".maps");

/* The command line of each process's last exec: read at the exec, as at
 * the exit its memory is gone. An LRU, so processes that exec'd before
 * the helper started, or that no exit removed, age out. */
#define CM_EXEC_ARGS_MAX 8192
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, CM_EXEC_ARGS_MAX);
	__type(key, __u32);
	__type(value, struct cm_exec_args);
} exec_args SEC(".maps");

static const struct cm_exec_args zero_args;

/* Exits and OOM victims seen: a reader finds what it lost in the gaps. */
__u64 exit_seq, oom_seq;

static __always_inline void keep_args(struct task_struct *p)
{
	__u32 tgid = BPF_CORE_READ(p, tgid);
	struct mm_struct *mm = BPF_CORE_READ(p, mm);
	unsigned long a, e;
	struct cm_exec_args *v;
	__u32 len;

	if (!exit_log || mm == NULL)
		return;
	a = BPF_CORE_READ(mm, arg_start);
	e = BPF_CORE_READ(mm, arg_end);
	if (e <= a || bpf_map_update_elem(&exec_args, &tgid, &zero_args, BPF_ANY) != 0)
		return;
	v = bpf_map_lookup_elem(&exec_args, &tgid);
	if (v == NULL)
		return;
	len = e - a >= CM_EXIT_ARGS ? CM_EXIT_ARGS - 1 : (__u32)(e - a);
	len &= CM_EXIT_ARGS - 1;
	/* The exec'ing task took over the leader's start time (de_thread). */
	v->start_ns = BPF_CORE_READ(p, start_time);
	if (bpf_probe_read_user(v->buf, len, (const void *)a) == 0)
		v->len = len;
}

static __always_inline void copy_args(struct cm_exit_rec *r, const struct cm_exec_args *v)
{
	__builtin_memcpy(r->args, v->buf, sizeof(r->args));
	r->args_len = v->len;
	r->flags |= CM_EXIT_HAS_ARGS;
}

/* The command line kept at its last exec, if that exec was this
 * process's; else its parent's, which a fork that did not exec runs. */
static __always_inline void exit_args(struct cm_exit_rec *r)
{
	struct cm_exec_args *v = bpf_map_lookup_elem(&exec_args, &r->tgid);

	r->args_len = 0;
	__builtin_memset(r->args, 0, sizeof(r->args));
	if (v != NULL) {
		bool mine = v->start_ns == r->start_ns && v->len <= CM_EXIT_ARGS;

		if (mine)
			copy_args(r, v);
		bpf_map_delete_elem(&exec_args, &r->tgid);
		if (mine)
			return;
	}
	v = bpf_map_lookup_elem(&exec_args, &r->ppid);
	if (v != NULL && v->len <= CM_EXIT_ARGS)
		copy_args(r, v);
}

/* The record's reads of the task: through helper calls, then as direct
 * loads for the tp_btf programs (exitrec.bpf.h). */
#define EXIT_READ BPF_CORE_READ
#define EXIT_FN(name) name
#include "exitrec.bpf.h"
#undef EXIT_READ
#undef EXIT_FN
#define EXIT_READ(...) ___arrow(__VA_ARGS__)
#define EXIT_FN(name) name##_btf
#include "exitrec.bpf.h"
#undef EXIT_READ
#undef EXIT_FN

/* The memory cgroup id of the running task: what /proc/PID/cgroup stops
 * saying of a v1 hierarchy once the task is exiting (it shows "/"), and
 * the victim is being killed when the reader gets there. */
static __always_inline __u64 current_memcg(void)
{
	struct task_struct *t = (struct task_struct *)bpf_get_current_task();
	struct cgroup_subsys_state *css = NULL;
	struct css_set *cs = BPF_CORE_READ(t, cgroups);
	int id;

	if (cs == NULL || !bpf_core_enum_value_exists(enum cgroup_subsys_id, memory_cgrp_id))
		return 0;
	id = bpf_core_enum_value(enum cgroup_subsys_id, memory_cgrp_id);
	if (id < 0 || id >= CM_CGROUP_SUBSYS_MAX ||
	    bpf_core_read(&css, sizeof(css), &cs->subsys[id]) != 0 || css == NULL)
		return 0;
	return BPF_CORE_READ(css, cgroup, kn, id);
}

/* The OOM killer chose a victim (pid: one of its threads). Woken: the
 * reader (clustermond's OOM watcher, in poll) forwards it at once. */
SEC("tracepoint/oom/mark_victim")
int on_oom_victim(struct trace_event_raw_mark_victim *ctx)
{
	struct cm_oom_rec *r;
	__u64 seq;

	if (!exit_log)
		return 0;
	seq = __sync_fetch_and_add(&oom_seq, 1);
	r = bpf_ringbuf_reserve(&oom_ring, sizeof(*r), 0);
	if (r == NULL)
		return 0;
	r->kind = CM_REC_OOM;
	r->tgid = (__u32)BPF_CORE_READ(ctx, pid);
	r->seq = seq;
	r->uid = 0;
	r->pad = 0;
	r->cgid = bpf_get_current_cgroup_id();
	r->ts_ns = bpf_ktime_get_ns();
	r->memcg = current_memcg();
	bpf_get_current_comm(r->comm, sizeof(r->comm));
	bpf_ringbuf_submit(r, 0);
	return 0;
}

#endif
