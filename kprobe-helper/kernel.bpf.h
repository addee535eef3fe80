/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * kernel.bpf.h - the few kernel types the BPF programs read, declared here
 * instead of a vmlinux.h dumped from the build host's kernel BTF, so the
 * helper builds in a clean chroot, on a builder running another kernel, or
 * one without CONFIG_DEBUG_INFO_BTF (BPF side only).
 *
 * This is CO-RE: preserve_access_index makes clang record every access to
 * these fields as a relocation by name, and libbpf resolves it against the
 * running kernel's BTF at load time. So a declaration needs the field names
 * and kinds the programs use (an enum must stay a same-named enum, libbpf
 * checks), never the kernel's layout or other fields. Everything else comes
 * from the UAPI headers (linux-libc-dev), which do not depend on a kernel.
 */
#ifndef CLUSTERMON_KERNEL_BPF_H
#define CLUSTERMON_KERNEL_BPF_H

#include <linux/types.h>
#include <linux/bpf.h>
#include <stdbool.h>

struct sched_info {
	unsigned long long run_delay;
} __attribute__((preserve_access_index));

typedef struct {
	int counter;
} atomic_t;

/* What the exit log reads (exit.bpf.h): the group's sums of the threads
 * already gone, and its high-water marks. ioac exists with
 * CONFIG_TASK_XACCT only: read behind bpf_core_field_exists. */
struct task_io_accounting {
	__u64 read_bytes;
	__u64 write_bytes;
} __attribute__((preserve_access_index));

struct mm_struct;

struct signal_struct {
	atomic_t live;          /* threads of the group not yet exiting */
	__u64 utime;
	__u64 stime;
	unsigned long maj_flt;
	unsigned long maxrss;   /* KB, the group's peak RSS (set at group exit) */
	struct task_io_accounting ioac;
	unsigned long long sum_sched_runtime;
	struct mm_struct *oom_mm;   /* set when the OOM killer chose the group */
} __attribute__((preserve_access_index));

struct mm_struct {
	unsigned long arg_start;
	unsigned long arg_end;
} __attribute__((preserve_access_index));

typedef struct {
	__u32 val;
} kuid_t;

struct cred {
	kuid_t uid;
} __attribute__((preserve_access_index));

struct sched_entity {
	__u64 sum_exec_runtime;
} __attribute__((preserve_access_index));

/* A task's cgroup in the unified hierarchy: cgroups->dfl_cgrp->kn->id is
 * its cgroup id (the directory's inode, since Linux 5.5). */
struct kernfs_node {
	__u64 id;
} __attribute__((preserve_access_index));

struct cgroup {
	struct kernfs_node *kn;
} __attribute__((preserve_access_index));

struct cgroup_subsys_state {
	struct cgroup *cgroup;
} __attribute__((preserve_access_index));

/* A controller's slot in css_set.subsys: its value comes from the running
 * kernel (bpf_core_enum_value), the one here is a placeholder. */
enum cgroup_subsys_id {
	memory_cgrp_id,
};

/* subsys[]'s length is the running kernel's: indexed below its own. */
#define CM_CGROUP_SUBSYS_MAX 16
struct css_set {
	struct cgroup *dfl_cgrp;
	struct cgroup_subsys_state *subsys[CM_CGROUP_SUBSYS_MAX];
} __attribute__((preserve_access_index));

struct task_struct {
	int pid;
	int tgid;
	int prio;
	char comm[16];
	unsigned int __state;   /* since Linux 5.14 */
	struct sched_info sched_info;
	struct signal_struct *signal;
	struct css_set *cgroups;
	struct sched_entity se;
	struct mm_struct *mm;
	int exit_code;
	struct task_struct *real_parent;
	struct task_struct *group_leader;
	__u64 utime;
	__u64 stime;
	__u64 start_time;       /* CLOCK_MONOTONIC ns */
	unsigned long maj_flt;
	const struct cred *real_cred;
	struct task_io_accounting ioac;
} __attribute__((preserve_access_index));

/* Before 5.14 the state had another name and width (a CO-RE flavour:
 * libbpf matches it to task_struct, ignoring the ___ suffix). */
struct task_struct___old {
	long state;
} __attribute__((preserve_access_index));

