#!/bin/bash
# sensorset.sh - clustermon-kprobe -S: a site keeps only the scheduler
# sensors it wants. Each one off leaves its programs' work undone (the
# wakeup programs are not attached when nothing needs a wakeup time), its
# requests are refused with the reason, and clustermond serves no figure of
# a sensor that does not run; an unknown name is refused at start.
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" -eq 0 ] || skip_all "needs root to load BPF programs"
need_helper
command -v bpftool >/dev/null || missing_all "bpftool is missing (apt-get install bpftool)"
plan 12

out=$("$KPROBE_HELPER" -f -s "$T/x.sock" -S proc,bogus 2>&1); rc=$?
check "an unknown sensor is refused at start (exit $rc)" \
	contains 'unknown sensor "bogus" (proc, cgroup, runqlat, exits or none)' "$out"

# attached: the scheduler tracepoints the helper's programs are on.
attached() {
	bpftool -j perf show | python3 -c '
import json, sys
print(" ".join(sorted({a["tracepoint"] for a in json.load(sys.stdin)
                       if a["pid"] == int(sys.argv[1]) and a.get("tracepoint", "").startswith("sched_")})))' "$HELPER_PID"
}
# counted LINE-KIND: the sum of that read-reply line's numbers, or "none".
counted() {
	helper_say 'read\n' | awk -v k="$1" '$1 == k { seen = 1; for (i = 3; i <= NF; i++) n += $i }
		END { print seen ? n + 0 : "none" }'
}

start_helper -S none || bail "clustermon-kprobe -S none did not start: $(cat "$T/kprobe.log")"
is "$(attached)" "sched_process_exec sched_process_exit sched_process_fork sched_switch" \
	"-S none: no wakeup program is attached"
sleep 0.3
check "and the switches are counted ($(counted switches))" test "$(counted switches)" != none -a "$(counted switches)" != 0
is "$(counted runqlat)" none "and no run-queue latency distribution is reported"
check "per-process sums are refused with the reason" contains "^err unsupported no per-process accounting (-S without proc" \
	"$(helper_say 'procs\n')"
check "per-cgroup sums are refused with the reason" contains "^err unsupported no per-cgroup accounting (-S without it" \
	"$(helper_say 'cgmaps\n')"
stop_helper

start_helper -S proc || bail "clustermon-kprobe -S proc did not start"
is "$(attached)" "sched_process_exec sched_process_exit sched_process_fork sched_switch sched_wakeup sched_wakeup_new" \
	"-S proc: the wakeup programs run (a process's run delay needs them)"
check "its per-process sums are answered" contains "^ok " "$(helper_say 'procs\n')"
is "$(counted runqlat)" none "and no run-queue latency distribution is reported"
stop_helper

start_helper -S cgroup,runqlat || bail "clustermon-kprobe -S cgroup,runqlat did not start"
sleep 0.3
check "-S cgroup,runqlat: the distribution counts waits ($(counted runqlat))" \
	test "$(counted runqlat)" != none -a "$(counted runqlat)" != 0
check "and per-process sums are refused" contains "^err unsupported no per-process accounting" \
	"$(helper_say 'procs\n')"
stop_helper

# clustermond with a helper without runqlat: no empty sched.runqlat row.
start_master || bail "snmpd did not start"
start_helper -S proc,cgroup || bail "clustermon-kprobe -S proc,cgroup did not start"
printf 'helperSocket %s\nsampleInterval probes 100\n' "$HELPER_SOCK" >"$T/clustermond.conf"
start_agent -c "$T/clustermond.conf" || bail "clustermond did not register"
wait_for 10 sh -c "snmpwalk -v2c -c public -On -Oqv $TARGET $clusterMonCpuBusyNs | grep -q '^[1-9]'"
names=$(snmpwalk -v2c -c public -On -Oqv "$TARGET" "$clusterMonHistSourceName" | tr -d '"' | tr '\n' ' ')
check "clustermond serves the helper's busy time but no sched.runqlat without that sensor ($names)" \
	lacks "sched.runqlat" "$names"
finish
