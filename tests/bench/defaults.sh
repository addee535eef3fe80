#!/bin/bash
# defaults.sh - clustermond as installed, every source at its shipped
# default interval and the fast-path image published, on a node of 10,000
# idle processes, 5,000 loopback connections (10,000 sockets) and 500
# cgroups (issue 30): clustermond (all threads, each printed) plus
# clustermon-kprobe, from their threads' schedstat, against the target of
# 0.3% of a core; then the same without the helper (the scanner) beside
# it, as the baseline of the same invocation. Runs interleaved.
. "$(dirname "$0")/../system/lib.sh"
image_on_tmpfs || bail "cannot mount a tmpfs for the image (as /run is)"
[ "$(id -u)" -eq 0 ] || bail "needs root (BPF programs, cgroups, 10,000 processes)"
[ -x "$KPROBE_HELPER" ] || bail "clustermon-kprobe is not built"
CLUSTERMOND=${BENCH_CLUSTERMOND:-$CLUSTERMOND} KPROBE_HELPER=${BENCH_HELPER:-$KPROBE_HELPER}
IDLE=${IDLE:-10000} CONNS_N=${CONNS_N:-5000} CGROUPS=${CGROUPS:-500}
SECONDS_EACH=${SECONDS_EACH:-20} RUNS=${RUNS:-2}
PFX="cmdefaults-$$"

V2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
[ -n "$V2" ] || bail "no cgroup2 hierarchy mounted"
cg_cleanup() { rmdir "$V2/$PFX"/g* "$V2/$PFX" 2>/dev/null; }
trap 'cg_cleanup; cleanup' EXIT
mkdir "$V2/$PFX" || bail "cannot create $V2/$PFX"
for i in $(seq 1 "$CGROUPS"); do mkdir "$V2/$PFX/g$i"; done

ALARM=3600 start_idlers "$IDLE" || bail "the $IDLE idle processes did not start"
start_master >/dev/null || bail "snmpd did not start"
start_helper >/dev/null || bail "clustermon-kprobe did not start"
open_conns "$CONNS_N"
nprocs() { find /proc -maxdepth 1 -name '[0-9]*' 2>/dev/null | wc -l; }
. "$(dirname "$0")/threads.sh"
covers() { [ "$(snmpget -v2c -c public -On -Oqv "$TARGET" "$clusterMonProcCount.0")" -ge "$IDLE" ]; }
# one SOCKET: clustermond with nothing but the helper's socket, the
# cgroups it should follow and the image set; sets PM, PMK (thousandths of
# a percent of a core), THREADS, METHOD, ROWS.
one() {
	printf 'helperSocket %s\ncgroupMatch %s/*\nsnapshotFile %s\n' "$1" "$PFX" "$IMAGE" >"$T/bench.conf"
	AGENT_WAIT=60 start_agent -c "$T/bench.conf" >/dev/null || bail "clustermond did not register"
	wait_for 90 covers
	sleep 5   # past the first passes (the scanner's first reads everything)
	local c0 k0 t0 c1 k1 t1 th0 th1
	th0=$(threads "$AGENT_PID") c0=$(cpu_ns "$AGENT_PID") k0=$(cpu_ns "$HELPER_PID") t0=$(date +%s%N)
	sleep "$SECONDS_EACH"
	c1=$(cpu_ns "$AGENT_PID") k1=$(cpu_ns "$HELPER_PID") t1=$(date +%s%N) th1=$(threads "$AGENT_PID")
	THREADS=$(per_thread "$th0" "$th1" $((t1 - t0)))
	PM=$(( (c1 - c0) * 100000 / (t1 - t0) )) PMK=$(( (k1 - k0) * 100000 / (t1 - t0) ))
	METHOD=$(get "$CM.2.1.1.8.3") ROWS=$(get "$clusterMonProcCount.0")
	stop_agent
}
pct() { printf '%d.%03d%%' $(( $1 / 1000 )) $(( $1 % 1000 )); }
echo "== defaults: $IDLE idle processes ($(nprocs) in /proc), $(ss -tH | wc -l) TCP sockets, $CGROUPS cgroups; image published; ${SECONDS_EACH} s each, $RUNS runs"
fed=() scan=()
for r in $(seq 1 "$RUNS"); do
	for mode in helper scanner; do
		sock=$HELPER_SOCK; [ "$mode" = scanner ] && sock=$T/no-helper.sock
		one "$sock"
		printf 'run %s %-8s (%s): clustermond %s + clustermon-kprobe %s = %s of a core; %s rows\n' \
			"$r" "$mode" "$METHOD" "$(pct "$PM")" "$(pct "$PMK")" "$(pct $((PM + PMK)))" "$ROWS"
		printf '      threads:%s; image %s bytes\n' "$THREADS" "$(stat -c %s "$IMAGE" 2>/dev/null || echo 0)"
		if [ "$mode" = helper ]; then fed+=($((PM + PMK))); else scan+=($((PM + PMK))); fi
	done
done
med() { printf '%s\n' "$@" | sort -n | sed -n "$(( ($# + 1) / 2 ))p"; }
f=$(med "${fed[@]}") s=$(med "${scan[@]}")
echo "defaults: clustermond + clustermon-kprobe $(pct "$f") of a core (target < 0.3%); the scanner alone $(pct "$s") (target < 10%); ratio $(awk -v f="$f" -v s="$s" 'BEGIN { printf "%.3f", (f + 1) / (s + 1) }')"
kill "${CONNS[@]}" 2>/dev/null; wait "${CONNS[@]}" 2>/dev/null
kill "$idlers"; wait "$idlers" 2>/dev/null
