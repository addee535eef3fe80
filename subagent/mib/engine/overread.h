/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * overread.h - what a walk reads past the end of what it asked for
 * (overread.c): answered from the last sample, it wakes no source.
 */
#ifndef CLUSTERMON_MIB_OVERREAD_H
#define CLUSTERMON_MIB_OVERREAD_H

#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>
#include <net-snmp/agent/net-snmp-agent-includes.h>

/* How a varbind came to the group: a read, a walk entering it from
 * outside its subtree, or (0 and up) a later repetition of such a walk. */
#define MIB_OVERREAD_NONE (-1)
#define MIB_OVERREAD_ENTERS (-2)

/* Of varbind r, in a GETNEXT of the group whose subtree is base (or in the
 * GET that net-snmp runs first for an AgentX inclusive GETNEXT); any other
 * mode is MIB_OVERREAD_NONE. */
int mib_overread_of(const oid *base, size_t base_len, const netsnmp_agent_request_info *reqinfo,
		    const netsnmp_request_info *r);
/* After a GETNEXT answered r inside the group: how (what mib_overread_of
 * said before the answer) is followed to r's new name, where the walk's
 * next repetition in the same request will come from. */
void mib_overread_answered(int how, const netsnmp_agent_request_info *reqinfo,
			   const netsnmp_request_info *r);

#endif
