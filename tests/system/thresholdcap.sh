#!/bin/bash
# thresholdcap.sh - clusterMonThresholdTable holds at most 1024 rows, config
# lines included, each sampling at most every 100 ms (issue 40: 65,535 rows
# at 10 ms on the SNMP thread). With 1024 rows from clustermond.conf a SET
# creating one more is resourceUnavailable and changes nothing; a config
# file with a 1025th threshold line, or an interval under 100 ms, is refused
# naming its file:line.
. "$(dirname "$0")/lib.sh"

plan 7
start_master || bail "snmpd did not start"
TH=$clusterMonThresholdEntry
row() { echo "threshold cap$1 $clusterMonMemTotalKB.0 rising=18446744073709551615 falling=0 interval=3600000"; }
for i in $(seq 1 1024); do row "$i"; done >"$T/full.conf"
start_agent -c "$T/full.conf" || bail "clustermond did not register with 1024 threshold rows"
rows() { walk "$TH.11" | grep -c " 1$"; }
is "$(rows)" 1024 "1024 threshold lines make 1024 active rows"
before=$(walk "$TH" | grep -v "^$TH\.8\.")
refused "createAndGo of row 1025" resourceUnavailable "$TH.11.2000" i 4 "$TH.2.2000" o "$clusterMonMemTotalKB.0" \
	"$TH.5.2000" s 10 "$TH.6.2000" s 5
refused "createAndWait of row 1025" resourceUnavailable "$TH.11.2001" i 5
after=$(walk "$TH" | grep -v "^$TH\.8\.")
[ "$before" = "$after" ]; ok $? "and the table is as it was ($(rows) rows)"
stop_agent

{ for i in $(seq 1 1025); do row "$i"; done; } >"$T/over.conf"
out=$(timeout 20 "$CLUSTERMOND" -f -Le -x "$AGENTX" -c "$T/over.conf" 2>&1)
rc=$?
echo "$out" >>"$T/clustermond.stderr"
[ $rc -ne 0 ] && contains "over.conf: line 1025:" "$out" &&
	contains "more than 1024 rows (clusterMonThresholdTable holds at most 1024)" "$out"
ok $? "a 1025th threshold line is refused at start-up with its file:line (exit $rc)"
[ $rc -ne 0 ] || diag "$(tail -3 <<<"$out")"
bad "a threshold at 99 ms" "threshold t $clusterMonMemTotalKB.0 rising=1 falling=0 interval=99" \
	"interval=100..3600000"
bad "a threshold at 10 ms, once allowed" "threshold t $clusterMonMemTotalKB.0 rising=1 falling=0 interval=10" \
	"interval=100..3600000"
finish
