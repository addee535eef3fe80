#!/bin/bash
# attach.sh - activating probes never holds up other requests: while one SET
# activates ten latency probes (twenty tracepoints) and the helper is slow
# to take them, GETs keep answering well inside the 600 ms the helper is
# held (an SNMP thread that waited for it would pass all of that on), the
# SET itself answers within the master's 1 s agentXTimeout, and every probe
# comes up.
# (clustermond attaches on the probes source's thread; the SNMP thread only
# queues the work.)
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || skip_all "needs root to load BPF programs"
need_helper
plan 5
PATH=$PATH:/usr/sbin
P=$CM.8.1.1
# Ten system calls every kernel with syscall tracepoints has: a latency
# probe on each is a pair of BPF programs for the helper to load and attach.
CALLS="getppid getpid getuid geteuid getgid getegid gettid sched_yield getpgrp umask"

start_master || bail "snmpd did not start"
start_helper || bail "clustermon-kprobe did not start: $(cat "$T/kprobe.log")"
echo "helperSocket $HELPER_SOCK" >"$T/a.conf"
start_agent -c "$T/a.conf" || bail "clustermond did not register"
is "$(get "$CM.1.4.0")" 1 "clusterMonHelperStatus is running(1)"

# round FIRST-ROW: one measurement, activating rows FIRST.. FIRST+9.
round() {
	local args=() row=$1 c
	for c in $CALLS; do
		args+=("$P.12.$row" i 4 "$P.2.$row" s
		       "latency:tracepoint:syscalls:sys_enter_$c,syscalls:sys_exit_$c")
		row=$((row + 1))
	done
	# The helper is stopped for the first 600 ms of the activation, as on
	# a node too busy to schedule it: attaching takes that much longer,
	# which an SNMP thread waiting for it would pass on to every request
	# (and the master holds every other request while a SET is open).
	# Less than the source's 1 s poll timeout: the helper is not taken for
	# dead. -t 3 -r 0: the SET's own answer time, not a retry's.
	kill -STOP "$HELPER_PID"
	python3 "$top_srcdir/tests/system/attach_latency.py" "$TARGET" "$P.9" "$1" 10 -- \
		snmpset -v2c -c private -t 3 -r 0 -On "$TARGET" "${args[@]}" >"$T/latency" &
	local measure=$!
	sleep 0.6
	kill -CONT "$HELPER_PID"
	wait "$measure"
	cat "$T/latency"
}

# An SNMP thread that waits for the attachment misses the bounds in every
# round (by the 600 ms at least). The bound on the slowest GET is half of
# that, not a latency goal: in CI 14 (two suites side by side and three
# builds beside them) the slowest GET of three rounds took 57-85 ms, where
# one run beside three builds (load average 20) gave 5.6. Up to three
# rounds all the same.
for n in 1 2 3; do
	out=$(round $((30 + 10 * n)))
	diag "round $n: $out"
	read -r _ set_ms _ set_rc _ gets _ during _ worst _ up <<<"$out"
	[ "$set_rc" = 0 ] && [ "$set_ms" -lt 1000 ] && [ "$up" = 10 ] && [ "$during" -ge 3 ] &&
		awk -v w="$worst" 'BEGIN { exit !(w < 300) }' && break
done
[ "$set_rc" = 0 ] && [ "$set_ms" -lt 1000 ]
ok $? "the SET activating ten probes answers within 1 s (${set_ms} ms, snmpset exit $set_rc; round $n)"
is "$up" 10 "all ten probes come up"
[ "$during" -ge 3 ]
ok $? "GETs were answered while the probes were being activated ($during of $gets)"
awk -v w="$worst" 'BEGIN { exit !(w < 300) }'
ok $? "the slowest GET during the activation took ${worst} ms (< 300: the helper was held 600 ms)"
finish
