#!/bin/bash
# setbad.sh - SETs net-snmp's snmpset cannot even send (NULL values), wrong
# types, oversize strings and out-of-range values on every writable object:
# each gets its error status, and walks before and after are the same.
. "$(dirname "$0")/lib.sh"

plan 16
PY=/usr/bin/python3
$PY -c 'import pysnmp.hlapi' 2>/dev/null || bail "python3-pysnmp4 is missing (tests/setup-deps.sh)"
start_master || bail "snmpd did not start"
start_agent || bail "clustermond did not register"
# Rows 7 of the three read-create tables, waiting for their columns.
set_rw "$clusterMonProbeRowStatus.7" i 5 "$clusterMonThresholdRowStatus.7" i 5 "$clusterMonHistoryCtlRowStatus.7" i 5 >/dev/null
writable() { walk "$clusterMonSourceIntervalMs"; walk "$clusterMonProcFilterName"; walk "$clusterMonProcFilterUid"; walk "$clusterMonProcFilterTopN"; walk "$clusterMonProbeTable"; walk "$clusterMonHistoryCtlTable"; walk "$clusterMonThresholdTable"; }
before=$(writable)
"$PY" "$(dirname "$0")/setbad_py.py" 127.0.0.1 "$PORT" "$clusterMonObjects" 1
[ $? -eq 0 ] || tap_failed=1
tap_n=15
after=$(writable)
[ "$before" = "$after" ]; ok $? "a walk of every writable object before and after is the same"
[ "$before" = "$after" ] || diag "$(diff <(echo "$before") <(echo "$after") | head -n 10)"
finish
