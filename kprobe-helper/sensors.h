/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * sensors.h - the user-space side of sensors.bpf.c: the helper's default
 * sensors, attached once at start-up.
 */
#ifndef CLUSTERMON_SENSORS_H
#define CLUSTERMON_SENSORS_H

#include <linux/types.h>
#include <stdbool.h>
#include <stdio.h>

#include "common/clustermon_kprobe.h"
#include "common/ranlist.h"

struct sensors_bpf;
struct bpf_link;

/* The sensors a site can turn off (clustermon-kprobe -S LIST); the busy
 * time and switch counts per CPU, TCP retransmits and drops always run. */
#define SENSOR_PROC 1u      /* CPU time and run delay per process, the ran lists */
#define SENSOR_CGROUP 2u    /* CPU time and run-queue waits per cgroup */
#define SENSOR_RUNQLAT 4u   /* the node's run-queue latency distribution */
#define SENSOR_EXITS 8u     /* the exit log and OOM victims (exit_ring) */
#define SENSOR_ALL 15u

/* LIST ("proc,cgroup,runqlat,exits", any subset in any order, or "none") into
 * *features: 0, or -1 naming the word it does not know in why. */
int sensors_parse(const char *list, unsigned *features, char *why, size_t whylen);

struct sensors {
	struct sensors_bpf *skel;   /* NULL when they could not start */
	bool btf;                 /* tp_btf programs (else raw_tp) */
	bool per_process;         /* CPU time and run delay per process */
	bool per_cgroup;          /* CPU time and waits per cgroup */
	bool runqlat;             /* the node's run-queue latency distribution */
	bool cgroup_storage;      /* per-cgroup sums in cgroup storage, not the hash */
	bool exit_log;            /* the exit log's ring (exit.bpf.h) */
	struct bpf_link *cg_iter; /* then the iterator that reads them */
	/* Per-process accounting's maps, mapped into our memory: the slots
	 * (nslots, a power of two) and one ring per possible CPU. */
	struct cm_proc_slot *slots;
	size_t nslots, slots_bytes;
	unsigned char *rings;
	size_t nrings, rings_bytes;
	struct ran_reader reader;   /* the text procs reply's own tails */
	/* skb_drop_reason names from the kernel's BTF, without the
	 * SKB_DROP_REASON_ prefix; NULL where the kernel has none. */
	char *reason[CM_DROP_REASONS];
};

/* 0, or -1 with why (the helper then runs without them). tp_btf first,
 * raw_tp when the kernel refuses it or raw_only says so. features: the
 * SENSOR_ bits to run. */
int sensors_start(struct sensors *s, bool raw_only, unsigned features, char *why,
		  size_t whylen);
void sensors_stop(struct sensors *s);
/* The read-reply lines of the sensors (busy, switches, runqlat, sensors,
 * and "drop REASON COUNT NAME" per reason seen); the number of lines. */
int sensors_report(const struct sensors *s, FILE *out);
/* The procs-reply lines "proc TGID CPU-NS RUN-DELAY-NS MARK" of the
 * processes that ran (MARK 1, or running now), whose leader or last thread
 * exited (2) or that are new or exec'd (3) since the last call, one per
 * tgid; drains the per-CPU lists, so it costs in proportion to what they
 * hold, not to the number of processes. The number of lines. */
int sensors_report_procs(struct sensors *s, FILE *out);

/* The maps clustermond reads itself (the "maps" request), in this order:
 * proc_slots, ran_rings, cpu_state, proc_spill. */
#define SENSORS_SHARED_MAPS 4
/* Fresh fds of them into fds: BPF_F_RDONLY for cpu_state and proc_spill;
 * the two arrays with write access, which mmap needs even for a PROT_READ
 * mapping (clustermond closes them once mapped). 0, or -1 (none open) when
 * per-process accounting does not run. */
int sensors_share_fds(const struct sensors *s, int *fds);
/* Fresh fds of the per-cgroup sums (cgroup_sched, BPF_F_RDONLY, or the
 * link of the iterator over the cgroups' storage) and of cpu_state
 * (BPF_F_RDONLY) into fds[0..1] (the "cgmaps" request): 0, or -1 (none
 * open) when the per-cgroup sums are not
 * kept (-S without cgroup, or no sensors). */
int sensors_share_cgroup_fds(const struct sensors *s, int *fds);
/* Fresh fds of exit_ring and oom_ring (the "exits" request) into
 * fds[0..1]: with write access, as a ring buffer's reader must move its
 * consumer position in the first page it maps (all a writer of that page
 * can change: how much room the programs see; the helper never reads it).
 * 0, or -1 (none open) when the exit log does not run. */
int sensors_share_exit_fd(const struct sensors *s, int *fds);

#endif
