/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * clustermon_kprobe.h - the only ABI between the BPF programs of
 * clustermon-kprobe and its user-space side: the layout of every map value.
 * Included after kernel.bpf.h on the BPF side and after <linux/types.h> in
 * user space, so it uses the kernel's __u32/__u64 names only.
 */
#ifndef CLUSTERMON_KPROBE_H
#define CLUSTERMON_KPROBE_H

/* log2 slots of a duration histogram: slot 0 holds 0 and 1 ns, slot i holds
 * [2^i, 2^(i+1)) ns, the last slot everything above (the same layout as the
 * subagent's log2hist with 64 buckets). */
#define CM_HIST_SLOTS 64

/* Entries of the entry-timestamp maps (threads inside a latency pair, or
 * woken and waiting for a CPU): a full map is counted as lost events. */
#define CM_MAX_INFLIGHT 16384

/* Per-CPU counters of one probe (a PERCPU_ARRAY of one entry). */
struct cm_probe_stats {
	__u64 hits;      /* events that passed the tgid and CPU filters */
	__u64 sampled;   /* hits kept by 1-in-N sampling */
	__u64 lost;      /* events the program had to drop */
};

/* Per-CPU counters of one distribution row (dist.bpf.c, a PERCPU_ARRAY of
 * one entry). */
struct cm_dist_stats {
	__u64 hits;      /* starts (or values) that passed the filters */
	__u64 sampled;   /* kept by 1-in-N sampling */
	__u64 misses;    /* starts not kept: the in-flight map was full */
};

/* Per-CPU duration histogram (a PERCPU_ARRAY of one entry). */
struct cm_hist {
	__u64 slot[CM_HIST_SLOTS];
	__u64 sum;       /* nanoseconds */
};

/* The scheduler's view of a cgroup (issue 32): the unified hierarchy's
 * cgroup id (its directory's inode; on a hybrid host the unified tree's)
 * -> the run-queue waits of its tasks and the CPU time they ran, charged
 * when a task switches out (a stretch still running is not in it yet), in
 * an LRU hash, so cgroups that are gone age out and the map never fills.
 * Read by clustermond (BPF_F_RDONLY fd, the "cgmaps" request). */
#define CM_MAX_CGROUPS 4096

struct cm_cgroup_sched {
	struct cm_hist wait;   /* nanoseconds */
	__u64 cpu_ns;
};

/* Where the kernel has cgroup local storage (Linux 6.2), the sums live in
 * each cgroup's own storage instead, found with no hash lookup, and the
 * "cgmaps" reply's first fd is the link of a cgroup iterator instead of
 * the hash: each read of an iterator it creates (BPF_ITER_CREATE) yields
 * one record per cgroup of the unified tree that has sums, parents first. */
struct cm_cgroup_rec {
	__u64 id;
	struct cm_cgroup_sched s;
};

/* BPF_MAP_TYPE_CGRP_STORAGE (Linux 6.2), which Debian 12's UAPI headers
 * (6.1) do not name. */
#define CM_MAP_TYPE_CGRP_STORAGE 32

/* Per-CPU scheduler state kept by the sched_switch program. */
struct cm_sched_cpu {
	__u64 busy_ns;   /* time a task other than idle ran, up to `since` */
	__u64 since;     /* bpf_ktime_get_ns() of the last switch */
	__u64 switches;
	__u32 running;   /* a non-idle task is on the CPU since `since` */
	__u32 tgid;      /* and its process (for per-process CPU time) */
	__u64 cgid;      /* and its cgroup (cm_cgroup_sched's key), or 0 */
};

/* Per-CPU counters of the default kernel sensors. */
struct cm_sensor_counts {
	__u64 tcp_retransmits;
	__u64 skb_drops;
	__u64 runqlat_lost;  /* wakeups not recorded: the map was full */
	__u64 procs_lost;    /* not accounted to a process, or not listed: full */
};

/* Trace sessions (trace.bpf.c): a record in a CPU's ring buffer is this
 * header and, for tracepoints, the kernel's event record copied whole
 * (common fields included; the helper drops them); `len` bytes follow. */
