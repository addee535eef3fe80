#!/bin/bash
# procfed.sh - the CPU the process table costs over 10,000 idle and 10 busy
# processes (issues 17 and 23): clustermond plus clustermon-kprobe, both
# from their threads' schedstat, fed by the helper's per-process accounting
# against the /proc scanner, at proc intervals of 10 ms and 1 s, on the same
# processes in one run, runs interleaved. Prints each one's share of a core,
# samples taken and late samples, CPU per sample (the fair figure: the
# scanner cannot keep up at 10 ms, so its share of a core is capped by
# lateness), the ratios, and whether clusterMonProcCount covered every
# process. (The helper's own CPU is counted in the scanner's runs too: it
# runs throughout, so the ratio compares like with like.)
#
# As installed, the fast-path image is published (snapshotFile), and each
# run prints clustermond's threads one by one (from their schedstat; the
# SNMP thread is "clustermond"). BENCH_CLUSTERMOND and BENCH_HELPER run other
# builds' binaries (a baseline, for example main's) with the same script.
. "$(dirname "$0")/../system/lib.sh"
image_on_tmpfs || bail "cannot mount a tmpfs for the image (as /run is)"
CLUSTERMOND=${BENCH_CLUSTERMOND:-$CLUSTERMOND} KPROBE_HELPER=${BENCH_HELPER:-$KPROBE_HELPER}
[ "$(id -u)" -eq 0 ] || bail "needs root to load BPF programs"
[ -x "$KPROBE_HELPER" ] || bail "clustermon-kprobe is not built"
IDLE=${IDLE:-10000} BUSY=${BUSY:-10} SECONDS_EACH=${SECONDS_EACH:-10} RUNS=${RUNS:-2}
INTERVALS=${INTERVALS:-10 1000}
# CHURN=N: N short-lived processes a second throughout (each lives 50 ms,
# five samples at 10 ms): rows that come and go, as on a busy node.
CHURN=${CHURN:-0}

ALARM=3600 start_idlers "$IDLE" || bail "the $IDLE idle processes did not start"
busy=()
for _ in $(seq 1 "$BUSY"); do sh -c 'while :; do :; done' & busy+=($!); done
churn=
if [ "$CHURN" -gt 0 ]; then
	( while :; do for _ in $(seq 1 $(( (CHURN + 9) / 10 ))); do sleep 0.05 & done; sleep 0.1; done ) &
	churn=$!
fi
# Bounded even if this script dies.
(sleep $(( RUNS * 4 * (SECONDS_EACH + 150) + 600 )); kill "${busy[@]}" "$idlers" $churn) 2>/dev/null &
guard=$!

