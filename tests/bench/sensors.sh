#!/bin/bash
# sensors.sh - what every context switch pays for the helper's scheduler
# sensors (issue 41), each figure against a baseline in the same run:
#  1. `perf bench sched pipe` (LOOPS round trips, two switches each, both
#     tasks on CPU 0), RUNS runs of each set-up interleaved: bare, the
#     helper as installed (every sensor), the helper with one sensor off
#     at a time (-S), with none (-S none: busy time and switch counts per
#     CPU), and bpftrace's own runqlat.bt. Judged on the CPU time of the
#     benchmark's tasks (pipe-lib.sh): the median of each round's ratio to
#     that round's bare run, and the ns that adds a switch; a sensor's cost
#     is what turning it off saves.
#  2. STATS_RUNS more rounds of each with the kernel's BPF statistics on:
#     each program's mean ns a run (the median over the rounds), and the
#     programs' ns a switch (sched_switch's and the wakeups' time over the
#     switches). bpf_stats times every run
#     with two clock reads, and an empty program on sched_switch (bpftrace)
#     shows what that instrumentation itself costs here; "net" is the
#     programs' time less that floor for each run.
# Targets: every sensor on at or under 1.10x bare, and its programs under
# 150 ns a switch. Run as root from a build directory.
. "$(dirname "$0")/../system/lib.sh"
. "$(dirname "$0")/../system/runqlat-lib.sh"
. "$(dirname "$0")/pipe-lib.sh"
[ "$(id -u)" -eq 0 ] || bail "needs root to load BPF programs"
for t in perf bpftool bpftrace taskset; do
	command -v "$t" >/dev/null || bail "$t is missing (tests/setup-deps.sh installs it)"
done
RUNQLAT_BT=${RUNQLAT_BT:-/usr/sbin/runqlat.bt}
[ -r "$RUNQLAT_BT" ] || bail "no $RUNQLAT_BT (Debian's bpftrace ships it)"
LOOPS=${LOOPS:-200000} RUNS=${RUNS:-9} STATS_RUNS=${STATS_RUNS:-3}
SWITCHES=$((2 * LOOPS))
# Debian's runqlat.bt includes <linux/sched.h> for TASK_RUNNING alone, and
# bpftrace 0.17 cannot parse that header from Debian 12's linux-libc-dev
# (__aligned_u64): the same program with the constant written as 0.
sed -e '/^#include/d' -e 's/TASK_RUNNING/0/' "$RUNQLAT_BT" >"$T/runqlat.bt"

# label|how: "helper ARGS", "bpftrace SCRIPT-OR-PROGRAM", or "bare".
SETUPS=(
	"bare|bare"
	"every sensor (default)|helper"
	"without proc|helper -S cgroup,runqlat"
	"without cgroup|helper -S proc,runqlat"
	"without runqlat|helper -S proc,cgroup"
	"none (-S none)|helper -S none"
	"bpftrace runqlat.bt|bpftrace $T/runqlat.bt"
)

BT_PID=
start_setup() {
	local how=$1 mine
	case $how in
	bare) ;;
	helper*) start_helper ${how#helper} >/dev/null || bail "clustermon-kprobe ${how#helper} did not start" ;;
	bpftrace*)
		if [ -f "${how#bpftrace }" ]; then
			bpftrace "${how#bpftrace }" >"$T/bt.out" 2>&1 &
		else
			bpftrace -e "${how#bpftrace }" >"$T/bt.out" 2>&1 &
		fi
		BT_PID=$! BG_PIDS="${BG_PIDS:-} $BT_PID"
		# Attaching is printed before the probes are live: wait for its
		# sched_switch program to be attached.
		mine() { bpftool -j perf show | python3 -c '
import json, sys
sys.exit(not any(a["pid"] == int(sys.argv[1]) and a.get("tracepoint") == "sched_switch"
                 for a in json.load(sys.stdin)))' "$BT_PID"; }
		wait_for 30 mine || bail "bpftrace did not attach: $(cat "$T/bt.out")" ;;
	esac
}
stop_setup() {
	case $1 in
	helper*) stop_helper ;;
	bpftrace*) kill -INT "$BT_PID"; wait "$BT_PID" 2>/dev/null; BG_PIDS=${BG_PIDS/ $BT_PID/} ;;
	esac
}

echo "== perf bench sched pipe ($LOOPS round trips, both tasks on CPU 0), $RUNS runs of each set-up, interleaved"
declare -A cpu
for r in $(seq 1 "$RUNS"); do
	for s in "${SETUPS[@]}"; do
		start_setup "${s#*|}"
		read -r c _ < <(pipe_cpu) || bail "perf bench failed (${s%%|*})"
		cpu[${s%%|*}]+=" $c"
		stop_setup "${s#*|}"
	done
done
# Each set-up against the bare run of the same round (the machine's pace
# drifts between rounds more than within one): the median of those ratios.
for s in "${SETUPS[@]}"; do echo "${s%%|*}|${cpu[${s%%|*}]}"; done | python3 -c '
import statistics, sys
rows = [l.rstrip("\n").split("|") for l in sys.stdin]
runs = {name: [int(v) for v in vals.split()] for name, vals in rows}
bare, switches = runs["bare"], int(sys.argv[1])
print("%-24s %12s %7s %14s   %s" % ("set-up", "CPU us/run", "ratio", "+ns a switch", "runs"))
for name, _ in rows:
    r = statistics.median(x / b for x, b in zip(runs[name], bare))
    print("%-24s %12d %7.3f %14.0f   %s" % (name, statistics.median(runs[name]), r,
          (r - 1) * statistics.median(bare) * 1000 / switches, " ".join(map(str, runs[name]))))
' "$SWITCHES" | tee "$T/pipe.txt"

