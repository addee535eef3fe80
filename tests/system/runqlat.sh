#!/bin/bash
# runqlat.sh - sched.runqlat agrees with an independent wakeup-to-run
# measurement of the same moments (runqlat.bt, bcc's runqlat method in
# bpftrace) while two loops share CPU 1 and a ping-pong pair wakes each
# other. The test reads the helper's histogram and marks the moment for the
# peer in one step at each end of the window, so both count the same waits;
# then the two cumulative distributions may differ by at most RQ_GAP at any
# log2 boundary (which bounds every percentile's rank: p50, p90 and p99 are
# reported), the counts by at most RQ_COUNT, and there is no pile of 0-1 ns
# waits the peer does not have. sched.runqlat in the MIB carries the
# helper's counts. One wait may differ between the tools by the time of the
# BPF programs that run between their clock reads (bpftrace's, the
# helper's, any other on those tracepoints), so the gap is taken that much
# either side. Once with the helper's BTF tracepoints (task storage),
# once with -r (raw tracepoints, a hash by pid). docs/testing.md gives the
# spread the tolerances come from.
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || skip_all "needs root to load BPF programs"
[ "$(nproc)" -ge 2 ] || skip_all "needs 2 CPUs"
need_helper
command -v bpftrace >/dev/null || missing_all "bpftrace is missing (apt-get install bpftrace)"
command -v taskset >/dev/null || missing_all "taskset (util-linux) is missing"
plan 10
HIST=$CM.9.1.1 BUCKET=$CM.9.2.1.4
PINGPONG="$top_srcdir/tests/system/pingpong.py"

start_master || bail "snmpd did not start"
printf 'helperSocket %s\nsampleInterval probes 50\n' "$HELPER_SOCK" >"$T/rq.conf"
start_agent -c "$T/rq.conf" || bail "clustermond did not register"
dist() { walk "$HIST.2" | awk -v n="\"$1\"" '$2 == n { sub(/.*\./, "", $1); print $1 }'; }

# The tolerances (docs/testing.md: the spread over repeated runs they come
# from): the largest gap between the cumulative distributions, and the
# relative difference of the counts.
RQ_GAP=${RQ_GAP:-0.02} RQ_COUNT=${RQ_COUNT:-0.03}

