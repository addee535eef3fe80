/* SPDX-License-Identifier: BSD-2-Clause */
/* test_netstat.c - the name/value line pairs of /proc/net/snmp and netstat. */
#include <errno.h>

#include "collect/netstat.h"
#include "tap.h"

static const char *const keys[] = { "ActiveOpens", "MaxConn", "RetransSegs", "Missing" };

int main(void)
{
	const char *snmp =
		"Ip: Forwarding DefaultTTL\nIp: 1 64\n"
		"Tcp: RtoAlgorithm RtoMin RtoMax MaxConn ActiveOpens PassiveOpens RetransSegs\n"
		"Tcp: 1 200 120000 -1 176 3 18446744073709551615\n"
		"Udp: InDatagrams\nUdp: 5\n";
	uint64_t v[4] = { 0 };
	uint32_t found;

	ok(netstat_parse(snmp, "Tcp", keys, 4, v, &found) == 0, "the Tcp pair parses");
	ok(v[0] == 176 && (found & 1), "ActiveOpens");
	ok(v[2] == UINT64_MAX && (found & 4), "a value of 2^64-1");
	ok(!(found & 2), "MaxConn -1 is not a counter: unfound");
	ok(!(found & 8), "a key the kernel does not print is unfound");
	ok(netstat_parse(snmp, "Udp", keys, 4, v, &found) == 0 && found == 0,
	   "another prefix has none of them");
	errno = 0;
	ok(netstat_parse(snmp, "TcpExt", keys, 4, v, &found) == -1 && errno == EINVAL,
	   "a missing prefix is an error");
	ok(netstat_parse("Tcp: A B C\nTcp: 1 2\n", "Tcp", keys, 4, v, &found) == -1,
	   "fewer values than names (a cut line) is refused");
	ok(netstat_parse("Tcp: A B\nTcp: 1 2 3\n", "Tcp", keys, 4, v, &found) == -1,
	   "more values than names is refused");
	ok(netstat_parse("Tcp: ActiveOpens\nTcp: 5", "Tcp", keys, 4, v, &found) == -1,
	   "a value line without its newline is refused");
	ok(netstat_parse("Tcp: ActiveOpens\n", "Tcp", keys, 4, v, &found) == -1,
	   "a header without values is refused");
	ok(netstat_parse("Tcp: ActiveOpens\nTcp: 12x\n", "Tcp", keys, 4, v, &found) == 0 &&
	   found == 0, "a value with junk is not taken");
	ok(netstat_parse("TcpExt: ActiveOpens\nTcpExt: 9\nTcp: ActiveOpens\nTcp: 4\n", "Tcp",
			 keys, 4, v, &found) == 0 && v[0] == 4, "TcpExt is not Tcp");
	return done_testing();
}
