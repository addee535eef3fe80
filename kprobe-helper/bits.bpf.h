/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* bits.bpf.h - small helpers the BPF programs share (BPF side only). */
#ifndef CLUSTERMON_BITS_BPF_H
#define CLUSTERMON_BITS_BPF_H

#include "common/clustermon_kprobe.h"

/* The log2 slot of a duration: the highest set bit, found by halving the
 * width each step (five steps the verifier sees through), capped at the
 * last slot. */
static __always_inline __u32 log2_slot(__u64 v)
{
	__u32 r = 0;

#pragma unroll
	for (int shift = 32; shift > 0; shift >>= 1) {
		if (v >> shift) {
			v >>= shift;
			r += shift;
		}
	}
	return r < CM_HIST_SLOTS ? r : CM_HIST_SLOTS - 1;
}

#endif
