/* SPDX-License-Identifier: BSD-2-Clause */
/* defer.h - requests that wait for an idle source's next sample (defer.c). */
#ifndef CLUSTERMON_MIB_DEFER_H
#define CLUSTERMON_MIB_DEFER_H

#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>
#include <net-snmp/agent/net-snmp-agent-includes.h>

#include "../../sources/source_ops.h"

/* Each source's samples so far (sampler_samples), taken before a read
 * declares its demand: a sample that ends between the demand and the
 * delegation (a sampler thread preempting the SNMP thread) then counts,
 * where counted after it, the read would wait for one that a source
 * sampling only when read may never take. */
struct mib_samples {
	uint64_t n[SOURCE_LAST + 1];
};
void mib_samples_now(unsigned mask, struct mib_samples *out);

/* How a delegated request is answered once its sources sampled: what the
 * handler would have done, with ctx as it was given. */
typedef void (*mib_answer_fn)(const void *ctx, netsnmp_agent_request_info *reqinfo,
			      netsnmp_request_info *requests);

/* Delegates the requests until every source of woken (a bit per enum
 * source_index) has sampled since before, or MIB_DEFER_MAX_MS passed, then calls
 * answer: 0, or -1 when they must be answered now. Well inside the
 * master's AgentX timeout (1 s by default), which would otherwise resend
 * the request while this one waits. */
#define MIB_DEFER_MAX_MS 500u
int mib_defer(mib_answer_fn answer, const void *ctx, netsnmp_mib_handler *handler,
	      netsnmp_handler_registration *reg, netsnmp_agent_request_info *reqinfo,
	      netsnmp_request_info *requests, unsigned woken, const struct mib_samples *before);
/* Answers the reads that waited for an idle source's next sample: the SNMP
 * thread's loop calls it each time it wakes. */
void mib_defer_poll(void);

#endif
