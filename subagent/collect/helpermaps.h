/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * helpermaps.h - clustermond reading the helper's per-process accounting
 * itself (issue 30): one "maps" request over the control socket hands it
 * fds of the BPF maps (SCM_RIGHTS); it maps the tgid-slotted sums and the
 * per-CPU "ran" rings read-only (PROT_READ of BPF_F_MMAPABLE arrays) and
 * drains the rings with a tail of its own, so a sample costs the helper
 * nothing and clustermond no system call per process: one lookup of the
 * per-CPU state for the tasks running now.
 *
 * The fds of cpu_state and proc_spill are BPF_F_RDONLY. Those of the two
 * arrays cannot be: the kernel (6.18 here) refuses to mmap a BPF_F_RDONLY
 * map fd even PROT_READ (do_mmap drops VM_SHARED for a file opened without
 * write; bpf_map_mmap then says EINVAL), so they come with write access
 * and are closed as soon as they are mapped: what stays is a PROT_READ
 * mapping that bpf_map_mmap keeps from being made writable (VM_MAYWRITE
 * cleared).
 *
 * The connection that carried the fds stays open: the helper never writes
 * on it again, so anything readable (its close) means the helper went, and
 * with it the programs that feed the maps.
 *
 * Everything is checked as untrusted: the fds must be BPF maps of the
 * types, sizes and flags clustermon_kprobe.h says, the counts in the reply
 * must agree with them, and ring heads and slot contents are bounded by
 * ranlist.c. Another reader of the helper's maps (per-cgroup sums, issue
 * 32) follows the same steps: ask for the fds, check each with
 * helpermap_check, map an array with helpermap_mmap_ro (or read a per-CPU
 * or hash map with helpermap_lookup), and read the memory in a pure
 * function that is fuzzed as the rings are.
 *
 * No net-snmp or libbpf here: the bpf(2) calls are made directly.
 */
#ifndef CLUSTERMON_COLLECT_HELPERMAPS_H
#define CLUSTERMON_COLLECT_HELPERMAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "collect/helper.h"

struct helper_maps;

/* Connects to the helper at path, sends "hello" and "maps", receives and
 * checks the fds and maps them: a reader, or NULL with why (an old helper
 * answers "err invalid unknown request", one with -n "err unsupported"). */
struct helper_maps *helper_maps_attach(const char *path, int timeout_ms, char *why,
				       size_t whylen);
void helper_maps_detach(struct helper_maps *m);
/* False once the helper closed the connection (it stopped or restarted). */
bool helper_maps_alive(struct helper_maps *m);
/*
 * The processes that ran, appeared or exited since the last call, with
 * their sums, into out (as helper_parse_procs gives them, instance
 * included). The first call after attaching, and any after entries were
 * overwritten unread, lists every process holding a slot and sets
 * out->lost. 0, or -1 (out of memory, or the helper's maps failed a read).
 */
int helper_maps_procs(struct helper_maps *m, struct helper_procs *out);

/* One process's sums as of now (its slot, or the spill hash, and the
 * stretch it has run on a CPU since its last switch), raised into *cpu_ns
 * and *run_delay_ns where larger. */
void helper_maps_sums(struct helper_maps *m, uint32_t tgid, uint64_t *cpu_ns,
		      uint64_t *run_delay_ns);

/* 0 when fd is a BPF map of this type (enum bpf_map_type), key and value
 * size and number of entries (and BPF_F_MMAPABLE if mmapable), as the
 * kernel says (BPF_OBJ_GET_INFO_BY_FD); else -1. */
int helpermap_check(int fd, uint32_t type, uint32_t key, uint32_t value, uint64_t entries,
		    bool mmapable);
/* 0 when fd is the link of a BPF iterator (BPF_LINK_TYPE_ITER), as the
 * kernel says; else -1. */
int helpermap_check_iter(int fd);
/* A new iterator of that link to read (BPF_ITER_CREATE): its fd, or -1. */
int helpermap_iter_open(int link_fd);
/* A BPF_F_MMAPABLE array's bytes mapped PROT_READ (a read-only fd allows
 * no more), or NULL. */
const void *helpermap_mmap_ro(int fd, size_t bytes);
/* Reads a reply until `lines` newlines came (the helper sends nothing
 * after it) or deadline (cm_clock_ms), collecting the fds passed with it
 * (at most maxfds, counted in *nfds; any more are closed). 0, or -1. */
int helpermap_recv(int sock, int lines, int64_t deadline, char *buf, size_t cap, int *fds,
		   size_t maxfds, size_t *nfds);
/* The kernel's possible CPUs (/sys/devices/system/cpu/possible): the
 * number of values a per-CPU map's lookup writes. 0 when unreadable. */
uint64_t helpermap_possible_cpus(void);
/* BPF_MAP_LOOKUP_ELEM: value must have room for the map's value size
 * times the possible CPUs for a per-CPU map. 0, or -1 with errno. */
int helpermap_lookup(int fd, const void *key, void *value);
/* BPF_MAP_LOOKUP_BATCH of up to *count entries of a hash map, from the
 * position *token holds (from the start when first), into keys and values;
 * *count gets how many came. 0 with more to come, -1 with errno ENOENT at
 * the end of the map (entries may still have come), or another error. */
int helpermap_lookup_batch(int fd, uint64_t *token, bool first, void *keys, void *values,
			   uint32_t *count);

#endif
