#!/bin/bash
# thresholds.sh - issue 4's benchmarks: trap latency of a 100 ms threshold
# next to a 1 ms /proc/stat poller, and the CPU cost of 1000 history rows
# at 100 ms next to an idle clustermond, both in this one run.
. "$(dirname "$0")/../system/lib.sh"
BENCH_TRAP=${BENCH_TRAP:-$top_builddir/tests/bench/bench_trap}

[ "$(nproc)" -ge 2 ] || { echo "SKIP: needs 2 CPUs"; exit 0; }
# Everything but the busy loops on the last CPU; CPU 0 is the one watched.
taskset -cp "$(( $(nproc) - 1 ))" $$ >/dev/null
TRAP_PORT=$(free_udp_port) || bail "no free port"
write_master_conf
echo "trap2sink 127.0.0.1:$TRAP_PORT public" >>"$T/snmpd.conf"
start_master || bail "snmpd did not start"
start_agent || bail "clustermond did not register"
TH=$CM.11.1.1
set_rw "$TH.11.1" i 4 "$TH.2.1" o "$CM.3.20.1.10.1" "$TH.4.1" u 100 "$TH.5.1" s 8000 \
	"$TH.6.1" s 2000 "$TH.7.1" i 1 "$TH.10.1" i 2 >/dev/null || bail "threshold row"

echo "== trap latency: CPU 0 goes busy -> clusterMonThresholdRising at the receiver"
"$BENCH_TRAP" "$TRAP_PORT" 0 10

echo "== cost of 1000 history rows at 100 ms, against the same clustermond idle"
set_rw "$TH.11.1" i 6 >/dev/null
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$AGENT_PID/stat"; }
hz=$(getconf CLK_TCK)
measure() { # measure SECONDS: clustermond's CPU in percent of one core
	local a b
	a=$(cpu_ticks); sleep "$1"; b=$(cpu_ticks)
	awk -v t=$((b - a)) -v s="$1" -v hz="$hz" 'BEGIN { printf "%.3f\n", t * 100 / hz / s }'
}
idle=$(measure 20)
vars=("$CM.3.20.1.10.1" "$CM.3.20.1.2.1" "$CM.3.2.0" "$CM.4.3.0" "$CM.4.9.0" "$CM.3.6.0")
H=$CM.10.1.1
for base in $(seq 1 20 1000); do
	args=()
	for i in $(seq "$base" $((base + 19))); do
		args+=("$H.8.$i" i 4 "$H.2.$i" o "${vars[$((i % ${#vars[@]}))]}" "$H.3.$i" u 100 \
			"$H.4.$i" u 10 "$H.7.$i" i 2)
	done
	set_rw "${args[@]}" >/dev/null || bail "history rows $base.."
done
rows=$(walk "$H.8" | grep -c " 1$")
sleep 2
busy=$(measure 20)
echo "clustermond idle: ${idle}% of a core; with $rows history rows at 100 ms: ${busy}% of a core"
awk -v i="$idle" -v b="$busy" 'BEGIN { printf "added %.3f%% of a core (target < 1%%); ratio busy/idle %.2f\n", b - i, (i > 0 ? b / i : 0) }'
