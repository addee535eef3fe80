#!/bin/bash
# trace.sh - what recording kernel events to disk costs (issue 16):
# clustermon-kprobe's trace sessions against `perf record -e` of the same
# tracepoint, both writing to the same tmpfs with 4 MiB of buffer per CPU,
# runs interleaved with a baseline without any tracer:
#  1. 1,000,000 getppid() calls of one pinned process (its pid filtered):
#     ns added per recorded event, records and losses, the ratio.
#  2. a ping-pong of two processes on CPU 1 (CPU filter): switches per second
#     recorded with zero loss at rising rates, and ns added per switch at the
#     highest; the ratio at the peer's highest loss-free rate.
. "$(dirname "$0")/../system/lib.sh"
[ "$(id -u)" -eq 0 ] || bail "needs root to load BPF programs"
command -v perf >/dev/null || bail "perf is missing (apt-get install linux-perf)"
SYSCALLS="$top_builddir/tests/system/syscalls"
PINGPONG="$top_builddir/tests/system/pingpong"
[ -x "$SYSCALLS" ] && [ -x "$PINGPONG" ] || bail "build the test helpers first (make check)"
N=1000000 RUNS=${RUNS:-3} BUF=4194304
FS="$T/tmpfs"
mkdir -p "$FS"
mount -t tmpfs -o size=2g cmbench "$FS" || bail "cannot mount a tmpfs"
trap 'umount "$FS" 2>/dev/null; cleanup' EXIT
start_helper -t "$FS" >/dev/null || bail "clustermon-kprobe did not start"
med() { printf '%s\n' "$@" | sort -n | sed -n "$(( ($# + 1) / 2 ))p"; }
id=0
# trace_line ID: the helper's "trace ID STATE RECORDS LOST ..." line once ended.
trace_line() {
	local i
	for i in $(seq 1 100); do
		helper_say 'traces\n' | awk -v id="$1" '$1 == "trace" && $2 == id && $3 != "running"' |
			grep . && return 0
		sleep 0.1
	done
}
# perf_start ARGS...: perf record started disabled, enabled through its
# control fifo once it is set up, returning when perf acknowledged: on a
# busy machine its start-up (reading every process) takes seconds, and a
# fixed sleep would let the workload begin before it records. PERF_PID.
perf_start() {
	rm -f "$T/ctl" "$T/ack"; mkfifo "$T/ctl" "$T/ack"
	taskset -c 0 perf record -q -D -1 --control "fifo:$T/ctl,$T/ack" -m $((BUF / 4096)) \
		-o "$FS/perf.data" "$@" 2>"$T/perf.err" &
	PERF_PID=$!
	echo enable >"$T/ctl"
	timeout 30 head -c 3 "$T/ack" >/dev/null || bail "perf record did not start: $(cat "$T/perf.err")"
}
# perf_counts FILE: "SAMPLES LOST" of a perf.data file.
perf_counts() {
	perf report -i "$1" --stats 2>/dev/null |
		awk '/^ *SAMPLE events:/ { s = $3 } /^ *LOST events:/ { l = $3 } /LOST_SAMPLES events:/ { l += $3 }
		END { print s + 0, l + 0 }'
}

# --- 1. getppid
calls() { # calls MODE: "MS RECORDED LOST" for N getppid() calls on CPU 1
	local pid t0 ms pp line
	rm -f "$T/go" "$FS/perf.data"; mkfifo "$T/go"
	taskset -c 1 "$SYSCALLS" getppid "$N" <"$T/go" & pid=$!
	case $1 in
	clustermon)
		id=$((id + 1))
		helper_say "trace $id tracepoint:syscalls:sys_enter_getppid pid=$pid duration=600000 buffer=$BUF\n" >/dev/null ;;
	# the pid as an in-kernel event filter, as ours filters in its program
	# (perf's -p with a control fifo records nothing)
	perf) perf_start -e syscalls:sys_enter_getppid --filter "common_pid == $pid" -C 1
		pp=$PERF_PID ;;
	esac
	t0=$(date +%s%N); echo g >"$T/go"; wait "$pid"; ms=$(( ($(date +%s%N) - t0) / 1000 ))
	case $1 in
	clustermon) helper_say "stop $id\n" >/dev/null
		line=$(trace_line "$id"); echo "$ms $(awk '{ print $4, $5 }' <<<"$line")" ;;
	perf) kill -INT "$pp"; wait "$pp"; echo "$ms $(perf_counts "$FS/perf.data")" ;;
	*) echo "$ms 0 0" ;;
	esac
}
echo "== $N getppid() calls on CPU 1, pid filter, $RUNS runs each interleaved (times in us)"
declare -A t rec lost
for _ in $(seq 1 "$RUNS"); do
	for m in none clustermon perf; do
		read -r us r l < <(calls "$m")
		t[$m]="${t[$m]:-} $us" rec[$m]="${rec[$m]:-} $r" lost[$m]="${lost[$m]:-} $l"
	done
