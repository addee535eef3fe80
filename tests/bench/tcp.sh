#!/bin/bash
# tcp.sh - issue 5's table benchmark: refreshing clusterMonTcpConnTable with
# 10,000 established loopback connections (20,000 sockets), per socket,
# next to `ss -tin` dumping the same sockets, in one run.
. "$(dirname "$0")/../system/lib.sh"
N=${1:-10000}
# As installed: the fast-path image is published.
printf 'sampleInterval tcp 1000\nsnapshotFile %s\n' "$T/image" >"$T/tcp.conf"
start_master >/dev/null || bail "snmpd did not start"
start_agent -c "$T/tcp.conf" >/dev/null || bail "clustermond did not register"
open_conns "$N"
sockets=$(ss -tH state established | wc -l)
sleep 7   # past the first owner-pid scan of the new sockets
ours=() theirs=()
for _ in $(seq 1 9); do
	sleep 1.05
	ours+=("$(get "$CM.2.1.1.4.4")")   # clusterMonSourceLastSampleUs of tcp
	t0=$(date +%s%N); ss -tin >/dev/null; t1=$(date +%s%N)
	theirs+=("$(( (t1 - t0) / 1000 ))")
done
kill "${CONNS[@]}"; wait "${CONNS[@]}" 2>/dev/null
med() { printf '%s\n' "$@" | sort -n | sed -n 5p; }
o=$(med "${ours[@]}"); s=$(med "${theirs[@]}")
echo "sockets: $sockets established"
echo "clustermond tcp sample (dump, indexes, snapshot): median $o us (runs: ${ours[*]})"
echo "ss -tin of the same sockets: median $s us (runs: ${theirs[*]})"
awk -v o="$o" -v s="$s" -v n="$sockets" 'BEGIN {
	printf "per socket: ours %.2f us, ss %.2f us; ratio %.2f (target <= 0.35)\n", o / n, s / n, o / s }'
