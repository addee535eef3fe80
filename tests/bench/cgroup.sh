#!/bin/bash
# cgroup.sh - the cgroup source's CPU over N cgroups (default 500) made in
# every hierarchy this machine mounts: clustermond at 1 s against a shell
# loop that cats the same files of each cgroup once a second (the baseline,
# same cgroups, same run), and clustermond at 10 ms. CPU time, not wall
# time: the cgroup source's own thread (cm-cgroup) from its schedstat, in
# ns, and bash's `time` (user+sys, children included) for the loop and its
# cats. Prints CPU per pass over all cgroups and the ratio; runs interleaved.
# Then, where clustermon-kprobe is built, the sensor path as installed with
# the helper: a process in each cgroup waking ten times a second (so each
# has an entry in the helper's map), clustermond at 10 ms and at the
# default 1 s: each of clustermond's threads (cm-cgroup the source,
# cm-publish the image of its table, the rest the other sources at their
# defaults), the whole of it, the helper's process (all from schedstat, as
# a share of a core over the wall time), and clustermond's open
# descriptors. (The BPF programs' own time runs in the scheduler of every
# task switched, the helper's process does not carry it: tests/system
# /runqlat.sh prints it per wait.)
#
# BENCH_CLUSTERMOND and BENCH_HELPER run other builds' binaries; with
# BENCH_BASELINE=PATH (another clustermond, main's for example) each sensor
# run is followed by the same run of that one, on the same cgroups, so a
# change is measured against its baseline in one sitting; SENSOR_RUNS (1)
# repeats them, SENSOR_ONLY=1 leaves out the runs without the helper. The
# image is published on a tmpfs, as /run is.
. "$(dirname "$0")/../system/lib.sh"
[ "$(id -u)" -eq 0 ] || bail "needs root to create cgroups"
CLUSTERMOND=${BENCH_CLUSTERMOND:-$CLUSTERMOND} KPROBE_HELPER=${BENCH_HELPER:-$KPROBE_HELPER}
image_on_tmpfs || bail "cannot mount a tmpfs for the image (as /run is)"
. "$(dirname "$0")/threads.sh"   # cpu_ns, threads, per_thread
N=${N:-500} SECONDS_EACH=${SECONDS_EACH:-10} RUNS=${RUNS:-2}
PFX="cmbench-$$"

V2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
v1_of() { awk -v c="$1" '$3 == "cgroup" { n = split($4, o, ","); for (i = 1; i <= n; i++) if (o[i] == c) { print $2; exit } }' /proc/self/mounts; }
ROOTS=$(for c in cpu cpuacct memory blkio pids; do v1_of $c; done | sort -u)
[ -n "$V2" ] && ROOTS="$V2 $ROOTS"
cg_cleanup() { for r in $ROOTS; do rmdir "$r/$PFX"/g* "$r/$PFX" 2>/dev/null; done; }
trap 'cg_cleanup; cleanup' EXIT
for r in $ROOTS; do
	mkdir "$r/$PFX" || bail "cannot create $r/$PFX"
	for i in $(seq 1 "$N"); do mkdir "$r/$PFX/g$i"; done
done

# The files clustermond reads of each cgroup, as the baseline cats them.
FILES=()
for r in $ROOTS; do
	for f in cgroup.procs cpu.stat cpuacct.usage cpuacct.usage_user cpuacct.usage_sys \
		memory.current memory.peak memory.max memory.events memory.stat io.stat \
		memory.usage_in_bytes memory.max_usage_in_bytes memory.limit_in_bytes memory.oom_control \
		blkio.throttle.io_service_bytes_recursive blkio.throttle.io_serviced_recursive \
		pids.current pids.max cpu.pressure memory.pressure io.pressure; do
		[ -f "$r/$PFX/g1/$f" ] && FILES+=("$r/$PFX/gNUM/$f")
	done
done

