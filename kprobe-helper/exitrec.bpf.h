/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * exitrec.bpf.h - the exit record's reads of the exiting task, included
 * twice by exit.bpf.h (no include guard): EXIT_READ is BPF_CORE_READ for
 * the raw_tp program, whose task pointer the verifier does not type, so
 * each field is a bpf_probe_read_kernel call; and plain loads for the
 * tp_btf program, whose pointer is typed (CO-RE relocated all the same).
 * About 30 fields a record: 1.2-1.4 us an exit as helper calls. EXIT_FN
 * names each copy's functions.
 */

/* CPU time and run delay: the helper's sums when they are the larger. */
static __always_inline void EXIT_FN(exit_sums)(struct cm_exit_rec *r, struct task_struct *p,
				      struct signal_struct *sig, __u64 now)
{
	struct cm_proc_slot *e = per_process ? proc_of(r->tgid, false) : NULL;
	struct cm_sched_cpu *c = this_cpu();
	__u64 mine = 0, delay = 0, kern;

	if (e != NULL) {
		mine = e->cpu_ns;
		delay = e->run_delay_ns;
	}
	if (c != NULL && c->running && c->tgid == r->tgid && now > c->since)
		mine += now - c->since;
	kern = EXIT_READ(sig, sum_sched_runtime) + EXIT_READ(p, se.sum_exec_runtime);
	r->cpu_ns = mine > kern ? mine : kern;
	kern = EXIT_READ(p, sched_info.run_delay);
	r->run_delay_ns = delay > kern ? delay : kern;
	r->utime_ns = EXIT_READ(sig, utime) + EXIT_READ(p, utime);
	r->stime_ns = EXIT_READ(sig, stime) + EXIT_READ(p, stime);
}

static __always_inline void EXIT_FN(exit_memory_io)(struct cm_exit_rec *r, struct task_struct *p,
					   struct signal_struct *sig)
{
	r->maxrss_kb = EXIT_READ(sig, maxrss);
	r->majflt = EXIT_READ(sig, maj_flt) + EXIT_READ(p, maj_flt);
	r->read_bytes = r->write_bytes = 0;
	if (bpf_core_field_exists(p->ioac)) {
		r->read_bytes = EXIT_READ(sig, ioac.read_bytes) + EXIT_READ(p, ioac.read_bytes);
		r->write_bytes =
			EXIT_READ(sig, ioac.write_bytes) + EXIT_READ(p, ioac.write_bytes);
	}
	r->flags = EXIT_READ(sig, oom_mm) != NULL ? CM_EXIT_OOM : 0;
}

/* The last thread of a group is exiting (live is 0): its record. A full
 * ring (no reader, or one far behind) loses it; the seq gap says so. */
static __always_inline void EXIT_FN(log_exit)(struct task_struct *p, __u32 tgid, int live)
{
	struct signal_struct *sig = EXIT_READ(p, signal);
	__u64 now = bpf_ktime_get_ns(), seq;
	struct cm_exit_rec *r;

	if (!exit_log || live != 0)
		return;
	seq = __sync_fetch_and_add(&exit_seq, 1);
	r = bpf_ringbuf_reserve(&exit_ring, sizeof(*r), 0);
	if (r == NULL)
		return;
	r->kind = CM_REC_EXIT;
	r->seq = seq;
	r->tgid = tgid;
	r->ppid = EXIT_READ(p, real_parent, tgid);
	r->uid = EXIT_READ(p, real_cred, uid.val);
	r->exit_code = (__u32)EXIT_READ(p, exit_code);
	r->pad = 0;
	r->cgid = EXIT_READ(p, cgroups, dfl_cgrp, kn, id);
	r->start_ns = EXIT_READ(p, group_leader, start_time);
	r->end_ns = now;
	EXIT_FN(exit_sums)(r, p, sig, now);
	EXIT_FN(exit_memory_io)(r, p, sig);
	BPF_CORE_READ_STR_INTO(&r->comm, p, comm);
	exit_args(r);
	/* No wakeup: the reader drains at its own samples. */
	bpf_ringbuf_submit(r, BPF_RB_NO_WAKEUP);
}

