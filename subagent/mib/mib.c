/* SPDX-License-Identifier: BSD-2-Clause */
/* mib.c - registers every clusterMon group with the agent library. */
#include "mib.h"

int mib_register_all(void)
{
	if (mib_system_register() != 0 || mib_sampling_register() != 0 ||
	    mib_cpu_register() != 0 || mib_memory_register() != 0 ||
	    mib_proc_register() != 0 || mib_tcp_register() != 0 ||
	    mib_pcap_register() != 0 ||
	    mib_dist_register() != 0 ||
	    mib_history_register() != 0 || mib_thresholds_register() != 0 ||
	    mib_probes_register() != 0 || mib_trace_register() != 0 ||
	    mib_cgroup_register() != 0 || mib_agent_register() != 0 ||
	    mib_exit_register() != 0)
		return -1;
	return 0;
}