# rq_read on|off: the helper's sched.runqlat as "SLOT COUNT" lines, read
# straight from its socket, with the mark for runqlat.bt in the same
# process: right after the read (on), right before it (off). The gap
# between the two tools' windows is one socket round trip at each end.
# The marks: getpgid() of numbers above pid_max (2^22 at most), unique to
# this run.
MARK_ON=$((1000000000 + 2 * $$)) MARK_OFF=$((1000000001 + 2 * $$))
rq_read() {
	python3 - "$HELPER_SOCK" "$1" "$MARK_ON" "$MARK_OFF" <<'PY'
import os, socket, sys
def mark(pid):
    try:
        os.getpgid(pid)
    except OSError:
        pass
def read():
    with socket.socket(socket.AF_UNIX) as s:
        s.settimeout(5)
        s.connect(sys.argv[1])
        s.sendall(b"read\n")
        s.shutdown(socket.SHUT_WR)
        return s.makefile("rb").read().decode()
if sys.argv[2] == "off":
    mark(int(sys.argv[4]))
out = read()
if sys.argv[2] == "on":
    mark(int(sys.argv[3]))
for line in out.splitlines():
    f = line.split()
    if f and f[0] == "runqlat":
        for i, n in enumerate(f[2:]):
            if int(n):
                print(i, n)
PY
}
# mib_total: sched.runqlat's count in the MIB (the sum of its buckets).
mib_total() { walk "$BUCKET.$rq" | awk '{ t += $2 } END { printf "%d\n", t }'; }
# peer_slots FILE: "SLOT COUNT" lines from bpftrace's hist ([0] and [1] are slot 0).
peer_slots() {
	awk '/^\[/ { lo = $1; sub(/^\[/, "", lo); sub(/[],]$/, "", lo)
		m = 1; if (lo ~ /K$/) m = 2^10; else if (lo ~ /M$/) m = 2^20; else if (lo ~ /G$/) m = 2^30
		sub(/[KMG]$/, "", lo); v = lo * m; s = 0
		while (v >= 2) { v /= 2; s++ }
		n[s] += $1 ~ /\]$/ ? $2 : $3 }
		END { for (s in n) print s, n[s] }' "$1"
}
# BPF run-time statistics while the test holds the fd BPF_ENABLE_STATS
# returns (counted per holder, so another test's holder cannot switch them
# off under this one).
stats_on() {
	python3 -c '
import ctypes, os, platform, sys
libc = ctypes.CDLL(None, use_errno=True)
nr_bpf = {"x86_64": 321, "aarch64": 280}[platform.machine()]
attr = ctypes.create_string_buffer(8)  # enable_stats.type = BPF_STATS_RUN_TIME (0)
fd = libc.syscall(nr_bpf, 32, attr, 8) # BPF_ENABLE_STATS
print("on" if fd >= 0 else "error %d" % ctypes.get_errno(), flush=True)
sys.stdin.read()'
}
# sched_progs PEER: "ID PID RUN_TIME_NS RUN_CNT" for every BPF program on
# the machine attached to sched_switch or sched_wakeup but the peer's (PID
# PEER): the helper's, and any other tracer's (another test's helper).
sched_progs() {
	bpftool -j perf show | python3 -c '
import json, subprocess, sys
seen = {}
for a in json.load(sys.stdin):
    if a.get("tracepoint") in ("sched_switch", "sched_wakeup") and a["pid"] != int(sys.argv[1]):
        seen.setdefault(a["prog_id"], a["pid"])
for i, pid in sorted(seen.items()):
    r = subprocess.run(["bpftool", "-j", "prog", "show", "id", str(i)], capture_output=True, text=True)
    if r.returncode == 0:
        p = json.loads(r.stdout)
        print(i, pid, p.get("run_time_ns", 0), p.get("run_cnt", 0))' "$1"
}
# progs_cost BEFORE AFTER: "NS HELPER OTHER": the mean time per run of those
# programs over the window, summed (one wait may differ by that much
# between the tools when they run between the two tools' clock reads), and
# how many of them are the helper's and others'.
progs_cost() {
	join <(sort -k1,1 "$1") <(sort -k1,1 "$2") | awk -v h="$HELPER_PID" '
		{ n = $7 - $4; if (n > 0) { c += ($6 - $3) / n; if ($2 == h) k++; else o++ } }
		END { printf "%d %d %d\n", c, k, o }'
}
delta() { join -a1 -a2 -e 0 -o 0,1.2,2.2 <(sort -k1,1 "$1") <(sort -k1,1 "$2") | awk '{ print $1, $3 - $2 }'; }
# judge SENSOR PEER DELTA: from two "SLOT COUNT" files, "ST PT S0 P0 GAP AT
# RAWGAP" and for p50, p90 and p99 the sensor's slot and how far the
# peer's cumulative share over that slot lies from the percentile (0 when
# the slot holds it). GAP is the largest distance, at a log2 boundary b
# (AT), of the sensor's cumulative share F_s(b) from the peer's between
# F_p(b - DELTA) and F_p(b + DELTA): one wait may differ by DELTA ns between
# the tools, the programs' time that runs between their clock reads (F_p
# within a slot interpolated). RAWGAP is the same with DELTA
# 0. Unlike a percentile's slot, neither jumps when a percentile crosses a
# boundary.
judge() {
	awk -v delta="$3" 'FNR == 1 { f++ } { c[f, $1] += $2; t[f] += $2; if ($1 > max) max = $1 }
		function F(g, x,  s, run, lo, w) {
			for (s = 0; s <= max; s++) { lo = s ? 2^s : 0; w = s ? 2^s : 2
				if (x < lo + w) { if (x > lo) run += c[g, s] * (x - lo) / w; return run / t[g] }
				run += c[g, s] }
			return 1 }
		function off(v, lo, hi) { return v < lo ? lo - v : (v > hi ? v - hi : 0) }
		END { if (!t[1] || !t[2]) { print t[1] + 0, t[2] + 0, 0, 0, 1, -1, 1; exit }
			for (s = 1; s <= max + 1; s++) { b = 2^s; fs = F(1, b)
				d = off(fs, F(2, b - delta), F(2, b + delta)); if (d > gap) { gap = d; at = s }
				d = off(fs, F(2, b), F(2, b)); if (d > raw) raw = d }
			printf "%d %d %d %d %.4f %d %.4f", t[1], t[2], c[1, 0], c[2, 0], gap, at, raw
			n = split("0.5 0.9 0.99", q, " ")
			for (i = 1; i <= n; i++) {
				run = 0; for (s = 0; s <= max; s++) { run += c[1, s]; if (run >= q[i] * t[1]) break }
				printf " %d %.4f", s, off(q[i], F(2, (s ? 2^s : 0) - delta), F(2, 2^(s + 1) + delta)) }
			print "" }' "$1" "$2"
}

