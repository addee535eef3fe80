// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * sensors.bpf.c - the helper's default kernel sensors: busy time and context
 * switches per CPU from sched_switch, the run-queue latency distribution
 * (wakeup or preemption to switch-in, what bcc's runqlat measures) from
 * sched_wakeup, sched_wakeup_new and sched_switch, and counters of TCP
 * retransmits and dropped packets.
 */
#include "kernel.bpf.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "common/clustermon_kprobe.h"
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
 * Run-queue latency as bcc's runqlat measures it: from the moment a task
 * becomes runnable (sched_wakeup, sched_wakeup_new, or preempted while still
 * TASK_RUNNING) to its switch-in, timed with bpf_ktime_get_ns(). The growth
 * of the task's sched_info.run_delay is no substitute: the kernel times it
 * with the run-queue clock, which is often not updated between a wakeup's
 * enqueue and the switch-in, so most short waits grow it by exactly 0
 * (measured with bpftrace against the wakeup-to-run time, issue 17).
 *
 * The time a task became runnable lives in its own storage where the kernel
 * runs BTF tracepoints (tp_btf), else in a hash by pid; 0 means "not
 * waiting".
 */
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
} queued_at_by_pid SEC(".maps");

/* The sensors a site keeps (clustermon-kprobe -S), set before load: the
 * verifier drops the code of those turned off. Per-cgroup sums
 * (clustermon_kprobe.h) take atomic adds: a cgroup's tasks run on several
 * CPUs. waits: one of the three needs the wakeup times. */
const volatile bool per_cgroup = true;
const volatile bool node_runqlat = true;
const volatile bool waits = true;

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, CM_MAX_CGROUPS);
	__type(key, __u64);
	__type(value, struct cm_cgroup_sched);
} cgroup_sched SEC(".maps");

/* The same sums in each cgroup's own storage where the kernel has it
 * (on_switch_cgs): found through the cgroup's pointer, with no hash. */
struct {
	__uint(type, CM_MAP_TYPE_CGRP_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct cm_cgroup_sched);
} cgroup_store SEC(".maps");

/* The value a new cgroup's entry starts from (too big for the stack). */
static const struct cm_cgroup_sched zero_cgroup;

/* Per-process accounting (-S proc). slot_mask is the number of slots less
 * one (a power of two). */
const volatile bool per_process = true;
const volatile __u32 slot_mask = 0;

/* An array, not a hash: the verifier inlines its lookup (a few ns against
 * 50-120 ns for a hash), and user space reads it through mmap without a
 * system call per process. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, CM_MAX_PROC_SLOTS);
	__type(key, __u32);
	__type(value, struct cm_proc_slot);
} proc_slots SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, CM_PROC_SPILL);
	__type(key, __u32);
	__type(value, struct cm_proc_slot);
} proc_spill SEC(".maps");

/* One ring per possible CPU (max_entries set before load). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct cm_ran_ring);
} ran_rings SEC(".maps");

static __always_inline struct cm_sensor_counts *counts(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&sensors, &zero);
}

static __always_inline struct cm_sched_cpu *this_cpu(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&cpu_state, &zero);
}

/* Returns how long prev ran (0 for idle). */
static __always_inline __u64 account_switch(struct cm_sched_cpu *c, __u64 now, __u32 next_pid,
					    __u32 next_tgid, __u64 next_cgid)
{
	__u64 ran_ns = 0;

	if (c->running && now > c->since)
		ran_ns = now - c->since;
	c->busy_ns += ran_ns;
	c->since = now;
	c->running = next_pid != 0;
	c->tgid = next_tgid;
	c->cgid = next_cgid;
	c->switches++;
	return ran_ns;
}

static __always_inline void count_procs_lost(void)
{
	struct cm_sensor_counts *c = counts();

	if (c)
		c->procs_lost++;
}