start_master >/dev/null || bail "snmpd did not start"
start_helper >/dev/null || bail "clustermon-kprobe did not start"
SRC=$CM.2.1.1
# get, retried: the machine is shared and an answer may be late.
getr() { local v; for _ in 1 2 3 4 5; do v=$(get "$1") && { echo "$v"; return 0; }; sleep 0.5; done; return 1; }
nprocs() { find /proc -maxdepth 1 -name '[0-9]*' 2>/dev/null | wc -l; }
. "$(dirname "$0")/threads.sh"   # cpu_ns, threads, per_thread
# one SOCKET MS: clustermond at proc interval MS for SECONDS_EACH s after a
# settle; sets PM and PMK (clustermond's and the helper's CPU in thousandths
# of a percent of a core), NS, NL (samples, late), METHOD and COUNT.
one() {
	printf 'helperSocket %s\nsampleInterval proc %s\nsnapshotFile %s\n' "$1" "$2" "$IMAGE" \
		>"$T/bench.conf"
	AGENT_WAIT=60 start_agent -c "$T/bench.conf" >/dev/null || bail "clustermond did not register"
	wait_for 60 sh -c "[ \$(snmpget -v2c -c public -On -Oqv $TARGET $clusterMonProcCount.0) -ge $IDLE ]"
	sleep 3
	local c0 k0 s0 l0 t0 c1 k1 s1 l1 t1 th0 th1
	s0=$(getr "$SRC.5.3") l0=$(getr "$SRC.6.3")
	th0=$(threads "$AGENT_PID") c0=$(cpu_ns "$AGENT_PID") k0=$(cpu_ns "$HELPER_PID") t0=$(date +%s%N)
	sleep "$SECONDS_EACH"
	# The window closes before any GET: an answer may be late here.
	c1=$(cpu_ns "$AGENT_PID") k1=$(cpu_ns "$HELPER_PID") t1=$(date +%s%N) th1=$(threads "$AGENT_PID")
	s1=$(getr "$SRC.5.3") l1=$(getr "$SRC.6.3")
	THREADS=$(per_thread "$th0" "$th1" $((t1 - t0)))
	ISIZE=$(stat -c %s "$IMAGE" 2>/dev/null || echo 0)
	PM=$(( (c1 - c0) * 100000 / (t1 - t0) )) PMK=$(( (k1 - k0) * 100000 / (t1 - t0) ))
	NS=$((s1 - s0)) NL=$((l1 - l0)) METHOD=$(getr "$SRC.8.3") COUNT=$(getr "$clusterMonProcCount.0") NPROCS=$(nprocs)
	stop_agent
}
pct() { printf '%d.%03d%%' $(( $1 / 1000 )) $(( $1 % 1000 )); }
report() { # report RUN LABEL MS
	printf 'run %s %-10s %5s ms (%s): clustermond %s + clustermon-kprobe %s = %s of a core;' \
		"$1" "$2" "$3" "$METHOD" "$(pct "$PM")" "$(pct "$PMK")" "$(pct $((PM + PMK)))"
	printf ' %d samples, %d late; %d us of clustermond CPU a sample; %s rows (%d processes)\n' \
		"$NS" "$NL" $(( NS > 0 ? PM * 10 * SECONDS_EACH / NS : 0 )) "$COUNT" "$NPROCS"
	printf '      threads:%s; image %d bytes\n' "$THREADS" "$ISIZE"
}
echo "== process table: $IDLE idle + $BUSY busy processes, $CHURN short-lived a second, ${SECONDS_EACH} s each, $RUNS runs interleaved"
fed=() scan=() fed1=() scan1=() short=0
for r in $(seq 1 "$RUNS"); do
	for ms in $INTERVALS; do
		one "$HELPER_SOCK" "$ms"; report "$r" helper-fed "$ms"
		[ "${COUNT:-0}" -ge "$IDLE" ] || short=1
		if [ "$ms" = 10 ]; then fed+=($((PM + PMK))); else fed1+=($((PM + PMK))); fi
		one "$T/no-helper.sock" "$ms"; report "$r" scanner "$ms"
		[ "${COUNT:-0}" -ge "$IDLE" ] || short=1
		if [ "$ms" = 10 ]; then scan+=($((PM + PMK))); else scan1+=($((PM + PMK))); fi
	done
done
med() { [ $# -gt 0 ] || return 0; printf '%s\n' "$@" | sort -n | sed -n "$(( ($# + 1) / 2 ))p"; }
f=$(med "${fed[@]}") s=$(med "${scan[@]}") f1=$(med "${fed1[@]}") s1=$(med "${scan1[@]}")
[ -n "$f" ] && echo "at 10 ms: helper-fed $(pct "$f") of a core, clustermond plus clustermon-kprobe (target < 1%), scanner $(pct "$s"): ratio $(awk -v f="$f" -v s="$s" 'BEGIN { printf "%.3f", (f + 1) / (s + 1) }')"
[ -n "$f1" ] && echo "at 1 s:   helper-fed $(pct "$f1"), scanner $(pct "$s1"): ratio $(awk -v f="$f1" -v s="$s1" 'BEGIN { printf "%.3f", (f + 1) / (s + 1) }')"
[ "$short" = 0 ] && echo "clusterMonProcCount covered every one of the $IDLE idle processes in every run" ||
	echo "clusterMonProcCount fell short of the $IDLE idle processes in a run"
kill "${busy[@]}" $churn 2>/dev/null
kill "$idlers"; wait "$idlers" 2>/dev/null
pkill -P "$guard" sleep 2>/dev/null; kill "$guard" 2>/dev/null