compare() { # compare LABEL: one measured window, five test points
	local label=$1 bp hold hcost hprogs oprogs st pt s0 p0 gap at raw s50 d50 s90 d90 s99 d99 mt
	wait_for 5 sh -c "snmpwalk -v2c -c public -On $TARGET $HIST.2 | grep -q sched.runqlat" ||
		bail "no sched.runqlat with the helper ($label)"
	rq=$(dist sched.runqlat)
	# Run-time statistics on (the helper's programs' own time), held by a
	# pipe this shell closes at the end of the window.
	rm -f "$T/stats.in"; mkfifo "$T/stats.in"
	stats_on <"$T/stats.in" >"$T/stats.out" &
	exec {hold}>"$T/stats.in"
	wait_for 5 grep -q . "$T/stats.out"
	grep -qx on "$T/stats.out" || bail "BPF_ENABLE_STATS failed: $(cat "$T/stats.out")"
	bpftrace -B line "$top_srcdir/tests/system/runqlat.bt" "$MARK_ON" "$MARK_OFF" >"$T/peer.out" 2>"$T/peer.err" &
	bp=$!
	wait_for 20 grep -q Attaching "$T/peer.out" || bail "bpftrace did not start: $(cat "$T/peer.err")"
	# bpftrace prints Attaching before its probes are live: mark on again
	# (a new first reading each time) until it has seen the mark.
	for _ in $(seq 1 20); do
		rq_read on >"$T/s0" || bail "cannot read the helper ($label)"
		wait_for 1 grep -q '^mark on' "$T/peer.out" && break
	done
	grep -q '^mark on' "$T/peer.out" || bail "bpftrace never saw the start mark ($label)"
	sched_progs "$bp" >"$T/hp0"
	timeout 2 taskset -c 1 sh -c 'while :; do :; done' & local l1=$!
	timeout 2 taskset -c 1 sh -c 'while :; do :; done' & local l2=$!
	python3 "$PINGPONG" 2
	wait "$l1" "$l2"
	rq_read off >"$T/s1" || bail "cannot read the helper ($label)"
	sched_progs "$bp" >"$T/hp1"
	exec {hold}>&-
	read -r hcost hprogs oprogs < <(progs_cost "$T/hp0" "$T/hp1")
	[ "$hprogs" = 2 ] || bail "the helper's wakeup and switch programs did not both run ($label): $(tr '\n' ' ' <"$T/hp1")"
	# bpftrace ends at the end mark, printing its maps; a watchdog for a hang.
	(sleep 60; kill -9 "$bp") 2>/dev/null & local dog=$!
	wait "$bp"
	kill "$dog" 2>/dev/null; wait "$dog" 2>/dev/null
	grep -q '^mark off' "$T/peer.out" && grep -q '^@cost:' "$T/peer.out" ||
		bail "bpftrace did not end at the end mark with its maps ($label)"
	delta "$T/s0" "$T/s1" >"$T/sd"
	peer_slots "$T/peer.out" >"$T/pd"
	cost=$(awk '/^@cost:/ { c = int($2) } /^@wcost:/ { w = int($2) } END { print c + w }' "$T/peer.out")
	read -r st pt s0 p0 gap at raw s50 d50 s90 d90 s99 d99 < <(judge "$T/sd" "$T/pd" "$((${cost:-0} + hcost))")
	diag "$label: sched.runqlat $st waits ($s0 in 0-1 ns), bpftrace $pt ($p0);" \
		"cumulative gap $gap at 2^$at ns ($raw without the programs' ${cost} ns (bpftrace) + $hcost ns (the helper's and $oprogs other programs) per wait);" \
		"p50 slot $s50 (rank off by $d50), p90 slot $s90 ($d90), p99 slot $s99 ($d99)"
	diag "sensor slots: $(sort -n "$T/sd" | awk '$2 { printf "%s:%s ", $1, $2 }')"
	diag "peer slots:   $(sort -n "$T/pd" | awk '$2 { printf "%s:%s ", $1, $2 }')"
	awk -v g="$gap" -v m="$RQ_GAP" 'BEGIN { exit !(g <= m) }'
	ok $? "$label: the cumulative distributions differ by $gap at most (2^$at ns; $RQ_GAP allowed)"
	awk -v a="$d50" -v b="$d90" -v m="$RQ_GAP" 'BEGIN { exit !(a <= m && b <= m) }'
	ok $? "$label: p50 and p90 (slots $s50, $s90) hold the peer's ranks within $RQ_GAP ($d50, $d90)"
	[ $((s0 * 100)) -le $((st * 2 + p0 * 100)) ]
	ok $? "$label: 0-1 ns waits ($s0 of $st) at most 2% beyond the peer's ($p0)"
	awk -v s="$st" -v p="$pt" -v m="$RQ_COUNT" 'BEGIN { d = (s - p) / p; if (d < 0) d = -d; exit !(p > 0 && d <= m) }'
	ok $? "$label: as many waits as bpftrace saw, within $RQ_COUNT ($st vs $pt)"
	# The MIB carries the helper's counts: clustermond samples it every 50 ms.
	mt=$(awk '{ t += $2 } END { printf "%d\n", t }' "$T/s1")
	mib_reaches() { [ "$(mib_total)" -ge "$mt" ]; }
	wait_for 5 mib_reaches
	got=$(mib_total)
	[ "$got" -ge "$mt" ]
	ok $? "$label: sched.runqlat in the MIB reaches the helper's count ($got >= $mt)"
}

start_helper || bail "clustermon-kprobe did not start: $(cat "$T/kprobe.log")"
compare "BTF tracepoints"
stop_helper
start_helper -r || bail "clustermon-kprobe -r did not start: $(cat "$T/kprobe.log")"
compare "raw tracepoints"
finish
