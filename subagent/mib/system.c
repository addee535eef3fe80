/* SPDX-License-Identifier: BSD-2-Clause */
/* system.c - clusterMonSystem: who this node and agent are. */
#include "engine/group.h"
#include "mib.h"

#include "../sources/probes.h"

#include <stdatomic.h>
#include <string.h>

#include <net-snmp/agent/agent_callbacks.h>


static const oid system_oid[] = { CM_OID_clusterMonSystem };

static char node_name[256];
/* Read by the publisher thread too (mib/publish.c). */
static _Atomic uint32_t discontinuity_ticks;

void mib_system_set_node_name(const char *name)
{
	snprintf(node_name, sizeof(node_name), "%s", name);
}

/*
 * TimeStamp is relative to sysUpTime. As a subagent we answer with the agent
 * library's uptime, which it keeps in step with the master's sysUpTime on
 * every AgentX exchange.
 */
void mib_system_mark_discontinuity(void)
{
	discontinuity_ticks = (uint32_t)netsnmp_get_agent_uptime();
}

/*
 * After the master restarts, its sysUpTime starts again from 0 and our
 * counters started before that: RFC 2579 says a TimeStamp of an occurrence
 * before the last re-initialization is 0. net-snmp announces a (re)opened
 * AgentX session with SNMPD_CALLBACK_INDEX_START; the first one is our own
 * start-up, marked by mib_system_mark_discontinuity().
 */
static int sessions_opened;

static int on_session_open(int major, int minor, void *server, void *client)
{
	(void)major, (void)minor, (void)server, (void)client;
	if (sessions_opened++ > 0)
		discontinuity_ticks = 0;
	return SNMP_ERR_NOERROR;
}

void mib_system_watch_sessions(void)
{
	snmp_register_callback(SNMP_CALLBACK_APPLICATION, SNMPD_CALLBACK_INDEX_START,
			       on_session_open, NULL);
}

static int get_node_name(void *view, struct mib_value *v)
{
	(void)view;
	return mib_string(v, node_name);
}

static int get_version(void *view, struct mib_value *v)
{
	(void)view;
	return mib_string(v, CLUSTERMON_VERSION);
}

static int get_discontinuity(void *view, struct mib_value *v)
{
	(void)view;
	return mib_u64(v, ASN_TIMETICKS, discontinuity_ticks);
}

static int get_helper_status(void *view, struct mib_value *v)
{
	const struct probes_snapshot *s = view;

	return mib_u64(v, ASN_INTEGER, (uint64_t)(s != NULL ? s->helper : HELPER_ABSENT));
}

static const struct mib_object system_objects[] = {
	{ .arc = CM_ARC_clusterMonNodeName, .get = get_node_name },
	{ .arc = CM_ARC_clusterMonAgentVersion, .get = get_version },
	{ .arc = CM_ARC_clusterMonDiscontinuityTime, .get = get_discontinuity },
	{ .arc = CM_ARC_clusterMonHelperStatus, .get = get_helper_status },
};

static const struct mib_group system_group = {
	.name = "clusterMonSystem",
	.base = system_oid,
	.base_len = OID_LENGTH(system_oid),
	.objects = system_objects,
	.nobjects = sizeof(system_objects) / sizeof(system_objects[0]),
	.source = SOURCE_PROBES, /* clusterMonHelperStatus */
};

int mib_system_register(void)
{
	return mib_group_register(&system_group);
}
