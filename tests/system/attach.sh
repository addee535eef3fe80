#!/bin/bash
# attach.sh - activating probes never holds up other requests: while one SET
# activates ten tracepoint probes, GETs keep answering within 50 ms, the SET
# itself answers within the master's 1 s agentXTimeout, and every probe
# comes up. (clustermond attaches on the probes source's thread; the SNMP
# thread only queues the work.)
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || skip_all "needs root to load BPF programs"
need_helper
plan 5
PATH=$PATH:/usr/sbin
P=$CM.8.1.1
# Ten tracepoints every kernel with syscall tracepoints has; each is its
# own BPF program for the helper to load and attach.
CALLS="getppid getpid getuid geteuid getgid getegid gettid sched_yield getpgrp umask"

start_master || bail "snmpd did not start"
start_helper || bail "clustermon-kprobe did not start: $(cat "$T/kprobe.log")"
echo "helperSocket $HELPER_SOCK" >"$T/a.conf"
start_agent -c "$T/a.conf" || bail "clustermond did not register"
is "$(get "$CM.1.4.0")" 1 "clusterMonHelperStatus is running(1)"

args=() row=40
for c in $CALLS; do
	args+=("$P.12.$row" i 4 "$P.2.$row" s "latency:tracepoint:syscalls:sys_enter_$c,syscalls:sys_exit_$c")
	row=$((row + 1))
done
# -t 3 -r 0: the SET's own answer time is measured, not a retry's.
out=$(python3 "$top_srcdir/tests/system/attach_latency.py" "$TARGET" "$P.9" 40 10 -- \
	snmpset -v2c -c private -t 3 -r 0 -On "$TARGET" "${args[@]}")
diag "$out"
read -r _ set_ms _ set_rc _ gets _ during _ worst _ up <<<"$out"
[ "$set_rc" = 0 ] && [ "$set_ms" -lt 1000 ]
ok $? "the SET activating ten probes answers within 1 s (${set_ms} ms, snmpset exit $set_rc)"
is "$up" 10 "all ten probes come up"
[ "$during" -ge 3 ]
ok $? "GETs were answered while the probes were being activated ($during of $gets)"
awk -v w="$worst" 'BEGIN { exit !(w < 50) }'
ok $? "the slowest GET during the activation took ${worst} ms (< 50)"
finish