# progs_json FILE: every program's name, run_cnt and run_time_ns.
progs_json() { bpftool -j prog show >"$1"; }
# sched_ids PID: the programs PID attached to the scheduler's tracepoints
# (other helpers on the machine have programs of the same names).
sched_ids() {
	bpftool -j perf show | python3 -c '
import json, sys
for a in json.load(sys.stdin):
    if a["pid"] == int(sys.argv[1]) and a.get("tracepoint", "").startswith(("sched_switch", "sched_wakeup")):
        print(a["prog_id"])' "$1" >"$T/ids"
}
# prog_costs BEFORE AFTER: "NAME RUNS NS-A-RUN" of the programs in $T/ids.
prog_costs() {
	python3 -c '
import json, sys
ids = {int(l) for l in open(sys.argv[3])}
before = {p["id"]: p for p in json.load(open(sys.argv[1]))}
for p in json.load(open(sys.argv[2])):
    q = before.get(p["id"], {})
    n = p.get("run_cnt", 0) - q.get("run_cnt", 0)
    if p["id"] in ids and n > 0:
        print(p.get("name", "?"), n, "%.1f" % ((p.get("run_time_ns", 0) - q.get("run_time_ns", 0)) / n))' "$1" "$2" "$T/ids"
}
# stats_run HOW: prog_costs of one benchmark run under set-up HOW.
stats_run() {
	start_setup "$1"
	case $1 in helper*) sched_ids "$HELPER_PID" ;; bpftrace*) sched_ids "$BT_PID" ;; esac
	progs_json "$T/b"; pipe_cpu >/dev/null; progs_json "$T/a"
	stop_setup "$1"
	prog_costs "$T/b" "$T/a"
}

echo
echo "== the same with bpf_stats on: mean ns a run per program, and the programs' ns a switch"
stats_start "$T/stats"
: >"$T/stats.raw"
for r in $(seq 1 "$STATS_RUNS"); do
	stats_run "bpftrace tracepoint:sched:sched_switch { }" | sed 's/^/floor /' >>"$T/stats.raw"
	for s in "${SETUPS[@]}"; do
		how=${s#*|} label=${s%%|*}
		[ "$how" = bare ] && continue
		stats_run "$how" | sed "s/^/${label// /_}-${r} /" >>"$T/stats.raw"
	done
done
stats_stop
# Each program's median ns a run over the rounds; the programs' ns a switch
# (switch + wakeups, over the switches), and net of the empty program's.
for s in "${SETUPS[@]}"; do echo "${s%%|*}"; done | python3 -c '
import statistics, sys
labels = [l.strip() for l in sys.stdin if l.strip() != "bare"]
raw = [l.split() for l in open(sys.argv[1])]
floor = statistics.median(float(ns) for key, name, runs, ns in raw if key == "floor" and name == "sched_switch")
print("an empty program on sched_switch (the instrumentation floor): %.1f ns a run" % floor)
print("%-24s %10s %10s %12s %12s" % ("set-up", "switch ns", "wakeup ns", "ns a switch", "net a switch"))
for label in labels:
    mine = [r for r in raw if r[0].rsplit("-", 1)[0] == label.replace(" ", "_") and r[1].startswith(
            ("on_switch", "on_wakeup", "sched_switch", "sched_wakeup"))]
    rounds = {r[0] for r in mine}
    per = []
    for rnd in rounds:
        rows = [r for r in mine if r[0] == rnd]
        sw = [r for r in rows if "switch" in r[1]]
        if not sw:
            sys.exit("%s: no sched_switch runs counted" % label)
        t = sum(int(r[2]) * float(r[3]) for r in rows)
        n = sum(int(r[2]) for r in rows)
        wk = [float(r[3]) for r in rows if "wakeup" in r[1] and "_ne" not in r[1]]
        per.append((float(sw[0][3]), wk[0] if wk else 0.0, t / int(sw[0][2]), (t - n * floor) / int(sw[0][2])))
    med = [statistics.median(p[i] for p in per) for i in range(4)]
    print("%-24s %10.1f %10.1f %12.1f %12.1f" % (label, *med))
' "$T/stats.raw" | tee "$T/stats.txt"

echo
python3 - "$T/pipe.txt" "$T/stats.txt" <<'P'
import re, sys
def table(path):
    rows = {}
    for line in open(path):
        m = re.match(r"(.+?)\s{2,}([0-9.].*)$", line.rstrip())
        if m:
            rows[m.group(1).strip()] = [float(v) for v in m.group(2).split()[:4]]
    return rows
pipe, stats = table(sys.argv[1]), table(sys.argv[2])
full, peer, none = "every sensor (default)", "bpftrace runqlat.bt", "none (-S none)"
print(f"every sensor on: {pipe[full][1]:.3f}x bare (target <= 1.10); bpftrace's runqlat.bt "
      f"{pipe[peer][1]:.3f}x, so clustermon adds {pipe[full][2] / pipe[peer][2]:.2f} of what it adds")
print(f"the programs of every sensor: {stats[full][2]:.1f} ns a switch by bpf_stats (target < 150), "
      f"{stats[full][3]:.1f} net of the instrumentation floor; bpftrace's runqlat.bt {stats[peer][2]:.1f}")
print("what each sensor costs a switch (what turning it off saves):")
for name in ("proc", "cgroup", "runqlat"):
    off = "without " + name
    print(f"  {name:8s} {pipe[full][2] - pipe[off][2]:6.0f} ns of the benchmark's CPU, "
          f"{stats[full][2] - stats[off][2]:6.1f} ns in the programs (bpf_stats)")
print(f"  {'always':8s} {pipe[none][2]:6.0f} ns of the benchmark's CPU, {stats[none][2]:6.1f} ns in the "
      "programs (busy time and switches per CPU)")
P
