/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * cpu.h - the "cpu" source as its readers see it: the snapshot it publishes
 * (clusterMonCpu and clusterMonCpuTable, from /proc/stat and
 * /proc/pressure) and its ops. Served values only, as every snapshot.
 */
#ifndef CLUSTERMON_SOURCES_CPU_H
#define CLUSTERMON_SOURCES_CPU_H

#include <stdbool.h>
#include <stdint.h>

#include "source_ops.h"
#include "../runtime/snapshot.h"
#include "../core/readings.h"

enum cpu_time_kind {
	CPU_USER, CPU_NICE, CPU_SYSTEM, CPU_IDLE, CPU_IOWAIT, CPU_IRQ, CPU_SOFTIRQ,
	CPU_STEAL, CPU_TIME_KINDS
};

struct cpu_row {
	unsigned cpu;                    /* kernel CPU number */
	uint64_t ms[CPU_TIME_KINDS];     /* Counter64 milliseconds */
	uint32_t util;                   /* hundredths of a percent busy */
	bool have_ctxsw;
	uint64_t ctxsw;
};

struct cpu_snapshot {
	struct snapshot hdr;
	uint32_t total_util;
	uint64_t ctxt;
	uint32_t procs_running, procs_blocked;
	struct psi_avgs psi_cpu, psi_io;
	unsigned ncpu;
	struct cpu_row rows[];           /* online CPUs, ascending cpu */
};

extern const struct source_ops cpu_source_ops;

#endif