/* The sums of a process whose slot another process holds. */
static __always_inline struct cm_proc_slot *spilled(__u32 tgid, bool create)
{
	struct cm_proc_slot zero = { .tgid = tgid }, *e = bpf_map_lookup_elem(&proc_spill, &tgid);

	if (e || !create)
		return e;
	bpf_map_update_elem(&proc_spill, &tgid, &zero, BPF_NOEXIST);
	e = bpf_map_lookup_elem(&proc_spill, &tgid);
	if (e == NULL)
		count_procs_lost();
	return e;
}

/* A free slot is taken without an atomic: with a slot per possible pid
 * only the process itself can take it (above CM_MAX_PROC_SLOTS, two that
 * share a free slot may both take it for their first switches). */
static __always_inline struct cm_proc_slot *proc_of(__u32 tgid, bool create)
{
	__u32 i = tgid & slot_mask;
	struct cm_proc_slot *e = bpf_map_lookup_elem(&proc_slots, &i);

	if (e == NULL)
		return NULL;
	if (e->tgid == tgid)
		return e;
	if (e->tgid == 0 && create) {
		e->tgid = tgid;
		return e;
	}
	return spilled(tgid, create);
}

/* Appends to this CPU's ring, overwriting its oldest entry when no reader
 * kept up (readers see that from head): 0, or -1 without a ring. */
static __always_inline int list_proc(__u32 tgid, __u32 what, __u32 gen)
{
	__u32 cpu = bpf_get_smp_processor_id();
	struct cm_ran_ring *r = bpf_map_lookup_elem(&ran_rings, &cpu);
	__u64 h;

	if (r == NULL) {
		count_procs_lost();
		return -1;
	}
	h = r->head;
	r->ent[h & (CM_RAN_RING - 1)] = tgid | (__u64)what << 32 | (__u64)(gen & CM_GEN_MASK) << 34;
	/* A locked add orders the entry before the head readers load. */
	__sync_fetch_and_add(&r->head, 1);
	return 0;
}

static __always_inline __u32 epoch_of(__u64 now)
{
	return (__u32)(now >> CM_EPOCH_SHIFT);
}

/* Listed once per epoch. */
static __always_inline void mark_ran(struct cm_proc_slot *e, __u32 tgid, __u64 now)
{
	__u32 ep = epoch_of(now);

	if (e->epoch != ep && list_proc(tgid, CM_RAN, e->gen) == 0)
		e->epoch = ep;
}

/* prev (of process tgid) ran until now since the CPU's last switch.
 * Threads of one process run on several CPUs at once, hence the atomic
 * adds. */
static __always_inline void account_proc(__u32 tgid, __u64 ran_ns, __u64 now)
{
	struct cm_proc_slot *e;

	if (!per_process || tgid == 0 || (e = proc_of(tgid, true)) == NULL)
		return;
	__sync_fetch_and_add(&e->cpu_ns, ran_ns);
	mark_ran(e, tgid, now);
}

static __always_inline void account_proc_wait(__u32 tgid, __u64 wait)
{
	struct cm_proc_slot *e;

	if (!per_process || tgid == 0 || (e = proc_of(tgid, true)) == NULL)
		return;
	__sync_fetch_and_add(&e->run_delay_ns, wait);
}

static __always_inline void count_lost(void)
{
	struct cm_sensor_counts *c = counts();

	if (c)
		c->runqlat_lost++;
}

static __always_inline __u64 cgroup_id(struct task_struct *t)
{
	return per_cgroup ? BPF_CORE_READ(t, cgroups, dfl_cgrp, kn, id) : 0;
}

static __always_inline struct cm_cgroup_sched *cgroup_entry(__u64 id)
{
	struct cm_cgroup_sched *c;

	if (id == 0)
		return NULL;
	c = bpf_map_lookup_elem(&cgroup_sched, &id);
	if (c == NULL) {
		bpf_map_update_elem(&cgroup_sched, &id, &zero_cgroup, BPF_NOEXIST);
		c = bpf_map_lookup_elem(&cgroup_sched, &id);
	}
	return c;
}

