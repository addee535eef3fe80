/* SPDX-License-Identifier: BSD-2-Clause */
/* mib.h - the clusterMon groups this agent serves. */
#ifndef CLUSTERMON_MIB_H
#define CLUSTERMON_MIB_H

#include <stdint.h>

/* CM_OID_<name>, CM_ARC_<name>: the MIB's numbers, generated from
 * mibs/CLUSTER-MON-MIB.txt by mibs/gen-oids.awk at build time. */
#include "mib/cm-oids.h"

/* Registers every group; -1 if one could not be registered. */
int mib_register_all(void);

/* Values the system group serves, kept by main.c. */
void mib_system_set_node_name(const char *name);
/* Marks a counter discontinuity now (start-up, counters restarted). */
void mib_system_mark_discontinuity(void);
/* Resets the discontinuity to 0 when the master restarts (call before init_snmp). */
void mib_system_watch_sessions(void);

int mib_system_register(void);
int mib_sampling_register(void);
int mib_cpu_register(void);
int mib_memory_register(void);
int mib_proc_register(void);
/* The procFilter scalars serve what the last (re)load or SET asked for;
 * a (re)load sets them back to the configuration's filter (reload.c). */
struct proc_filter;
void mib_proc_configure(const struct proc_filter *f);
int mib_tcp_register(void);
int mib_pcap_register(void);
int mib_dist_register(void);
int mib_history_register(void);
int mib_thresholds_register(void);
int mib_probes_register(void);
int mib_trace_register(void);
int mib_cgroup_register(void);
int mib_agent_register(void);
int mib_exit_register(void);
/* Sends clusterMonOomKill for the OOM victims reported since the last call
 * (the SNMP thread's loop calls it when woken). */
void mib_exit_notify(void);
/* Frees the read-create tables' rows (at exit, after the last snmp_store). */
void mib_history_clear(void);
void mib_thresholds_clear(void);
void mib_probes_clear(void);
void mib_trace_clear(void);
void mib_dist_clear(void);

#endif
