/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * filter.bpf.h - the filters of spec.h as every run-time program applies
 * them (probes.bpf.c, trace.bpf.c, dist.bpf.c): the pid and CPU filters and
 * 1-in-N sampling, decided before any map write. The programs pass their
 * load-time constants, so the verifier drops the tests a row does not use
 * (BPF side only).
 */
#ifndef CLUSTERMON_FILTER_BPF_H
#define CLUSTERMON_FILTER_BPF_H

/* True when the event is not the program's: another process (tgid >= 0)
 * or another CPU (cpu >= 0). */
static __always_inline bool cm_filtered_out(__s32 tgid, __s32 cpu)
{
	if (tgid >= 0 && (__s32)(bpf_get_current_pid_tgid() >> 32) != tgid)
		return true;
	if (cpu >= 0 && (__s32)bpf_get_smp_processor_id() != cpu)
		return true;
	return false;
}

/* Counts a hit; true (and counted as sampled) when 1-in-N keeps it. */
static __always_inline bool cm_sampled(__u64 *hits, __u64 *sampled, __u32 every)
{
	(*hits)++;
	if (every > 1 && *hits % every != 0)
		return false;
	(*sampled)++;
	return true;
}

#endif
