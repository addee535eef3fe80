/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_overread.c - what counts as reading past the end of a walk
 * (mib/engine/overread.c), on requests shaped as net-snmp's agent library hands
 * them to a subagent's handler: a name before the group's subtree, or any
 * name in it with inclusive set, enters it from outside; the same request's
 * next repetition from the instance answered continues; a client's own
 * GETNEXT of the group's OID, another request from that instance, and any
 * SET are reads.
 */
#include <string.h>

#include "mib/engine/overread.h"
#include "fake_clock.h"
#include "tap.h"

static const oid base[] = { 1, 3, 6, 1, 4, 1, 8072, 9999, 77, 1, 6 };
#define BASE_LEN (sizeof(base) / sizeof(base[0]))

static netsnmp_pdu pdu;
static netsnmp_agent_session asp;
static netsnmp_agent_request_info reqinfo;
static netsnmp_variable_list vb;
static netsnmp_request_info req;

/* A varbind of request transid in mode: base's arcs, then more. */
static void ask(int mode, long transid, int inclusive, size_t n, const oid *more)
{
	pdu.transid = transid;
	asp.pdu = &pdu;
	reqinfo.asp = &asp;
	reqinfo.mode = mode;
	vb.name = vb.name_loc;
	memcpy(vb.name, base, sizeof(base));
	memcpy(vb.name + BASE_LEN, more, n * sizeof(oid));
	vb.name_length = BASE_LEN + n;
	req.requestvb = &vb;
	req.inclusive = inclusive;
}

static int how(void)
{
	return mib_overread_of(base, BASE_LEN, &reqinfo, &req);
}

/* The handler answered: the varbind now names base.more. */
static void answer(int h, size_t n, const oid *more)
{
	memcpy(vb.name + BASE_LEN, more, n * sizeof(oid));
	vb.name_length = BASE_LEN + n;
	mib_overread_answered(h, &reqinfo, &req);
}

static void entering(void)
{
	static const oid none[1];
	int h;

	ask(MODE_GETNEXT, 7, 0, 0, none);
	vb.name[BASE_LEN - 1] = 5;
	vb.name[BASE_LEN] = 4;
	vb.name_length = BASE_LEN + 1;
	ok(how() == MIB_OVERREAD_ENTERS,
	   "GETNEXT from the group before it (the subagent moving on): enters from outside");
	ask(MODE_GETNEXT, 7, 0, 0, none);
	ok(how() == MIB_OVERREAD_NONE, "GETNEXT of the group's OID from a client: a read");
	ask(MODE_GETNEXT, 7, 1, 0, none);
	h = how();
	ok(h == MIB_OVERREAD_ENTERS, "the group's start, inclusive (the master moving on): enters");
	ask(MODE_GET, 7, 1, 0, none);
	ok(how() == MIB_OVERREAD_ENTERS, "and so does the GET pass of that inclusive GETNEXT");
	ask(MODE_GETNEXT, 7, 1, 1, (const oid[]){ 9 });
	ok(how() == MIB_OVERREAD_ENTERS,
	   "a start inside it, inclusive (a gap clustermon.so's registrations left): enters");
	ask(MODE_GETNEXT, 7, 0, 1, (const oid[]){ 9 });
	ok(how() == MIB_OVERREAD_NONE, "the same name from a client, not inclusive: a read");
	ask(MODE_SET_RESERVE1, 7, 1, 0, none);
	ok(how() == MIB_OVERREAD_NONE, "a SET is never an over-read");
	ask(MODE_GETNEXT, 7, 1, 0, none);
	answer(h, 2, (const oid[]){ 1, 0 });
}

static void following(void)
{
	static const oid first[] = { 1, 0 }, second[] = { 2, 0 };
	int h;

	ask(MODE_GETNEXT, 7, 0, 2, first);
	h = how();
	ok(h >= 0, "the same request's next repetition, from the instance answered: over-read");
	ask(MODE_GET, 7, 0, 2, first);
	ok(how() == h, "in the GET pass of a request with an inclusive varbind too");
	ask(MODE_GETNEXT, 8, 0, 2, first);
	ok(how() == MIB_OVERREAD_NONE, "another request from that instance: a read");
	ask(MODE_GETNEXT, 7, 0, 2, second);
	ok(how() == MIB_OVERREAD_NONE, "the same request from another instance: a read");
	ask(MODE_GETNEXT, 7, 0, 2, first);
	answer(h, 2, second);
	ask(MODE_GETNEXT, 7, 0, 2, second);
	ok(how() == h, "the walk is followed on to its next answer, in the same entry");
	ask(MODE_GETNEXT, 7, 0, 2, first);
	ok(how() == MIB_OVERREAD_NONE, "and the instance it left is no longer one");
}

static void forgetting(void)
{
	static const oid second[] = { 2, 0 };

	fake_now += 11 * FAKE_SEC;
	ask(MODE_GETNEXT, 7, 0, 2, second);
	ok(how() == MIB_OVERREAD_NONE, "10 s on, a walk is forgotten (a restarted snmpd's ids)");
}

int main(void)
{
	fake_clock_start(1000 * FAKE_MS);
	entering();
	following();
	forgetting();
	fake_clock_stop();
	return done_testing();
}