done
for m in none clustermon perf; do
	# shellcheck disable=SC2086
	echo "$m: median $(med ${t[$m]}) us (runs:${t[$m]}); recorded:${rec[$m]}; lost:${lost[$m]}"
done
# shellcheck disable=SC2086
awk -v b="$(med ${t[none]})" -v c="$(med ${t[clustermon]})" -v p="$(med ${t[perf]})" -v n="$N" 'BEGIN {
	cc = (c - b) * 1000 / n; pc = (p - b) * 1000 / n
	printf "ns added per event: clustermon %.0f, perf record %.0f\n", cc, pc
	printf "getppid cost ratio clustermon/perf record: %.2f (target < 1)\n", (pc > 0 ? cc / pc : 99) }'

# --- 2. sched_switch
pingpong() { # pingpong MODE RATE: "TRIPS/S RECORDED LOST" for 2 s on CPU 1
	local pp line trips
	rm -f "$FS/perf.data"
	case $1 in
	clustermon)
		id=$((id + 1))
		helper_say "trace $id sched_switch cpu=1 duration=60000 buffer=$BUF\n" >/dev/null ;;
	perf) perf_start -e sched:sched_switch -C 1; pp=$PERF_PID ;;
	esac
	# SCHED_FIFO: the machine's other tasks do not take turns on CPU 1
	trips=$(taskset -c 1 chrt -f 10 "$PINGPONG" 2 "$2" 2>&1 >/dev/null | awk '{ print int($1 / 2) }')
	case $1 in
	clustermon) helper_say "stop $id\n" >/dev/null
		line=$(trace_line "$id"); echo "$trips $(awk '{ print $4, $5 }' <<<"$line")" ;;
	perf) kill -INT "$pp"; wait "$pp"; echo "$trips $(perf_counts "$FS/perf.data")" ;;
	*) echo "$trips 0 0" ;;
	esac
}
echo "== ping-pong on CPU 1 for 2 s at a rising rate cap (round trips/s; 2 switches each), CPU filter"
best_c=0 best_p=0
declare -A full
for rate in 20000 50000 100000 200000 $(seq 1 "$RUNS" | sed 's/.*/0/'); do
	for m in none clustermon perf; do
		read -r trips r l < <(pingpong "$m" "$rate")
		echo "cap ${rate/#0/none}: $m: $trips trips/s, recorded $r, lost $l"
		[ "$m" = clustermon ] && [ "$l" = 0 ] && [ "$trips" -gt "$best_c" ] && best_c=$trips
		[ "$m" = perf ] && [ "$l" = 0 ] && [ "$trips" -gt "$best_p" ] && best_p=$trips
		[ "$rate" = 0 ] && full[$m]="${full[$m]:-} $trips"
	done
done
echo "highest loss-free rate: clustermon $((best_c * 2)) switches/s, perf record $((best_p * 2)) switches/s"
awk -v c="$best_c" -v p="$best_p" 'BEGIN {
	printf "loss-free rate ratio perf record/clustermon: %.2f (target <= 1)\n", (c > 0 ? p / c : 99) }'
# shellcheck disable=SC2086
awk -v b="$(med ${full[none]})" -v c="$(med ${full[clustermon]})" -v p="$(med ${full[perf]})" 'BEGIN {
	# a round trip is two switches: the time a traced one adds, halved
	cc = (1e9 / c - 1e9 / b) / 2; pc = (1e9 / p - 1e9 / b) / 2
	printf "uncapped, medians of %d, %d and %d trips/s: ns added per switch: clustermon %.0f, perf record %.0f\n", b, c, p, cc, pc
	printf "sched_switch cost ratio clustermon/perf record: %.2f (target < 1)\n", (pc > 0 ? cc / pc : 99) }'
