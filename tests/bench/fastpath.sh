#!/bin/bash
# fastpath.sh - issue 13's figures: the read path through clustermon.so
# inside snmpd against what the same snmpd serves itself, side by side in
# one run, and the AgentX path for reference. Every figure with a target
# ends in "(target ...)", which report.py collects; a bail-out counts as a
# target not met.
. "$(dirname "$0")/../system/lib.sh"
image_on_tmpfs || bail "cannot mount a tmpfs for the image (as /run is)"
BENCH_WALK="$top_builddir/tests/bench/bench_walk"
BENCH_GET="$top_builddir/tests/bench/bench_get"
HR_NAME=.1.3.6.1.2.1.25.4.2.1.2
TCP_STATE=.1.3.6.1.2.1.6.19.1.7
PROC_NAME=$CM.5.1.1.2
CONN_STATE=$CM.6.20.1.7
CONN_TABLE=$CM.6.20

add_module
start_master >/dev/null || bail "snmpd did not start with clustermon.so"
start_agent >/dev/null || bail "clustermond did not register"
wait_for 5 test -s "$IMAGE" || bail "clustermond published no image"
sleep 1.5   # the module's next check registers the image's subtrees

# bulk_ms OID: wall time of one snmpbulkwalk (-Cr50), in ms; the number of
# varbinds it returned goes to $T/rows.
bulk_ms() {
	local t0
	t0=$(date +%s%N)
	snmpbulkwalk -v2c -c public -Cr50 -t 5 -On "$TARGET" "$1" 2>&1 | wc -l >"$T/rows"
	echo $(( ($(date +%s%N) - t0) / 1000000 ))
}
med() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
# side_by_side LABEL OURS THEIRS [TARGET]: five alternating walks of each;
# without a target the ratio is for reference.
side_by_side() {
	local ours=() theirs=() o t
	for _ in 1 2 3 4 5; do
		ours+=("$(bulk_ms "$2")"); nours=$(cat "$T/rows")
		theirs+=("$(bulk_ms "$3")"); ntheirs=$(cat "$T/rows")
	done
	o=$(med "${ours[@]}"); t=$(med "${theirs[@]}")
	echo "$1: ours median ${o} ms (runs: ${ours[*]}; $nours rows), snmpd's own median ${t} ms (runs: ${theirs[*]}; $ntheirs rows)"
	awk -v o="$o" -v t="$t" -v l="$1" -v g="${4:-}" 'BEGIN {
		printf "%s ratio: %.2f", l, (t > 0 ? o / t : 99)
		print (g == "" ? " (reference)" : " (target <= " g ")") }'
}
# agentx_only: clustermond stops publishing; the module gives its subtrees
# back and the subagent answers them; agentx_back undoes it.
agentx_only() {
	echo "snapshotFile none" >"$T/conf/clustermond.local.conf"
	kill -HUP "$AGENT_PID"; sleep 2.5
}
fast_again() {
	echo "snapshotFile $IMAGE" >"$T/conf/clustermond.local.conf"
	kill -HUP "$AGENT_PID"; sleep 2.5
}

echo "== GET latency through clustermon.so, unpinned (in-process C client)"
"$BENCH_GET" "$TARGET" 2000 1.1 2 clustermon.so
echo "== GET latency through clustermon.so, client and snmpd pinned to CPU 0"
taskset -pc 0 "$MASTER_PID" >/dev/null
taskset -c 0 "$BENCH_GET" "$TARGET" 2000 1.1 2 clustermon.so
taskset -pc 0-$(($(nproc) - 1)) "$MASTER_PID" >/dev/null