struct cm_trace_rec {
	__u64 ts;        /* bpf_ktime_get_ns(): CLOCK_MONOTONIC */
	__u32 cpu;
	__u32 pid;       /* the thread group (process) id */
	__u32 tid;
	__u32 len;
};

/* The payload of the built-in sched_switch sensor of a trace session,
 * read from the tasks on a raw tracepoint: the fields of the sched_switch
 * tracepoint, in its order and layout. */
struct cm_switch_rec {
	char prev_comm[16];
	__s32 prev_pid;
	__s32 prev_prio;
	__s64 prev_state;    /* the task's state bits; 0 when it was preempted */
	char next_comm[16];
	__s32 next_pid;
	__s32 next_prio;
};

/* The most a record copies of an event (8 common bytes and 512 of fields,
 * tpformat.h's TP_MAX_PAYLOAD). */
#define CM_TRACE_MAX_RAW 520

/* Per-CPU counters of a trace session (a PERCPU_ARRAY of one entry). */
struct cm_trace_stats {
	__u64 hits;      /* events that passed the pid and CPU filters */
	__u64 sampled;   /* kept by 1-in-N sampling: records + lost */
	__u64 lost;      /* bpf_ringbuf_reserve failed: that CPU's buffer was full */
};

/* Per-process CPU accounting (issues 17, 23): CPU time and run-queue waits
 * summed over a process's threads, since it was forked or the helper
 * started. A process's sums live in the slot its tgid selects (tgid modulo
 * the number of slots: one slot per possible pid when pid_max allows, so
 * no two processes share one); a process whose slot another holds is
 * summed in a small LRU hash instead (only when pid_max exceeds
 * CM_MAX_PROC_SLOTS). User space reads the slots through mmap. */
#define CM_MAX_PROC_SLOTS (1u << 17)
#define CM_PID_MAX_LIMIT 4194304u   /* the kernel's PID_MAX_LIMIT */
#define CM_PROC_SPILL 4096

struct cm_proc_slot {
	__u32 tgid;      /* the process the slot holds; 0 while free */
	__u32 epoch;     /* the drain epoch in which it was last listed as ran */
	__u32 gen;       /* counts the new processes that took the slot */
	__u32 pad;
	__u64 cpu_ns;
	__u64 run_delay_ns;
};

/* Marks of the "ran" list: a thread of the process ran since the last
 * drain; its leader or last thread exited (the process may be gone); it is
 * new (a fork of a new tgid, or an exec: its name changed). */
#define CM_RAN 1
#define CM_EXITED 2
#define CM_NEW 3

/* The "ran" list: a ring per CPU, written only by the programs on that
 * CPU (with preemption off), read by user space through mmap. An entry is
 * TGID | MARK << 32 | GEN << 34 (GEN: the slot's gen, 30 bits, so user
 * space tells an exit of the old holder of a pid from the new one's).
 *
 * The programs never wait for a reader: they overwrite the oldest entry,
 * and each reader keeps its own tail in its own memory (ranlist.h), so the
 * maps can be handed out read-only (BPF_F_RDONLY fds, issue 30) and more
 * than one reader may follow them. A reader that falls a ring behind sees
 * it from head and its tail, and rereads every slot instead.
 *
 * A process is listed at most once per epoch, an epoch being
 * CLOCK_MONOTONIC >> CM_EPOCH_SHIFT (about 4.2 ms): no reader has to start
 * one. A process listed in an epoch may run again in it unlisted; a reader
 * keeps rereading the sums of every process it was handed until an epoch
 * two later (ran_drain), when every stretch of that epoch is summed. */
#define CM_RAN_RING 16384u
#define CM_GEN_MASK 0x3fffffffu
#define CM_EPOCH_SHIFT 22

struct cm_ran_ring {
	__u64 head;      /* entries written, by the CPU's programs */
	__u64 tail;      /* unused (readers keep their own); kept for the layout */
	__u64 pad[2];
	__u64 ent[CM_RAN_RING];
};

