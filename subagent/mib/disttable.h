/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * disttable.h - clusterMonDistTable and its limit scalars, served inside the
 * clusterMonDistributions group (dist.c registers that subtree once): the
 * group hands its requests and its view's life to these.
 */
#ifndef CLUSTERMON_MIB_DISTTABLE_H
#define CLUSTERMON_MIB_DISTTABLE_H

#include "engine/group.h"
#include "engine/rowtable.h"

extern const struct mib_table disttable_view;
int disttable_max_rows(void *view, struct mib_value *v);
int disttable_max_inflight(void *view, struct mib_value *v);
/* Around every request of the group: the rows and the source's readings,
 * into the view the group's view begins with (disttable_view reads it). */
void disttable_acquire(struct rt_view *v);
void disttable_release(struct rt_view *v);
void disttable_set_request(netsnmp_agent_request_info *reqinfo,
			   netsnmp_request_info *requests, size_t base_len);
/* Before init_snmp: the directive and persistent storage. */
void disttable_init(void);
void disttable_clear(void);

#endif
