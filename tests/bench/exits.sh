#!/bin/bash
# exits.sh - what the exit log costs (issue 43): clustermond and
# clustermon-kprobe CPU while 1,000 processes a second start and exit
# (tests/system/exiters, 2-20 ms each), with a poller walking
# clusterMonProcExitTable every 5 s, against the same agent with no churn
# and no poller in the same invocation (target: the churn adds < 0.5% of a
# core). Per thread, from schedstat; runs interleaved, the median printed.
. "$(dirname "$0")/../system/lib.sh"
image_on_tmpfs || bail "cannot mount a tmpfs for the image (as /run is)"
[ "$(id -u)" -eq 0 ] || bail "needs root (BPF programs)"
[ -x "$KPROBE_HELPER" ] || bail "clustermon-kprobe is not built"
EXITERS="$top_builddir/tests/system/exiters"
[ -x "$EXITERS" ] || bail "tests/system/exiters is not built"
RATE=${RATE:-1000} SECONDS_EACH=${SECONDS_EACH:-20} RUNS=${RUNS:-2}
. "$(dirname "$0")/threads.sh"
pct() { printf '%d.%03d%%' $(( $1 / 1000 )) $(( $1 % 1000 )); }

start_master >/dev/null || bail "snmpd did not start"
start_helper >/dev/null || bail "clustermon-kprobe did not start"
printf 'helperSocket %s\nsnapshotFile %s\n' "$HELPER_SOCK" "$IMAGE" >"$T/bench.conf"
AGENT_WAIT=60 start_agent -c "$T/bench.conf" >/dev/null || bail "clustermond did not register"
sleep 5

poller() { while :; do walk "$clusterMonProcExitPid" >/dev/null; sleep 5; done; }
# window MODE: sets PM (clustermond + helper, thousandths of a percent),
# THREADS, LOGGED (exit rows logged meanwhile).
window() {
	local c0 k0 t0 c1 k1 t1 th0 th1 ch= pp= l0 l1
	l0=$(get "$clusterMonProcExitLogged.0" 2>/dev/null || echo 0)
	if [ "$1" = churn ]; then
		"$EXITERS" $((RATE * SECONDS_EACH)) "$SECONDS_EACH" cmexit "$T/ex.out" & ch=$!
		poller & pp=$!
	fi
	th0=$(threads "$AGENT_PID") c0=$(cpu_ns "$AGENT_PID") k0=$(cpu_ns "$HELPER_PID") t0=$(date +%s%N)
	sleep "$SECONDS_EACH"
	c1=$(cpu_ns "$AGENT_PID") k1=$(cpu_ns "$HELPER_PID") t1=$(date +%s%N) th1=$(threads "$AGENT_PID")
	[ -n "$ch" ] && { wait "$ch"; kill "$pp"; wait "$pp" 2>/dev/null; }
	l1=$(get "$clusterMonProcExitLogged.0" 2>/dev/null || echo 0)
	LOGGED=$((l1 - l0))
	THREADS=$(per_thread "$th0" "$th1" $((t1 - t0)))
	PM=$(( (c1 - c0 + k1 - k0) * 100000 / (t1 - t0) ))
}
echo "== exit log: $RATE exits a second for ${SECONDS_EACH} s, a poller every 5 s, against no churn; $RUNS runs"
quiet=() churn=()
for r in $(seq 1 "$RUNS"); do
	for mode in quiet churn; do
		window "$mode"
		printf 'run %s %-5s: clustermond + clustermon-kprobe %s of a core; %s exits logged\n      threads:%s\n' \
			"$r" "$mode" "$(pct "$PM")" "$LOGGED" "$THREADS"
		if [ "$mode" = quiet ]; then quiet+=("$PM"); else churn+=("$PM"); fi
	done
done
med() { printf '%s\n' "$@" | sort -n | sed -n "$(( ($# + 1) / 2 ))p"; }
q=$(med "${quiet[@]}") c=$(med "${churn[@]}")
echo "exits: $RATE exits a second add $(pct $((c - q))) of a core (target < 0.5%): $(pct "$c") against $(pct "$q")"
