#!/bin/bash
# dist.sh - what a distribution row costs per event (issue 33), against
# bpftrace running the same spec on the same kernel, runs interleaved: a
# loop of N read()s of 64 bytes from /dev/zero pinned to CPU 0, bare, with
# a clusterMonDistTable row in the helper and with the bpftrace script, for
#  1. value tracepoint:syscalls:sys_exit_read ret   (hist(args->ret))
#  2. latency sys_enter_read -> sys_exit_read, per thread
#     (@start[tid] = nsecs; hist(nsecs - @start[tid]))
# Judged on the CPU time of the loop (wait4's rusage: the BPF programs run
# in its context), not wall time: ns per event = (with - bare) / N, and the
# ratio ours / bpftrace's (target <= 1.0). No pid filter on either side, so
# each program runs its whole path for every read of the loop.
. "$(dirname "$0")/../system/lib.sh"
[ "$(id -u)" -eq 0 ] || bail "needs root to load BPF programs"
command -v bpftrace >/dev/null || bail "bpftrace is missing (apt-get install bpftrace)"
SYSCALLS="$top_builddir/tests/system/syscalls"
[ -x "$SYSCALLS" ] || bail "build tests/system/syscalls first (make check builds it)"
N=${N:-1000000} RUNS=${RUNS:-5}

# CPU time (us) of one pinned loop of N reads.
loop_cpu() {
	python3 -c '
import os, subprocess, sys
p = subprocess.Popen(["taskset", "-c", "0", sys.argv[1], "read", sys.argv[2], "64"],
                     stdin=subprocess.PIPE)
p.stdin.write(b"g")
p.stdin.close()
_, status, ru = os.wait4(p.pid, 0)
if status != 0:
    sys.exit("the read loop failed")
print("%d" % ((ru.ru_utime + ru.ru_stime) * 1e6))' "$SYSCALLS" "$N"
}
med() { printf '%s\n' "$@" | sort -n | sed -n "$(( ($# + 1) / 2 ))p"; }
# with_row SPEC: the loop's CPU with the helper holding one row of SPEC.
with_row() {
	case "$(helper_say "dist 1 $1\n")" in ok*) ;; *) bail "the helper refused '$1'" ;; esac
	loop_cpu
	helper_say 'undist 1\n' >/dev/null
}
# with_peer SCRIPT N: the loop's CPU with bpftrace running SCRIPT, once the
# kernel lists its N tracepoint programs ("Attaching" comes before that).
attached() { [ "$(bpftool perf show 2>/dev/null | grep -c "^pid $1 .*tracepoint")" -ge "$2" ]; }
with_peer() {
	bpftrace -e "$1" >"$T/peer.out" 2>"$T/peer.err" &
	local bp=$!
	wait_for 20 attached "$bp" "$2" || bail "bpftrace did not attach: $(cat "$T/peer.err")"
	loop_cpu
	# bpftrace 0.17 may miss a SIGINT just before it blocks: the maps are not
	# needed here, so SIGINT again until it is gone.
	while kill -INT "$bp" 2>/dev/null; do sleep 0.5; done
	wait "$bp"
}

start_helper -n >/dev/null || bail "clustermon-kprobe did not start"
bench() { # bench LABEL SPEC SCRIPT NPROBES
	local bare=() ours=() peer=() b o p
	for _ in $(seq 1 "$RUNS"); do
		bare+=("$(loop_cpu)")
		ours+=("$(with_row "$2")")
		peer+=("$(with_peer "$3" "$4")")
	done
	b=$(med "${bare[@]}") o=$(med "${ours[@]}") p=$(med "${peer[@]}")
	echo "== $1: $N reads on CPU 0, $RUNS runs each, interleaved (CPU time of the loop)"
	echo "bare:     median $b us (runs: ${bare[*]})"
	echo "helper:   median $o us (runs: ${ours[*]})"
	echo "bpftrace: median $p us (runs: ${peer[*]})"
	awk -v b="$b" -v o="$o" -v p="$p" -v n="$N" 'BEGIN {
		co = (o - b) * 1000 / n; cp = (p - b) * 1000 / n
		printf "ns per event: helper %.0f, bpftrace %.0f; ratio %.2f (target <= 1.0)\n",
			co, cp, (cp > 0 ? co / cp : 0) }'
}
bench "value of sys_exit_read ret" "value tracepoint:syscalls:sys_exit_read ret" \
	'tracepoint:syscalls:sys_exit_read { @h = hist(args->ret); }' 1
bench "read() latency per thread" \
	"latency tracepoint:syscalls:sys_enter_read tracepoint:syscalls:sys_exit_read" \
	'tracepoint:syscalls:sys_enter_read { @start[tid] = nsecs; }
tracepoint:syscalls:sys_exit_read /@start[tid]/ { @h = hist(nsecs - @start[tid]); delete(@start[tid]); }
END { clear(@start); }' 2
stop_helper
