#!/bin/bash
# procfed.sh - clustermond's own CPU with the process table at a 10 ms
# interval over 10,000 idle and 10 busy processes (issue 17): fed by
# clustermon-kprobe's per-process accounting against the /proc scanner, on
# the same processes in one run, runs interleaved. Prints each one's share of
# a core, samples taken and late samples, CPU per sample (the fair figure:
# the scanner cannot keep up, so its share of a core is capped by lateness),
# and the ratio.
. "$(dirname "$0")/../system/lib.sh"
[ "$(id -u)" -eq 0 ] || bail "needs root to load BPF programs"
[ -x "$KPROBE_HELPER" ] || bail "clustermon-kprobe is not built"
IDLE=${IDLE:-10000} BUSY=${BUSY:-10} SECONDS_EACH=${SECONDS_EACH:-10} RUNS=${RUNS:-2}

# IDLE processes that pause, forked by one python (copy-on-write: a few
# pages each); gone when it gets SIGTERM.
python3 -c '
import os, signal, sys, time
kids = []
for _ in range(int(sys.argv[1])):
    pid = os.fork()
    if pid == 0:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.pause()
        os._exit(0)
    kids.append(pid)
def stop(*_):
    for k in kids:
        os.kill(k, signal.SIGTERM)
    for k in kids:
        os.waitpid(k, 0)
    sys.exit(0)
signal.signal(signal.SIGTERM, stop)
print("ready", flush=True)
while True:
    signal.pause()
' "$IDLE" >"$T/idle.out" &
idlers=$!
wait_for 600 grep -q ready "$T/idle.out" || { kill "$idlers"; bail "the $IDLE idle processes did not start"; }
busy=()
for _ in $(seq 1 "$BUSY"); do sh -c 'while :; do :; done' & busy+=($!); done
# Bounded even if this script dies.
(sleep $(( RUNS * 2 * (SECONDS_EACH + 15) + 60 )); kill "${busy[@]}" "$idlers") 2>/dev/null &

start_master >/dev/null || bail "snmpd did not start"
start_helper >/dev/null || bail "clustermon-kprobe did not start"
SRC=$CM.2.1.1
ticks() { awk '{ print $14 + $15 }' "/proc/$AGENT_PID/stat"; }
# one SOCKET: clustermond at proc interval 10 ms for SECONDS_EACH s after a
# 3 s settle; sets PM (per mille of a core), NS, NL (samples, late), METHOD.
one() {
	printf 'helperSocket %s\nsampleInterval proc 10\n' "$1" >"$T/bench.conf"
	AGENT_WAIT=30 start_agent -c "$T/bench.conf" >/dev/null || bail "clustermond did not register"
	sleep 3
	local c0 s0 l0 t0 c1 s1 l1 t1
	c0=$(ticks) s0=$(get "$SRC.5.3") l0=$(get "$SRC.6.3") t0=$(date +%s%N)
	sleep "$SECONDS_EACH"
	c1=$(ticks) s1=$(get "$SRC.5.3") l1=$(get "$SRC.6.3") t1=$(date +%s%N)
	PM=$(( (c1 - c0) * 1000000000 / $(getconf CLK_TCK) * 1000 / (t1 - t0) ))
	NS=$((s1 - s0)) NL=$((l1 - l0)) METHOD=$(get "$SRC.8.3")
	stop_agent
}
echo "== process table at 10 ms: $IDLE idle + $BUSY busy processes, ${SECONDS_EACH} s each, $RUNS runs interleaved"
fed=() scan=()
for r in $(seq 1 "$RUNS"); do
	one "$HELPER_SOCK"
	echo "run $r helper-fed ($METHOD): clustermond $PM per mille of a core; $NS samples, $NL late;" \
		"$(awk -v p="$PM" -v n="$NS" -v s="$SECONDS_EACH" 'BEGIN { printf "%.2f ms", p * s / (n + 0.001) }') of CPU a sample"
	fed+=("$PM")
	one "$T/no-helper.sock"
	echo "run $r scanner    ($METHOD): clustermond $PM per mille of a core; $NS samples, $NL late;" \
		"$(awk -v p="$PM" -v n="$NS" -v s="$SECONDS_EACH" 'BEGIN { printf "%.2f ms", p * s / (n + 0.001) }') of CPU a sample"
	scan+=("$PM")
done
med() { printf '%s\n' "$@" | sort -n | sed -n "$(( ($# + 1) / 2 ))p"; }
f=$(med "${fed[@]}") s=$(med "${scan[@]}")
awk -v f="$f" -v s="$s" 'BEGIN { printf "helper-fed %.1f%% of a core (target < 1%%), scanner %.1f%%: ratio %.3f\n",
	f / 10, s / 10, (f + 0.5) / (s + 0.5) }'
kill "${busy[@]}" 2>/dev/null
kill "$idlers"; wait "$idlers" 2>/dev/null
