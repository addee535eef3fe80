#!/bin/bash
# probes.sh - what the eBPF helper costs (issue 6), each figure against a
# baseline measured in the same run, runs interleaved:
#  1. `perf bench sched pipe` with both tasks on one CPU, without the helper,
#     with its sensors but no per-process accounting (-n), and with its
#     default sensors (sched_switch with per-process CPU time, wakeups, TCP,
#     drops): ratio (target <= 1.15) and ns per event the helper counted.
#  2. 1,000,000 getppid() calls with a tracepoint probe through SNMP: Hits
#     exactly 1,000,000 and Lost 0, and the ns one probe hit adds.
. "$(dirname "$0")/../system/lib.sh"
[ "$(id -u)" -eq 0 ] || bail "needs root to load BPF programs"
command -v perf >/dev/null || bail "perf is missing (apt-get install linux-perf)"
SYSCALLS="$top_builddir/tests/system/syscalls"
[ -x "$SYSCALLS" ] || bail "build tests/system/syscalls first (make check builds it)"
LOOPS=200000 RUNS=7

pipe_us() { # seconds of one pinned perf bench sched pipe run, in us
	taskset -c 0 perf bench sched pipe -l "$LOOPS" 2>/dev/null |
		awk '/Total time/ { printf "%.0f\n", $3 * 1e6 }'
}
# context switches the helper's sensors counted so far: each is one run of
# its sched_switch program (busy time, switch count and the wait it ends)
helper_events() {
	helper_say 'read\n' | awk '$1 == "switches" { for (i = 3; i <= NF; i++) n += $i }
		END { print n + 0 }'
}
med() { printf '%s\n' "$@" | sort -n | sed -n "$(( ($# + 1) / 2 ))p"; }

echo "== perf bench sched pipe ($LOOPS round trips, both tasks on CPU 0), $RUNS runs each, interleaved"
echo "   bare, the helper's sensors without per-process accounting (-n), and with it (default)"
off=() nop=() on=() events=()
for _ in $(seq 1 "$RUNS"); do
	off+=("$(pipe_us)")
	start_helper -n >/dev/null || bail "clustermon-kprobe -n did not start"
	nop+=("$(pipe_us)")
	stop_helper
	start_helper >/dev/null || bail "clustermon-kprobe did not start"
	e0=$(helper_events)
	on+=("$(pipe_us)")
	events+=($(( $(helper_events) - e0 )))
	stop_helper
done
o=$(med "${off[@]}") p=$(med "${nop[@]}") n=$(med "${on[@]}") e=$(med "${events[@]}")
echo "without helper:            median ${o} us (runs: ${off[*]})"
echo "helper -n (no per-process): median ${p} us (runs: ${nop[*]})"
echo "helper (default):          median ${n} us (runs: ${on[*]}); sched_switch events counted per run: median $e"
awk -v o="$o" -v p="$p" -v n="$n" -v e="$e" 'BEGIN {
	printf "ratio with/without: %.3f (target <= 1.15); -n/without: %.3f; %.0f ns per sched_switch event the helper counted, %.0f ns of them per-process accounting\n",
		n / o, p / o, (n - o) * 1000 / e, (n - p) * 1000 / e }'

echo "== 1,000,000 getppid() calls with a tracepoint probe (pid filter), through SNMP"
start_master >/dev/null || bail "snmpd did not start"
start_helper >/dev/null || bail "clustermon-kprobe did not start"
printf 'helperSocket %s\nsampleInterval probes 100\n' "$HELPER_SOCK" >"$T/bench.conf"
start_agent -c "$T/bench.conf" >/dev/null || bail "clustermond did not register"
P=$CM.8.1.1
calls_ms() { # calls_ms: wall time of 1,000,000 getppid() on CPU 1, started at once
	local t0; t0=$(date +%s%N)
	echo g | taskset -c 1 "$SYSCALLS" getppid 1000000
	echo $(( ($(date +%s%N) - t0) / 1000000 ))
}
base=$(calls_ms)
rm -f "$T/go"; mkfifo "$T/go"
taskset -c 1 "$SYSCALLS" getppid 1000000 <"$T/go" & pid=$!
set_rw "$P.12.1" i 4 "$P.2.1" s tracepoint:syscalls:sys_enter_getppid "$P.3.1" i "$pid" >/dev/null
t0=$(date +%s%N); echo g >"$T/go"; wait "$pid"; probed=$(( ($(date +%s%N) - t0) / 1000000 ))
sleep 0.5
hits=$(get "$P.6.1") lost=$(get "$P.8.1")
echo "Hits $hits, Lost $lost (want 1000000 and 0)"
echo "1,000,000 calls: ${base} ms without the probe, ${probed} ms with it:" \
	"$(( (probed - base) * 1000000 / 1000000 )) ns added per hit"
[ "$hits" = 1000000 ] && [ "$lost" = 0 ] || echo "FAIL: counts are not exact"