static __always_inline void add_cgroup_wait(struct cm_cgroup_sched *c, __u64 wait)
{
	__sync_fetch_and_add(&c->wait.slot[log2_slot(wait)], 1);
	__sync_fetch_and_add(&c->wait.sum, wait);
}

/* prev's cgroup entry ran ran_ns, next's waited wait (NULL: nothing to
 * charge there). */
static __always_inline void charge_cgroups(struct cm_cgroup_sched *pc, __u64 ran_ns,
					   struct cm_cgroup_sched *nc, __u64 wait)
{
	if (pc != NULL)
		__sync_fetch_and_add(&pc->cpu_ns, ran_ns);
	if (nc != NULL)
		add_cgroup_wait(nc, wait);
}

/* prev's cgroup (recorded when it switched in) ran ran_ns; next's waited
 * wait (0: it was not waiting). Most switches hand the CPU between tasks of
 * one cgroup, and then one lookup serves both. */
static __always_inline void account_cgroups(__u64 prev_cg, __u64 ran_ns, __u64 next_cg,
					    __u64 wait)
{
	struct cm_cgroup_sched *pc = NULL, *nc = NULL;

	if (!per_cgroup)
		return;
	if (ran_ns != 0)
		pc = cgroup_entry(prev_cg);
	if (wait != 0)
		nc = pc != NULL && next_cg == prev_cg ? pc : cgroup_entry(next_cg);
	charge_cgroups(pc, ran_ns, nc, wait);
}