/* The value read is passed on as a number; no enumerator is used. */
enum skb_drop_reason {
	CM_SKB_DROP_REASON_ANY,
};

/* The context of the skb:kfree_skb tracepoint (reason since Linux 5.17;
 * sensors.bpf.c checks that the field exists before reading it). */
struct trace_event_raw_kfree_skb {
	enum skb_drop_reason reason;
} __attribute__((preserve_access_index));

/* The context of a cgroup iterator (Linux 6.1). */
struct seq_file;
struct bpf_iter_meta {
	struct seq_file *seq;
} __attribute__((preserve_access_index));

struct bpf_iter__cgroup {
	struct bpf_iter_meta *meta;
	struct cgroup *cgroup;
} __attribute__((preserve_access_index));

/* What the TCP programs (tcpiter.bpf.c) read: the namespace, addresses and
 * state in sock_common (the kernel's anonymous unions are matched through
 * by name), the protocol and owner, and the fields tcp_info is made of
 * (tcp_get_info()). */
#include <linux/in6.h>
struct ns_common {
	unsigned int inum;      /* the namespace's inode, as /proc/PID/ns/net */
} __attribute__((preserve_access_index));

struct net {
	struct ns_common ns;
} __attribute__((preserve_access_index));

typedef struct {
	struct net *net;
} possible_net_t;

struct sock_common {
	possible_net_t skc_net;
	__be32 skc_daddr;
	__be32 skc_rcv_saddr;
	__be16 skc_dport;
	__u16 skc_num;
	unsigned short skc_family;
	volatile unsigned char skc_state;
	struct in6_addr skc_v6_daddr;
	struct in6_addr skc_v6_rcv_saddr;
} __attribute__((preserve_access_index));

struct sock {
	struct sock_common __sk_common;
	__u16 sk_protocol;
	kuid_t sk_uid;
} __attribute__((preserve_access_index));

struct inet_sock {
	struct sock sk;
} __attribute__((preserve_access_index));

struct inet_connection_sock {
	struct inet_sock icsk_inet;
	__u32 icsk_rto;         /* jiffies */
} __attribute__((preserve_access_index));

struct minmax_sample {
	__u32 t;
	__u32 v;
} __attribute__((preserve_access_index));

struct minmax {
	struct minmax_sample s[3];
} __attribute__((preserve_access_index));

struct tcp_sock {
	struct inet_connection_sock inet_conn;
	__u32 srtt_us;          /* << 3 */
	__u32 mdev_us;          /* << 2 */
	struct minmax rtt_min;
	__u32 snd_cwnd;
	__u32 snd_ssthresh;
	__u32 mss_cache;
	__u64 bytes_acked;
	__u64 bytes_received;
	__u64 bytes_retrans;
	__u32 segs_out;
	__u32 segs_in;
	__u32 data_segs_out;
	__u32 data_segs_in;
	__u32 total_retrans;
	__u32 lost_out;
	__u32 dsack_dups;
	__u32 rate_delivered;
	__u32 rate_interval_us;
	__u32 write_seq;
	__u32 snd_nxt;
	struct {
		__u32 rtt_us;   /* << 3 */
	} rcv_rtt_est;
} __attribute__((preserve_access_index));

/* The context of an sk_storage map's iterator (Linux 5.9): each socket
 * that has storage in the map, and its value (read-write). */
struct bpf_map;
struct bpf_iter__bpf_sk_storage_map {
	struct bpf_iter_meta *meta;
	struct bpf_map *map;
	struct sock *sk;
	void *value;
} __attribute__((preserve_access_index));

/* The context of a TCP iterator (Linux 5.9): every socket of the reader's
 * network namespace, full, request or time-wait (sock_common). */
struct bpf_iter__tcp {
	struct bpf_iter_meta *meta;
	struct sock_common *sk_common;
	__u32 uid;
} __attribute__((preserve_access_index));

/* The context of the oom:mark_victim tracepoint: pid in every version
 * (the task and uid came in Linux 6.8 as the raw tracepoint's arguments). */
struct trace_event_raw_mark_victim {
	int pid;
} __attribute__((preserve_access_index));

/* kprobe programs take it and pass it nowhere. */
struct pt_regs;

#endif
