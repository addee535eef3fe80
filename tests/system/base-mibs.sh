#!/bin/bash
# base-mibs.sh - tests/get-base-mibs.sh on a machine that has no base
# modules (BASE_MIB_DIRS empty, a scratch DEST): it takes them from Debian's
# erlang-snmp without installing Erlang, says so per module, falls back to
# the stand-in only for HCNUM-TC, and CLUSTER-MON-MIB then resolves by name
# with nothing but those directories on the path.
. "$(dirname "$0")/lib.sh"

command -v apt-get >/dev/null && command -v dpkg-deb >/dev/null ||
	skip_all "not a Debian system (apt-get, dpkg-deb)"
plan 4
dest="$T/mibs"
out=$(BASE_MIB_DIRS= "$top_srcdir/tests/get-base-mibs.sh" "$dest" 2>&1); rc=$?
is "$rc" 0 "get-base-mibs.sh succeeds from nothing"
sed "s/^/# /" <<<"$out"
n=$(grep -c ': erlang-snmp .*(installed ' <<<"$out")
is "$n" 5 "SNMPv2-SMI/TC/CONF/MIB and INET-ADDRESS-MIB from erlang-snmp, each said"
grep -q '^get-base-mibs: HCNUM-TC: stand-in ' <<<"$out"; ok $? "HCNUM-TC from the stand-in, said"
# NET-SNMP-MIB is libsnmp-base's; no other system directory on the path.
oid=$(snmptranslate -M "$dest:/usr/share/snmp/mibs:$top_srcdir/mibs:$top_srcdir/tests/mibs" \
	-m CLUSTER-MON-MIB -On CLUSTER-MON-MIB::clusterMonTcpConnRemAddress 2>"$T/translate.log")
is "$oid" "$clusterMonTcpConnRemAddress" "CLUSTER-MON-MIB resolves by name with those modules"
finish
