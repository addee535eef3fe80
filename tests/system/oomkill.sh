#!/bin/bash
# oomkill.sh - clusterMonOomKill (issue 43): a process that exceeds its
# cgroup's memory limit is OOM-killed; snmptrapd gets the notification
# within a second, naming the process, its cgroup and job, the limit and
# the usage; the process's row of clusterMonProcExitTable says OOM-killed.
# Runs in the memory controller's hierarchy, v1's on a hybrid host, else
# v2's (Debian 12): oom_cgroup in lib.sh, which the console tests share.
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || skip_all "needs root to load BPF programs and make cgroups"
need_helper
# A Slurm-like job (slurm_cmtestPID/uid_0/job_N: "slurm job N"), its own.
oom_cgroup "cmtest$$" || { [ -n "${CGV:-}" ] && bail "$OOM_WHY"; skip_all "$OOM_WHY"; }
plan 6
diag "cgroup v$CGV: $OOM_CG, limit $OOM_LIMIT bytes"

start_trapd || bail "snmptrapd did not start"
start_master || bail "snmpd did not start"
start_helper || bail "clustermon-kprobe did not start: $(cat "$T/kprobe.log")"
# The proc source at its default interval: the notification does not wait
# for its samples.
# The hog's name is this run's: the other build's suite may run this test
# at the same time, and every helper sees every exit.
HOG="cmoom$$"
printf 'helperSocket %s\nexitLog name=%s\n' "$HELPER_SOCK" "$HOG" >"$T/clustermond.conf"
start_agent -c "$T/clustermond.conf" || bail "clustermond did not register"
oom_watching || bail "clustermond did not map the helper's rings"

oom_hog "$HOG"
rc=$? hog=$OOM_PID t0=$OOM_T0
wait_for 5 sh -c "[ \$(grep -c '${clusterMonOomKill#.}' '$T/traps.log') -ge 1 ]"
t1=$(date +%s%N)
ms=$(( (t1 - t0) / 1000000 ))
is "$rc" 137 "the process over its cgroup's limit was killed (SIGKILL)"
trap_text=$(grep -A12 "${clusterMonOomKill#.}" "$T/traps.log" | tr '\n' ' ')
want="$clusterMonOomKillPid.0 = Gauge32: $hog"
contains "$want" "$trap_text" && contains "$clusterMonOomKillName.0 = STRING: \"$HOG\"" "$trap_text" &&
	contains "$clusterMonOomKillCgroup.0 = STRING: \"$OOM_REL\"" "$trap_text" &&
	contains "$clusterMonOomKillWorkload.0 = STRING: \"slurm job $OOM_JOB\"" "$trap_text" &&
	contains "$clusterMonOomKillMemLimit.0 = Counter64: $OOM_LIMIT" "$trap_text" &&
	contains "$clusterMonOomKillMemUsage.0 = Counter64: " "$trap_text"
ok $? "clusterMonOomKill names it (pid $hog, $HOG), its cgroup, its job, the limit and the usage"
[ $? -eq 0 ] || diag "$trap_text"
check "it reached snmptrapd within 1 s of the process's start ($ms ms)" [ "$ms" -le 1000 ]
idx=""
find_row() { idx=$(walk "$clusterMonProcExitPid" | awk -v p="$hog" '$2 == p { n = split($1, a, "."); print a[n] }'); [ -n "$idx" ]; }
wait_for 5 find_row
check "its exit row says OOM-killed, by signal 9" sh -c \
	"[ \"\$(snmpget -v2c -c public -On -Oqv $TARGET $clusterMonProcExitOomKilled.$idx $clusterMonProcExitSignal.$idx | tr '\n' ' ')\" = '1 9 ' ]"
CTL="$top_builddir/contrib/clustermonctl -v 2c -c public $TARGET"
out=$($CTL exits 1)
contains "OOM" "$out" && contains "$HOG" "$out"
ok $? "clustermonctl exits shows it OOM-killed"
out=$("$top_builddir/contrib/nagios/check_clustermon" -H 127.0.0.1 -p "$PORT" -m oom -c 0 -s 60)
rc=$?
# (Its job too, where the exit row names one: on a hybrid host the row's
# cgroup is the unified tree's, and the job's limit is in v1's memory tree.)
[ "$rc" -eq 2 ] && contains "CLUSTERMON OOM CRITICAL: 1 OOM kill in the last 60 s, the last pid $hog $HOG" "$out"
ok $? "check_clustermon -m oom -c 0: CRITICAL, naming it (exit $rc: $out)"
finish
