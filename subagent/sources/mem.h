/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * mem.h - the "mem" source as its readers see it: the snapshot it publishes
 * (clusterMonMemory, from /proc/meminfo, /proc/vmstat and
 * /proc/pressure/memory) and its ops.
 */
#ifndef CLUSTERMON_SOURCES_MEM_H
#define CLUSTERMON_SOURCES_MEM_H

#include <stdbool.h>
#include <stdint.h>

#include "source_ops.h"
#include "../runtime/snapshot.h"
#include "../core/readings.h"

struct mem_snapshot {
	struct snapshot hdr;
	uint64_t total_kb, available_kb, free_kb, cached_kb, buffers_kb, dirty_kb;
	uint64_t swap_total_kb, swap_free_kb;
	bool have_available;
	uint64_t minor_faults, major_faults, swap_ins, swap_outs;
	struct psi_avgs psi_mem;
};

extern const struct source_ops mem_source_ops;

#endif
