#!/bin/bash
# values.sh - what clustermond serves agrees with the kernel, read here
# independently from /proc, and counters only move forward.
. "$(dirname "$0")/lib.sh"

plan 12
start_master || bail "snmpd did not start"
# cpu pinned to its timer: its rate of samples is counted below while only
# clusterMonSourceTable is read, and a source read lately samples only when
# read again (demand.sh tests that).
echo "sampleInterval cpu 100 always" >"$T/values.conf"
start_agent -c "$T/values.conf" || bail "clustermond did not register"

hz=$(getconf CLK_TCK)
# proc_cpu_ms CPU FIELD: /proc/stat field (2=user ... 9=steal) in ms; CPU "" = total.
proc_cpu_ms() { awk -v c="cpu$1" -v f="$2" -v hz="$hz" '$1 == c { printf "%.0f\n", int($f * 1000 / hz) }' /proc/stat; }
meminfo_kb() { awk -v k="$1:" '$1 == k { print $2 }' /proc/meminfo; }
vmstat() { awk -v k="$1" '$1 == k { print $2 }' /proc/vmstat; }

is "$(get "$clusterMonMemTotalKB.0")" "$(meminfo_kb MemTotal)" "clusterMonMemTotalKB equals MemTotal"
is "$(get "$clusterMonMemSwapTotalKB.0")" "$(meminfo_kb SwapTotal)" "clusterMonMemSwapTotalKB equals SwapTotal"

# A served counter lies between the kernel's value shortly before and after:
# the snapshot is at most one interval old.
before=$(proc_cpu_ms 0 2); sleep 0.2; served=$(get "$clusterMonCpuUserMs.1"); after=$(proc_cpu_ms 0 2)
check "clusterMonCpuUserMs.1 ($served) within /proc/stat's [$before, $after]" \
	test "$served" -ge "$((before - 20))" -a "$served" -le "$after"
before=$(proc_cpu_ms 0 5); served=$(get "$clusterMonCpuIdleMs.1"); after=$(proc_cpu_ms 0 5)
check "clusterMonCpuIdleMs.1 ($served) at most one interval behind /proc/stat ($before..$after)" \
	test "$served" -ge "$((before - 300))" -a "$served" -le "$after"
minor_before=$(( $(vmstat pgfault) - $(vmstat pgmajfault) )); sleep 1.1
served=$(get "$clusterMonMemMinorFaults.0"); minor_after=$(( $(vmstat pgfault) - $(vmstat pgmajfault) ))
check "clusterMonMemMinorFaults ($served) within /proc/vmstat's [$minor_before, $minor_after]" \
	test "$served" -ge "$minor_before" -a "$served" -le "$minor_after"

# Monotonic: three reads of each counter never go down.
monotonic() {
	local a b c
	a=$(get "$1"); sleep 0.3; b=$(get "$1"); sleep 0.3; c=$(get "$1")
	[ -n "$a" ] && [ "$a" -le "$b" ] && [ "$b" -le "$c" ]
}
check "clusterMonCpuUserMs.1 is monotonic" monotonic "$clusterMonCpuUserMs.1"
check "clusterMonCpuTotalCtxSwitches is monotonic" monotonic "$clusterMonCpuTotalCtxSwitches.0"
# The samples between two GETs a second apart, against the time the GETs
# bracket (a GET on a loaded machine takes a while): no more than that time
# holds at 100 ms, and at least half of what the time between them holds
# (the rate itself under load is load.sh's, in make check-timing).
ms() { echo $(( $(date +%s%N) / 1000000 )); }
t0=$(ms); s0=$(get "$clusterMonSourceSamples.1"); t1=$(ms)
sleep 1
t2=$(ms); s1=$(get "$clusterMonSourceSamples.1"); t3=$(ms)
most=$(( (t3 - t0) / 100 + 1 )) least=$(( (t2 - t1) / 200 ))
check "cpu takes about 10 samples a second at 100 ms ($((s1 - s0)) in $((t2 - t1))-$((t3 - t0)) ms: $least..$most)" \
	test $((s1 - s0)) -ge "$least" -a $((s1 - s0)) -le "$most"

# One busy loop pinned to CPU n: its row reads above 90% busy; the others
# keep their own values (they still accumulate idle time).
ncpu=$(grep -c '^cpu[0-9]' /proc/stat)
n=$((ncpu - 1))
timeout 6 taskset -c "$n" sh -c 'while :; do :; done' &
busy=$!
sleep 1.5
util=$(get "$clusterMonCpuUtil.$((n + 1))")
check "clusterMonCpuUtil.$((n + 1)) reads $util (> 9000) with CPU $n busy" test "$util" -gt 9000
# Each row keeps its own CPU's values while one CPU spins: the served idle
# time of CPU 0 lies within what /proc/stat says for CPU 0 around the GET
# (independent of how busy the rest of the machine is).
if [ "$ncpu" -gt 1 ]; then
	before=$(proc_cpu_ms 0 5); served=$(get "$clusterMonCpuIdleMs.1"); after=$(proc_cpu_ms 0 5)
	check "clusterMonCpuIdleMs.1 ($served) follows CPU 0's own idle time ($before..$after) while CPU $n spins" \
		test "$served" -ge "$((before - 300))" -a "$served" -le "$after"
else
	skip "one CPU only: no other CPU to compare"
fi
kill "$busy" 2>/dev/null; wait "$busy" 2>/dev/null

if [ -r /proc/pressure/cpu ]; then
	psi=$(get "$clusterMonPressureCpuSome10.0")
	check "clusterMonPressureCpuSome10 ($psi) is within 0..10000" test "$psi" -ge 0 -a "$psi" -le 10000
	kernel=$(awk '/^some/ { split($2, a, "="); printf "%d\n", a[2] * 100 }' /proc/pressure/memory)
	served=$(get "$clusterMonPressureMemSome10.0")
	check "clusterMonPressureMemSome10 ($served) is near /proc/pressure/memory ($kernel)" \
		test $(( served > kernel ? served - kernel : kernel - served )) -le 500
else
	check "clusterMonPressureCpuSome10 absent without /proc/pressure" contains "No Such" "$(get_raw "$clusterMonPressureCpuSome10.0")"
	skip "no /proc/pressure"
fi
finish
