/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * overread.c - what a walk reads past the end of what it asked for.
 *
 * A GETBULK of a table's last rows runs on into whatever follows it: the
 * proc group's top tables into clusterMonTcp, whose connections cost a
 * netlink dump of every socket. What the agent library shows a handler
 * (net-snmp 5.9, agent/snmp_agent.c, agent/mibgroup/agentx/master.c and
 * subagent.c):
 *
 * - snmpd forwards a GETBULK to a subagent as AgentX GetNext PDUs, one
 *   repetition after another, each carrying the transaction id of the
 *   client's request (pdu->transid here): the subagent never sees the
 *   GETBULK, only MODE_GETNEXT (or its GET pass, below).
 * - When a repetition leaves one registered subtree, snmpd sends the next
 *   subtree's owner its start as an inclusive search range; net-snmp's
 *   subagent runs an inclusive GETNEXT as a GET of the start first, then a
 *   GETNEXT from it, with request->inclusive set in both.
 * - Inside the subagent, a GETNEXT its own group cannot answer moves on to
 *   the next group registered here with the name unchanged, before the
 *   master's range throws the answer away: the handler sees a name that
 *   precedes its subtree.
 *
 * - snmpd sets inclusive only on a varbind whose walk ran off the end of
 *   the subtree it was in; with clustermon.so loaded, subtrees end inside
 *   our groups too (its registrations leave gaps that are ours: after
 *   clusterMonTcpTimeouts, a GETBULK of the top tables runs on into
 *   clustermond at clusterMonTcp.9, then into the connections).
 *
 * So a varbind whose name precedes the group's subtree, or that comes with
 * inclusive set, entered the group from outside: its walk was asked for
 * something else. A client's own GETNEXT of the group's OID, or of any
 * name in it, comes without inclusive and is a read. The repetitions that
 * follow come back as ordinary GETNEXTs from the instance answered last,
 * so each answer of such a walk is remembered with its transaction: a
 * GETNEXT of the same transaction from exactly that instance continues
 * the over-read. A later request (a new transaction) is the client asking
 * on, and a read.
 */
#include "overread.h"
#include "common/clock.h"

#include <stdbool.h>
#include <string.h>

/* Walks followed at once; one forgotten only costs a wake-up it would
 * have made anyway. Longer names (no instance of ours) are not followed. */
#define CHAINS 32
#define CHAIN_OID_MAX 40
/* snmpd retries a subagent for a few seconds at most: older entries can
 * only match a transaction id a restarted snmpd gave again. */
#define CHAIN_TTL_NS (10ull * 1000000000u)

static struct chain {
	long transid;
	uint64_t at_ns;
	size_t len;   /* 0: unused */
	oid name[CHAIN_OID_MAX];
} chains[CHAINS];
static unsigned next_chain;

static bool has_transid(const netsnmp_agent_request_info *reqinfo)
{
	return reqinfo->asp != NULL && reqinfo->asp->pdu != NULL;
}

static int find(long transid, const oid *name, size_t len)
{
	for (int i = 0; i < CHAINS; i++) {
		const struct chain *c = &chains[i];

		if (c->len == len && c->transid == transid &&
		    memcmp(c->name, name, len * sizeof(oid)) == 0)
			return i;
	}
	return -1;
}

static bool enters(const oid *base, size_t base_len, const netsnmp_request_info *r)
{
	const netsnmp_variable_list *vb = r->requestvb;
	int c = snmp_oid_compare(vb->name, vb->name_length, base, base_len);

	return c < 0 || r->inclusive;
}

int mib_overread_of(const oid *base, size_t base_len, const netsnmp_agent_request_info *reqinfo,
		    const netsnmp_request_info *r)
{
	const netsnmp_variable_list *vb = r->requestvb;
	int i;

	if (reqinfo->mode != MODE_GETNEXT && reqinfo->mode != MODE_GET)
		return MIB_OVERREAD_NONE;
	if (reqinfo->mode == MODE_GETNEXT || r->inclusive) {
		if (enters(base, base_len, r))
			return MIB_OVERREAD_ENTERS;
	}
	if (!has_transid(reqinfo) || vb->name_length > CHAIN_OID_MAX)
		return MIB_OVERREAD_NONE;
	i = find(reqinfo->asp->pdu->transid, vb->name, vb->name_length);
	if (i < 0 || cm_clock_ns() - chains[i].at_ns >= CHAIN_TTL_NS)
		return MIB_OVERREAD_NONE;
	return i;
}

void mib_overread_answered(int how, const netsnmp_agent_request_info *reqinfo,
			   const netsnmp_request_info *r)
{
	const netsnmp_variable_list *vb = r->requestvb;
	long transid;
	int i;

	if (how == MIB_OVERREAD_NONE || !has_transid(reqinfo))
		return;
	transid = reqinfo->asp->pdu->transid;
	if (vb->name_length > CHAIN_OID_MAX) {
		if (how >= 0)
			chains[how].len = 0;
		return;
	}
	/* The subagent's own walk and the master's inclusive one answer the
	 * same first instance: one entry for both. */
	i = find(transid, vb->name, vb->name_length);
	if (i < 0)
		i = how >= 0 ? how : (int)(next_chain++ % CHAINS);
	else if (how >= 0 && how != i)
		chains[how].len = 0;
	chains[i].transid = transid;
	chains[i].at_ns = cm_clock_ns();
	chains[i].len = vb->name_length;
	memcpy(chains[i].name, vb->name, vb->name_length * sizeof(oid));
}