static __always_inline struct cm_cgroup_sched *cgroup_stored(struct cgroup *cg)
{
	return bpf_cgrp_storage_get(&cgroup_store, cg, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
}

/* account_cgroups into the cgroups' storage: prev's cgroup is read at the
 * switch, as a pointer is not kept across switches. */
static __always_inline void account_cgroups_stored(struct task_struct *prev, __u64 ran_ns,
						   struct task_struct *next, __u64 wait)
{
	struct cgroup *pcg = prev->cgroups->dfl_cgrp, *ncg = next->cgroups->dfl_cgrp;
	struct cm_cgroup_sched *pc = NULL, *nc = NULL;

	if (!per_cgroup)
		return;
	if (ran_ns != 0)
		pc = cgroup_stored(pcg);
	if (wait != 0)
		nc = pc != NULL && ncg == pcg ? pc : cgroup_stored(ncg);
	charge_cgroups(pc, ran_ns, nc, wait);
}

/* The wait ending now, if the task was waiting (0 if not), counted in the
 * node's histogram and its process's run delay. */
static __always_inline __u64 take_wait(__u64 *queued, __u64 now, __u32 tgid)
{
	struct cm_hist *h;
	__u32 zero = 0;
	__u64 wait;

	if (*queued == 0 || now < *queued)
		return 0;
	wait = now - *queued;
	*queued = 0;
	h = node_runqlat ? bpf_map_lookup_elem(&runqlat, &zero) : NULL;
	if (h) {
		h->slot[log2_slot(wait)]++;
		h->sum += wait;
	}
	account_proc_wait(tgid, wait);
	return wait;
}

/* TASK_RUNNING is 0; the field is __state since Linux 5.14. */
static __always_inline bool still_runnable(struct task_struct *t)
{
	if (bpf_core_field_exists(t->__state))
		return BPF_CORE_READ(t, __state) == 0;
	return BPF_CORE_READ((struct task_struct___old *)t, state) == 0;
}

static __always_inline void mark_queued_btf(struct task_struct *t, __u64 now)
{
	__u64 *q;

	if (t->pid == 0)
		return;
	q = bpf_task_storage_get(&queued_at, t, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (q)
		*q = now;
	else
		count_lost();
}

static __always_inline void mark_queued(__u32 pid, __u64 now)
{
	if (pid != 0 && bpf_map_update_elem(&queued_at_by_pid, &pid, &now, BPF_ANY) != 0)
		count_lost();
}

SEC("tp_btf/sched_wakeup")
int BPF_PROG(on_wakeup_btf, struct task_struct *p)
{
	mark_queued_btf(p, bpf_ktime_get_ns());
	return 0;
}

SEC("tp_btf/sched_wakeup_new")
int BPF_PROG(on_wakeup_new_btf, struct task_struct *p)
{
	mark_queued_btf(p, bpf_ktime_get_ns());
	return 0;
}

/* A task's unified-hierarchy cgroup id through BTF pointers: plain loads
 * the verifier guards, where BPF_CORE_READ makes a helper call a link. */
static __always_inline __u64 cgroup_id_btf(struct task_struct *t)
{
	return per_cgroup ? t->cgroups->dfl_cgrp->kn->id : 0;
}

static __always_inline bool still_runnable_btf(struct task_struct *t)
{
	if (bpf_core_field_exists(t->__state))
		return t->__state == 0;
	return BPF_CORE_READ((struct task_struct___old *)t, state) == 0;
}

/* The switch on BTF tracepoints, the per-cgroup sums in the hash or, with
 * stored, in the cgroups' storage: the two programs below, one of which
 * the helper loads (a kernel without cgroup storage refuses the second). */
static __always_inline int switch_btf(struct task_struct *prev, struct task_struct *next,
				      bool stored)
{
	struct cm_sched_cpu *c = this_cpu();
	__u64 now = bpf_ktime_get_ns(), next_cg = cgroup_id_btf(next), prev_cg, ran_ns;
	__u64 wait = 0, *q;

	if (c == NULL)
		return 0;
	prev_cg = c->cgid;
	ran_ns = account_switch(c, now, next->pid, next->tgid, next_cg);
	account_proc(prev->tgid, ran_ns, now);
	if (waits && still_runnable_btf(prev))
		mark_queued_btf(prev, now);
	if (waits && next->pid != 0 && (q = bpf_task_storage_get(&queued_at, next, 0, 0)) != NULL)
		wait = take_wait(q, now, next->tgid);
	if (stored)
		account_cgroups_stored(prev, ran_ns, next, wait);
	else
		account_cgroups(prev_cg, ran_ns, next_cg, wait);
	return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(on_switch_btf, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	return switch_btf(prev, next, false);
}

SEC("tp_btf/sched_switch")
int BPF_PROG(on_switch_cgs, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	return switch_btf(prev, next, true);
}

/* Every cgroup of the unified tree with sums in its storage, as a
 * struct cm_cgroup_rec: what clustermond reads (helpercg.c). */
SEC("iter/cgroup")
int dump_cgroups(struct bpf_iter__cgroup *ctx)
{
	struct cgroup *cg = ctx->cgroup;
	struct cm_cgroup_sched *c;
	__u64 id;

	if (cg == NULL || (c = bpf_cgrp_storage_get(&cgroup_store, cg, 0, 0)) == NULL)
		return 0;
	id = cg->kn->id;
	bpf_seq_write(ctx->meta->seq, &id, sizeof(id));
	bpf_seq_write(ctx->meta->seq, c, sizeof(*c));
	return 0;
}

SEC("raw_tp/sched_wakeup")
int BPF_PROG(on_wakeup, struct task_struct *p)
{
	mark_queued(BPF_CORE_READ(p, pid), bpf_ktime_get_ns());
	return 0;
}

SEC("raw_tp/sched_wakeup_new")
int BPF_PROG(on_wakeup_new, struct task_struct *p)
{
	mark_queued(BPF_CORE_READ(p, pid), bpf_ktime_get_ns());
	return 0;
}

SEC("raw_tp/sched_switch")
int BPF_PROG(on_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	struct cm_sched_cpu *c = this_cpu();
	__u32 next_pid = BPF_CORE_READ(next, pid), next_tgid = BPF_CORE_READ(next, tgid);
	__u64 now = bpf_ktime_get_ns(), next_cg = cgroup_id(next), prev_cg, ran_ns;
	__u64 wait = 0, *q;

	if (c == NULL)
		return 0;
	prev_cg = c->cgid;
	ran_ns = account_switch(c, now, next_pid, next_tgid, next_cg);
	account_proc(BPF_CORE_READ(prev, tgid), ran_ns, now);
	if (waits && still_runnable(prev))
		mark_queued(BPF_CORE_READ(prev, pid), now);
	if (waits && next_pid != 0 &&
	    (q = bpf_map_lookup_elem(&queued_at_by_pid, &next_pid)) != NULL) {
		wait = take_wait(q, now, next_tgid);
		bpf_map_delete_elem(&queued_at_by_pid, &next_pid);
	}
	account_cgroups(prev_cg, ran_ns, next_cg, wait);
	return 0;
}

/* A new process (not a thread) starts from zero in its slot: its pid may
 * be a reused one. Where pid_max exceeds the slots, the slot's holder (a
 * live process sharing it) goes on in the spill hash. */
static __always_inline void forked(__u32 pid, __u32 tgid)
{
	__u32 i = tgid & slot_mask, gen, holder;
	struct cm_proc_slot *e;

	if (!per_process || pid != tgid || (e = bpf_map_lookup_elem(&proc_slots, &i)) == NULL)
		return;
	holder = e->tgid;
	if (holder != 0 && holder != tgid)
		bpf_map_update_elem(&proc_spill, &holder, e, BPF_ANY);
	else
		bpf_map_delete_elem(&proc_spill, &tgid);
	gen = e->gen + 1;
	e->tgid = tgid;
	e->gen = gen;
	e->cpu_ns = 0;
	e->run_delay_ns = 0;
	e->epoch = epoch_of(bpf_ktime_get_ns());
	list_proc(tgid, CM_NEW, gen);
}

/* An exec: the same process under a new name. */
static __always_inline void execed(__u32 tgid)
{
	struct cm_proc_slot *e;

	if (per_process && (e = proc_of(tgid, true)) != NULL)
		list_proc(tgid, CM_NEW, e->gen);
}

#include "exit.bpf.h"

/* The leader's exit, or the last thread's: the process is probably gone
 * (user space checks). */
static __always_inline void exited(__u32 pid, __u32 tgid, int live)
{
	struct cm_proc_slot *e;

	if (!per_process || (pid != tgid && live != 0))
		return;
	e = proc_of(tgid, false);
	list_proc(tgid, CM_EXITED, e ? e->gen : 0);
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(on_fork_btf, struct task_struct *parent, struct task_struct *child)
{
	forked(child->pid, child->tgid);
	return 0;
}

/* signal->live counts the threads not yet exiting, already lowered for
 * this one when the tracepoint runs. */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(on_exit_btf, struct task_struct *p)
{
	int live = p->signal->live.counter;

	exited(p->pid, p->tgid, live);
	log_exit_btf(p, p->tgid, live);
	return 0;
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(on_exec_btf, struct task_struct *p)
{
	execed(p->tgid);
	keep_args(p);
	return 0;
}

SEC("raw_tp/sched_process_fork")
int BPF_PROG(on_fork, struct task_struct *parent, struct task_struct *child)
{
	forked(BPF_CORE_READ(child, pid), BPF_CORE_READ(child, tgid));
	return 0;
}

SEC("raw_tp/sched_process_exit")
int BPF_PROG(on_exit, struct task_struct *p)
{
	int live = BPF_CORE_READ(p, signal, live.counter);
	__u32 tgid = BPF_CORE_READ(p, tgid);

	exited(BPF_CORE_READ(p, pid), tgid, live);
	log_exit(p, tgid, live);
	return 0;
}

SEC("raw_tp/sched_process_exec")
int BPF_PROG(on_exec, struct task_struct *p)
{
	execed(BPF_CORE_READ(p, tgid));
	keep_args(p);
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

char LICENSE[] SEC("license") = "Dual BSD/GPL";
