#!/bin/bash
# pcap.sh - issue 5's capture benchmark: clustermond's capture thread and
# `tcpdump -w /dev/null -s 65535` on lo side by side, at rising rates of
# 64-byte UDP datagrams up to what one sender reaches: kernel drops and CPU
# nanoseconds per captured packet for both, in the same run.
. "$(dirname "$0")/../system/lib.sh"
BENCH_UDP=${BENCH_UDP:-$top_builddir/tests/bench/bench_udp}
command -v tcpdump >/dev/null || { echo "SKIP: tcpdump is not installed"; exit 0; }
SECS=3
port=$(free_udp_port) || bail "no free port"
printf 'pcapInterface lo filter "udp port %s"\nsampleInterval pcap 100\n' "$port" >"$T/pcap.conf"
start_master >/dev/null || bail "snmpd did not start"
start_agent -c "$T/pcap.conf" >/dev/null || bail "clustermond did not register"
tid=$(grep -l '^cm-pcap-lo$' /proc/"$AGENT_PID"/task/*/comm | head -n 1 | cut -d/ -f5)
[ -n "$tid" ] || bail "no capture thread"
lo=$(cat /sys/class/net/lo/ifindex)
run_ns() { awk '{ print $1 }' "$1"; }   # schedstat: ns on CPU

echo "rate(pps) sent | ours: captured drops ns/pkt | tcpdump: captured drops ns/pkt"
for rate in 50000 100000 200000 0; do
	tcpdump -i lo -w /dev/null -s 65535 -n "udp port $port" 2>"$T/tcpdump.err" &
	td=$!
	sleep 1
	p0=$(get "$CM.7.1.1.3.$lo"); d0=$(get "$CM.7.1.1.5.$lo")
	c0=$(run_ns "/proc/$AGENT_PID/task/$tid/schedstat"); t0=$(run_ns "/proc/$td/schedstat")
	read -r sent reached <<<"$("$BENCH_UDP" "$port" "$rate" "$SECS")"
	sleep 0.5
	c1=$(run_ns "/proc/$AGENT_PID/task/$tid/schedstat"); t1=$(run_ns "/proc/$td/schedstat")
	p1=$(get "$CM.7.1.1.3.$lo"); d1=$(get "$CM.7.1.1.5.$lo")
	kill -INT "$td"; wait "$td" 2>/dev/null
	tcap=$(awk '/packets captured/ { print $1 }' "$T/tcpdump.err")
	tdrop=$(awk '/dropped by kernel/ { print $1 }' "$T/tcpdump.err")
	awk -v r="$reached" -v s="$sent" -v op=$((p1 - p0)) -v od=$((d1 - d0)) -v oc=$((c1 - c0)) \
		-v tp="${tcap:-0}" -v tdr="${tdrop:-0}" -v tc=$((t1 - t0)) 'BEGIN {
		printf "%9d %8d | %8d %5d %6.1f | %8d %5d %6.1f | ratio %.2f\n", r, s, op, od,
			op ? oc / op : 0, tp, tdr, tp ? tc / tp : 0, (op && tp && tc) ? (oc / op) / (tc / tp) : 0 }'
done
echo "(ratio: our ns per packet over tcpdump's; target <= 1 with zero drops)"