/* The exit log (issue 43): one record per process, written by the
 * sched_process_exit program when the last thread of a group exits, into
 * a BPF ring buffer (exit_ring) that clustermond's proc source drains
 * through mmap (the "exits" request hands it the map's fd). Records have a
 * fixed size and the ring a fixed size the helper chooses: a reader that
 * falls behind makes the program's reservations fail, never the helper
 * wait; the program numbers every exit it saw (seq), so the reader counts
 * what it lost from the gaps. Times are CLOCK_MONOTONIC ns
 * (bpf_ktime_get_ns, task->start_time). */
#define CM_EXIT_RING_BYTES (1u << 21)   /* about 5,000 records */
/* OOM victims have a ring of their own (oom_ring), each record woken, so a
 * reader can sleep in poll() until one comes (a notification within
 * milliseconds) while exits wait for the proc source's next sample. */
#define CM_OOM_RING_BYTES (1u << 14)
#define CM_EXIT_ARGS 256                /* bytes of the command line kept */

#define CM_REC_EXIT 1u                  /* struct cm_exit_rec */
#define CM_REC_OOM 2u                   /* struct cm_oom_rec */

#define CM_EXIT_OOM 1u      /* flags: the kernel chose it as an OOM victim */
#define CM_EXIT_HAS_ARGS 2u /* args: its command line, copied at its exec */

struct cm_exit_rec {
	__u32 kind;          /* CM_REC_EXIT */
	__u32 flags;
	__u64 seq;           /* exits the program saw before this one */
	__u32 tgid, ppid;
	__u32 uid, exit_code;   /* exit_code: the wait status, as waitpid gives it */
	__u32 args_len, pad;
	__u64 cgid;          /* the unified hierarchy's cgroup id (its inode) */
	__u64 start_ns, end_ns;
	__u64 cpu_ns;        /* every thread's, exact when the helper saw it start */
	__u64 utime_ns, stime_ns;   /* the kernel's tick-sampled split */
	__u64 run_delay_ns;
	__u64 maxrss_kb, majflt, read_bytes, write_bytes;
	char comm[16];
	char args[CM_EXIT_ARGS];    /* NUL-separated, args_len bytes */
};

/* oom:mark_victim, in oom_ring: the kernel chose this task to kill (it
 * has not exited yet; its exit record follows with CM_EXIT_OOM). */
struct cm_oom_rec {
	__u32 kind;          /* CM_REC_OOM */
	__u32 tgid;          /* the victim task's pid (the tracepoint's) */
	__u64 seq;           /* victims the program saw before this one */
	__u32 uid, pad;
	__u64 cgid;          /* the cgroup id of the task that ran out (current) */
	__u64 ts_ns;
	__u64 memcg;         /* its memory cgroup's id, in the memory controller's
			      * hierarchy (v1's on a hybrid host); 0 unknown */
	char comm[16];       /* and its name */
};

/* The argument bytes of a process's last exec, by tgid (exec_args): what
 * the exit record copies. start_ns tells a reused pid's stale entry. */
struct cm_exec_args {
	__u64 start_ns;
	__u32 len, pad;
	char buf[CM_EXIT_ARGS];
};

/* skb:kfree_skb drop reasons counted one by one; higher ones share the
 * last slot. */
#define CM_DROP_REASONS 256

/* One socket as the TCP iterator (tcpiter.bpf.c) writes it into its
 * seq_file: only sockets whose counters moved since the iterator's last
 * pass (state kept in sk_storage), all on the first. Measured against the
 * inet_diag dump by tests/bench/tcpiter.sh (issue 42); the values are
 * tcp_info's, computed as tcp_get_info() does. */
struct cm_tcp_rec {
	__u64 cookie;          /* the socket cookie, as inet_diag's idiag_cookie */
	__u8 family, state;    /* AF_INET or AF_INET6; TCP_ESTABLISHED... */
	__u16 sport, dport;    /* host byte order */
	__u16 pad;
	__u32 uid;
	__u8 saddr[16], daddr[16];
	__u32 rtt_us, rttvar_us, min_rtt_us, rto_us;
	__u32 cwnd, ssthresh, snd_mss, segs_out, segs_in;
	__u32 data_segs_out, data_segs_in, total_retrans, lost, dsack_dups;
	__u32 rcv_rtt_us, notsent_bytes, pad2;
	__u64 bytes_acked, bytes_received, bytes_retrans, delivery_rate;
};

#endif