start_master >/dev/null || bail "snmpd did not start"
SRC=$CM.2.1.1
# CPU ns of the cgroup source's thread.
thread_ns() { # thread_ns [NAME]: default cm-cgroup
	local t
	for t in /proc/"$AGENT_PID"/task/*; do
		[ "$(cat "$t/comm" 2>/dev/null)" = "${1:-cm-cgroup}" ] && { read -r ns _ <"$t/schedstat"; echo "$ns"; return; }
	done
	echo 0
}
# agent MS: clustermond at cgroup interval MS for SECONDS_EACH s; sets
# US (CPU us per pass over the N cgroups), NS (samples), SHARE (per mille).
agent() {
	# As installed: the fast-path image is published. Pinned to its timer:
	# nobody reads the table between the two GETs, and a source nobody
	# reads sleeps after 3 s (issue 42), which would measure idling.
	printf 'sampleInterval cgroup %s always\ncgroupMatch %s/*\nsnapshotFile %s\n' "$1" "$PFX" "$IMAGE" >"$T/bench.conf"
	[ -z "${HELPER_PID:-}" ] || printf 'helperSocket %s\n' "$HELPER_SOCK" >>"$T/bench.conf"
	AGENT_WAIT=30 start_agent -c "$T/bench.conf" >/dev/null || bail "clustermond did not register"
	sleep 3
	[ "$(get "$clusterMonCgroupCount.0")" = "$N" ] || bail "clustermond serves $(get "$clusterMonCgroupCount.0") rows, not $N"
	local c0 s0 c1 s1 t0 t1 h0 h1 w0 w1
	t0=$(threads "$AGENT_PID") h0=$(helper_ns) w0=$(date +%s%N)
	c0=$(thread_ns) s0=$(get "$SRC.5.7")
	[ "$c0" -gt 0 ] || bail "no cm-cgroup thread in clustermond"
	sleep "$SECONDS_EACH"
	c1=$(thread_ns) s1=$(get "$SRC.5.7")
	t1=$(threads "$AGENT_PID") h1=$(helper_ns) w1=$(date +%s%N)
	# Shares of a core over the wall time, in percent: each thread, the
	# whole process, the helper's.
	THREADS=$(per_thread "$t0" "$t1" $((w1 - w0)))
	WHOLE=$(pct $(( $(sum_ns "$t1") - $(sum_ns "$t0") )) $((w1 - w0)))
	HELPER=$(pct $((h1 - h0)) $((w1 - w0)))
	FDS=$(ls /proc/"$AGENT_PID"/fd | wc -l)
	NS=$((s1 - s0))
	US=$(( (c1 - c0) / 1000 / (NS > 0 ? NS : 1) ))
	SHARE=$(( (c1 - c0) / 1000000 / SECONDS_EACH ))
	stop_agent
}
sum_ns() { printf '%s\n' "$1" | awk '{ n += $2 } END { printf "%.0f\n", n }'; }
pct() { awk -v n="$1" -v w="$2" 'BEGIN { printf "%.3f%%", n * 100 / w }'; }
helper_ns() { if [ -n "${HELPER_PID:-}" ]; then cpu_ns "$HELPER_PID"; else echo 0; fi; }
# shell: one pass a second for SECONDS_EACH s; sets US (CPU us per pass).
shell() {
	local out u s
	out=$( { time (for _ in $(seq 1 "$SECONDS_EACH"); do
		for i in $(seq 1 "$N"); do cat "${FILES[@]//gNUM/g$i}" >/dev/null; done; sleep 1
	done) ; } 2>&1 )
	u=${out%%+*} s=${out##*+}
	US=$(( (10#${u%.*} * 1000 + 10#${u#*.}) * 1000 / SECONDS_EACH + (10#${s%.*} * 1000 + 10#${s#*.}) * 1000 / SECONDS_EACH ))
}
TIMEFORMAT=%3U+%3S
# SENSOR_ONLY=1: only the figures with the helper (below).
[ -n "${SENSOR_ONLY:-}" ] && RUNS=0
echo "== $N cgroups over: $ROOTS; ${SECONDS_EACH} s each, $RUNS runs interleaved"
med() { printf '%s\n' "$@" | sort -n | sed -n "$(( ($# + 1) / 2 ))p"; }
a=() b=() f=()
for r in $(seq 1 "$RUNS"); do
	agent 1000
	echo "run $r clustermond at 1 s: $US us of CPU a pass ($NS samples), $FDS fds"; a+=("$US")
	shell
	echo "run $r shell loop of cat: $US us of CPU a pass"; b+=("$US")
	agent 10
	echo "run $r clustermond at 10 ms: $US us of CPU a pass, $NS samples, $SHARE per mille of a core"; f+=("$SHARE")
done
[ "$RUNS" -gt 0 ] && {
ma=$(med "${a[@]}") mb=$(med "${b[@]}") mf=$(med "${f[@]}")
printf 'clustermond %d us a pass against the shell loop'"'"'s %d us: ratio %d.%03d\n' "$ma" "$mb" \
	$(( ma * 1000 / mb / 1000 )) $(( ma * 1000 / mb % 1000 ))
printf 'at 10 ms without the helper: %d.%d%% of a core\n' $(( mf / 10 )) $(( mf % 10 ))
}

# --- with the helper: the sensor every sample, the files about once a second
[ -x "$KPROBE_HELPER" ] && [ -n "$V2" ] || { echo "no clustermon-kprobe or no cgroup2 tree: no sensor figures"; exit 0; }
start_helper || bail "clustermon-kprobe did not start"
python3 - "$N" "$V2/$PFX" <<'PY' &
import os, sys, time
end = time.time() + 600
for i in range(1, int(sys.argv[1]) + 1):
    if os.fork() == 0:
        with open("%s/g%d/cgroup.procs" % (sys.argv[2], i), "w") as f:
            f.write(str(os.getpid()))
        while time.time() < end and os.getppid() != 1:
            time.sleep(0.1)
        os._exit(0)
while time.time() < end:
    time.sleep(1)
PY
SLEEPERS=$!
sensor() { # sensor MS [LABEL]: clustermond at MS with the helper; prints its figures
	agent "$1"
	echo "${2:-clustermond} at $1 ms with the helper: $US us a sample, $NS samples;" \
		"threads:$THREADS; clustermond $WHOLE, clustermon-kprobe $HELPER of a core; $FDS fds"
}
own=$CLUSTERMOND
for r in $(seq 1 "${SENSOR_RUNS:-1}"); do
	for ms in 10 1000; do
		CLUSTERMOND=$own sensor "$ms"
		[ -z "${BENCH_BASELINE:-}" ] || CLUSTERMOND=$BENCH_BASELINE sensor "$ms" baseline
	done
done
kill "$SLEEPERS" 2>/dev/null; pkill -P "$SLEEPERS" 2>/dev/null; wait "$SLEEPERS" 2>/dev/null
stop_helper