echo "== process table with 1000 more processes: clusterMonProcName vs hrSWRunName, same snmpd"
pids=()
for _ in $(seq 1 1000); do sleep 300 & pids+=($!); done
sleep 2.5   # one proc sample (1 s) and a publication see them
bulk_ms "$HR_NAME" >/dev/null   # warms snmpd's hrSWRun cache: the harder baseline
side_by_side "clusterMonProcName through clustermon.so vs hrSWRunName" "$PROC_NAME" "$HR_NAME" 1.2
agentx_only
side_by_side "clusterMonProcName through AgentX vs hrSWRunName" "$PROC_NAME" "$HR_NAME"
fast_again
kill "${pids[@]}" 2>/dev/null; wait "${pids[@]}" 2>/dev/null

# --- TCP connection table
for n in 2000 10000; do
	echo "== TCP: clusterMonTcpConnState vs TCP-MIB tcpConnectionState, $n connections"
	open_conns $(( n - $(ss -tH state established | wc -l) / 2 ))
	sleep 2.5   # a tcp sample (1 s) and a publication see them
	echo "sockets: $(ss -tH state established | wc -l) established"
	# snmpd keeps tcpConnectionTable in a cache for 60 s (nsCacheTable) and
	# refuses to expire it by SET: a 2 s timeout, outlived here, makes the
	# next walk load every connection; the walks after it find it warm.
	snmpset -v2c -c private -t 2 "$TARGET" ".1.3.6.1.4.1.8072.1.5.3.1.2.1.3.6.1.2.1.6.19" i 2 >/dev/null 2>&1
	sleep 2.5
	bulk_ms "$TCP_STATE" >/dev/null
	side_by_side "clusterMonTcpConnState at $n connections" "$CONN_STATE" "$TCP_STATE" 1.2
done
echo "== TCP: the whole clusterMonTcpConnTable at 10000 connections"
out=$("$BENCH_WALK" "$TARGET" "$CONN_TABLE" 50) || bail "bench_walk failed: $out"
echo "$out"
ms=$(sed -E 's/.* in ([0-9]+) ms.*/\1/' <<<"$out")
echo "whole clusterMonTcpConnTable walk by an in-process poller: $(awk -v m="$ms" 'BEGIN { printf "%.2f", m / 1000 }') s (target < 2)"
echo "the same with snmpbulkwalk -Cr50 printing every line: $(bulk_ms "$CONN_TABLE") ms"
agentx_only
echo "clusterMonTcpConnState at 10000 connections through AgentX, for reference: $(bulk_ms "$CONN_STATE") ms"
fast_again
kill "${CONNS[@]}" 2>/dev/null; wait "${CONNS[@]}" 2>/dev/null
ls -l "$IMAGE" | awk '{ printf "image file: %d MB\n", $5 / 1048576 }'

echo "== publication cost: clustermond's CPU with the image published vs not (cpu 100 Hz, proc 10 Hz, 1000 processes)"
stop_agent
pids=()
for _ in $(seq 1 1000); do sleep 300 & pids+=($!); done
# run_agent DIR SNAPSHOT: a clustermond with its own config directory.
run_agent() {
	mkdir -p "$1"
	printf 'sampleInterval cpu 10\nsampleInterval proc 100\nsnapshotFile %s\n' "$2" >"$1/clustermond.conf"
	SNMPCONFPATH="$1" "$CLUSTERMOND" -f -Lf "$1/log" -x "$AGENTX" >/dev/null 2>>"$T/clustermond.stderr" &
	echo $!
}
ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
with=$(run_agent "$T/with" "$T/run/cost.image")
without=$(run_agent "$T/without" none)
sleep 5
w0=$(ticks "$with"); n0=$(ticks "$without")
sleep 30
w=$(( $(ticks "$with") - w0 )); n=$(( $(ticks "$without") - n0 ))
kill "$with" "$without" "${pids[@]}" 2>/dev/null; wait "$with" "$without" "${pids[@]}" 2>/dev/null
echo "CPU over 30 s: published ${w} ticks, not published ${n} ticks"
awk -v w="$w" -v n="$n" 'BEGIN { printf "publication cost ratio: %.2f (target < 1.1)\n", (n > 0 ? w / n : 99) }'
