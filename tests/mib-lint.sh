#!/bin/bash
# mib-lint.sh - CLUSTER-MON-MIB passes smilint at level 6 without a word, and
# net-snmp's parser resolves its objects to the OIDs the agent serves.
. "$(dirname "$0")/system/lib.sh"

[ -n "${SMILINT:-}" ] || SMILINT=$(command -v smilint)
[ -n "$SMILINT" ] || missing_all "smilint not installed (apt-get install smitools)"
echo "1..3"
dirs=$(mib_dirs)
if ! SMIPATH="$dirs" "$SMILINT" -l 1 "$top_srcdir/mibs/CLUSTER-MON-MIB.txt" 2>&1 | grep -q "failed to locate MIB module \`SNMPv2-SMI'"; then
	out=$(SMIPATH="$dirs" "$SMILINT" -s -l 6 "$top_srcdir/mibs/CLUSTER-MON-MIB.txt" 2>&1)
	is "$out" "" "smilint -s -l 6 prints nothing"
else
	ok 1 "smilint cannot find SNMPv2-SMI: run tests/get-base-mibs.sh first"
fi
oid=$(snmptranslate -M "$dirs" -m CLUSTER-MON-MIB -On CLUSTER-MON-MIB::clusterMonCpuUtil 2>/dev/null)
is "$oid" "$CM.3.20.1.10" "clusterMonCpuUtil resolves to the OID the agent serves"
oid=$(snmptranslate -M "$dirs" -m CLUSTER-MON-MIB -On CLUSTER-MON-MIB::clusterMonSourceIntervalMs 2>/dev/null)
is "$oid" "$CM.2.1.1.3" "clusterMonSourceIntervalMs resolves to the OID the agent serves"
exit $(( tap_failed > 0 ))
