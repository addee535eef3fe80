#!/bin/bash
# malformed.sh - requests no table expects: indexes of length 0, too short,
# too long (up to 128 sub-identifiers in all), sub-identifiers 256, 2^31 and
# 2^32-1, unknown columns, scalars without .0; GETNEXT from such places;
# GETBULK with max-repetitions 10000 again and again. Every answer is
# noSuchInstance / noSuchObject / a next object, clustermond stays up, and
# its memory does not grow with such requests.
. "$(dirname "$0")/lib.sh"

plan 8
start_master || bail "snmpd did not start"
printf 'threshold t1 %s rising=10 falling=5\nhistory h1 %s 1000 5\n' \
	"$clusterMonMemTotalKB.0" "$clusterMonMemFreeKB.0" >"$T/m.conf"
start_agent -c "$T/m.conf" || bail "clustermond did not register"
sleep 1.2

# column OID, index length
tables="$clusterMonSourceName:1 $clusterMonCgroupPath:1 $clusterMonCpuUserMs:1 $clusterMonProcName:1 $clusterMonTcpConnLocalAddressType:1 $clusterMonPcapIfName:1
$clusterMonHistSourceName:1 $clusterMonHistBucketLow:2 $clusterMonHistoryCtlVariable:1 $clusterMonHistoryIntervalStart:2 $clusterMonThresholdVariable:1"
long_index() { # long_index BASE: enough ".1" to make the OID 128 sub-identifiers
	local n=$(( 128 - $(echo "$1" | tr -cd . | wc -c) )) s=""
	for _ in $(seq 1 "$n"); do s="$s.1"; done
	echo "$s"
}
bad=0 asked=0
for t in $tables; do
	col=${t%:*} len=${t#*:}
	short=""; [ "$len" -eq 2 ] && short=".1"
	for idx in "" "$short" ".1.1.1" "$(long_index "$col")" ".256.256.256" ".2147483648" \
		".4294967295" ".4294967295.4294967295.4294967295"; do
		[ "$len" -eq 1 ] && [ -z "$idx" ] && continue
		asked=$((asked + 1))
		out=$(get_raw "$col$idx")
		case "$out" in
		*"No Such Instance"*) ;;
		*) bad=$((bad + 1)); diag "$col$idx: $out" ;;
		esac
	done
	[ "$len" -eq 1 ] && {
		asked=$((asked + 1))
		case "$(get_raw "$col")" in *"No Such Instance"*) ;; *) bad=$((bad + 1)); diag "$col: no index" ;; esac
	}
done
is "$bad" 0 "$asked malformed indexes over 10 tables: every one noSuchInstance"
out=$(get_raw "$clusterMonCpuEntry.99.1" "$clusterMonMemTotalKB.1" "$clusterMonMemory.99.0" "$clusterMonObjects.99.1.0")
check "an unknown column or object is noSuchObject, a scalar without .0 noSuchInstance" \
	sh -c "[ \$(echo '$out' | grep -c 'No Such Object') -eq 3 ] && echo '$out' | grep -q 'No Such Instance'"

nexts=0
for t in $tables; do
	col=${t%:*}
	out=$(snmpgetnext -v2c -c public -t 2 -r 1 -On "$TARGET" "$col.4294967295.4294967295" "$col$(long_index "$col")" 2>&1)
	case "$out" in *Timeout*|*"No Response"*|*rror*) nexts=$((nexts + 1)); diag "$out" ;; esac
done
is "$nexts" 0 "GETNEXT from past-the-end and 128-long indexes answers for every table"

bulk() { snmpbulkget -v2c -c public -t 5 -r 0 -Cn0 -Cr10000 -On "$TARGET" "$clusterMonObjects" 2>&1; }
out=$(bulk)
n=$(echo "$out" | grep -c "^\.1\.3\.6\.1\.4\.1\.8072\.9999\.77\.1\.")
check "GETBULK max-repetitions 10000 is answered ($n varbinds)" test "$n" -gt 10
bulks() { for _ in $(seq 1 "$1"); do bulk >/dev/null; done; }
bulks 5
f0=$(agent_fds)
rss_steady "RSS stays put over 20 more of them" bulks 20
is "$(agent_fds)" "$f0" "and so do the open fds"

# A stopped subagent must not stop the master answering its own objects.
kill -STOP "$AGENT_PID"
t0=$(date +%s%N); up=$(snmpget -v2c -c public -t 1 -r 0 -Oqv "$TARGET" .1.3.6.1.2.1.1.3.0 2>&1); t1=$(date +%s%N)
ms=$(( (t1 - t0) / 1000000 ))
# A master blocked on the stopped subagent would take its AgentX timeout (1 s).
check "with clustermond stopped, sysUpTime.0 answers ($up) in under 100 ms (${ms} ms; $(slack 100) allowed)" \
	test -n "$up" -a "$ms" -lt "$(slack 100)"
get_raw "$clusterMonNodeName.0" >/dev/null   # one that times out while it is stopped
sleep 10
kill -CONT "$AGENT_PID"
t0=$(date +%s)
wait_for 3 get "$clusterMonNodeName.0"
ok $? "clustermond answers again within 3 s of SIGCONT ($(( $(date +%s) - t0 )) s)"
finish
