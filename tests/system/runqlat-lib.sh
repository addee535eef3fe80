# runqlat-lib.sh - what runqlat.sh and cgrunqlat.sh share: bpftrace's
# histogram read back, the comparison of two log2 histograms by their
# cumulative distributions, and the time of the BPF programs that run
# between the two tools' clock reads (docs/testing.md). Sourced after lib.sh.

# peer_slots FILE: "SLOT COUNT" lines from bpftrace's hist ([0] and [1] are slot 0).
peer_slots() {
	awk '/^\[/ { lo = $1; sub(/^\[/, "", lo); sub(/[],]$/, "", lo)
		m = 1; if (lo ~ /K$/) m = 2^10; else if (lo ~ /M$/) m = 2^20; else if (lo ~ /G$/) m = 2^30
		sub(/[KMG]$/, "", lo); v = lo * m; s = 0
		while (v >= 2) { v /= 2; s++ }
		n[s] += $1 ~ /\]$/ ? $2 : $3 }
		END { for (s in n) print s, n[s] }' "$1"
}
# stats_start FILE: BPF run-time statistics on while a process holds the
# fd BPF_ENABLE_STATS returns (counted per holder, so another test's holder
# cannot switch them off under this one); it writes "on" (or the error) to
# FILE and waits for stats_stop, two minutes at most. Sets STATS_PID, which
# lib.sh's cleanup kills too.
stats_start() {
	# Emptied here, not by the job's own redirection, which may come after
	# the wait below has read the last round's "on".
	: >"$1"
	python3 -c '
import ctypes, platform, signal
libc = ctypes.CDLL(None, use_errno=True)
nr_bpf = {"x86_64": 321, "aarch64": 280}[platform.machine()]
attr = ctypes.create_string_buffer(8)  # enable_stats.type = BPF_STATS_RUN_TIME (0)
fd = libc.syscall(nr_bpf, 32, attr, 8) # BPF_ENABLE_STATS
print("on" if fd >= 0 else "error %d" % ctypes.get_errno(), flush=True)
signal.alarm(120)
signal.pause()' >"$1" &
	STATS_PID=$!
	BG_PIDS="${BG_PIDS:-} $STATS_PID"
	wait_for "$(slack 5)" grep -q . "$1"
	grep -qx on "$1" || bail "BPF_ENABLE_STATS failed: $(cat "$1")"
}
stats_stop() {
	kill "$STATS_PID" 2>/dev/null
	wait "$STATS_PID" 2>/dev/null
	BG_PIDS=${BG_PIDS/ $STATS_PID/}
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
# judge_waits SENSOR_SLOTS PEER_WAITS DELTA: judge's figures ("sensor's
# waits, peer's, their slot-0 counts, gap, its slot, raw
# gap") where the peer kept each wait ("@w[NS, PID]: WAIT" lines,
# runqlat.bt with pids): at each boundary b the sensor's cumulative share must lie between
# the peer's exact shares below b - DELTA and below b + DELTA, so waits
# piled next to a boundary (a periodic task's slice) are judged as they lie,
# not spread evenly over their slot.
judge_waits() {
	awk -v delta="$3" 'FNR == 1 { f++ }
		f == 1 { c[$1] += $2; ts += $2; if ($1 > max) max = $1; next }
		/^@w\[/ { w[++tp] = $NF; if ($NF < 2) p0++; else { v = $NF; s = 0; while (v >= 2) { v /= 2; s++ }
			if (s > max) max = s } }
		function below(x,  i, n) { n = 0; for (i = 1; i <= tp; i++) if (w[i] < x) n++; return n / tp }
		function off(v, lo, hi) { return v < lo ? lo - v : (v > hi ? v - hi : 0) }
		END { if (!ts || !tp) { print ts + 0, tp + 0, 0, 0, 1, -1, 1; exit }
			for (s = 1; s <= max + 1; s++) { b = 2^s; run += c[s - 1]; fs = run / ts
				d = off(fs, below(b - delta), below(b + delta)); if (d > gap) { gap = d; at = s }
				d = off(fs, below(b), below(b)); if (d > raw) raw = d }
			printf "%d %d %d %d %.4f %d %.4f\n", ts, tp, c[0], p0, gap, at, raw }' "$1" "$2"
}

# judge SENSOR PEER DELTA: from two "SLOT COUNT" files, "ST PT S0 P0 GAP AT
# RAWGAP" and for p50, p90 and p99 the sensor's slot and how far the
# peer's cumulative share over that slot lies from the percentile (0 when
# the slot holds it). GAP is the largest distance, at a log2 boundary b
# (AT), of the sensor's cumulative share F_s(b) from the peer's between
# F_p(b - DELTA) and F_p(b + DELTA): one wait may differ by DELTA ns between
# the tools, the programs' time that runs between their clock reads (F_p
# within a slot interpolated). Below 4 DELTA a slot is too narrow for that:
# the interpolation assumes waits spread evenly over the slot, while the
# shift piles them against its edge (CI: 0.0237 and 0.0736 at 2^12 ns with
# DELTA 2.1 us), so there F_p is taken at the slot boundaries around
# b - DELTA and b + DELTA, which hold whatever the spread. RAWGAP is the
# same with DELTA 0. Unlike a percentile's slot, neither jumps when a
# percentile crosses a boundary.
judge() {
	awk -v delta="$3" 'FNR == 1 { f++ } { c[f, $1] += $2; t[f] += $2; if ($1 > max) max = $1 }
		function F(g, x,  s, run, lo, w) {
			for (s = 0; s <= max; s++) { lo = s ? 2^s : 0; w = s ? 2^s : 2
				if (x < lo + w) { if (x > lo) run += c[g, s] * (x - lo) / w; return run / t[g] }
				run += c[g, s] }
			return 1 }
		function off(v, lo, hi) { return v < lo ? lo - v : (v > hi ? v - hi : 0) }
		function below(x,  b) { for (b = 1; b * 2 <= x; b *= 2); return x < 1 ? 0 : b }
		function above(x,  b) { for (b = 1; b < x; b *= 2); return b }
		END { if (!t[1] || !t[2]) { print t[1] + 0, t[2] + 0, 0, 0, 1, -1, 1; exit }
			for (s = 1; s <= max + 1; s++) { b = 2^s; fs = F(1, b)
				lo = b - delta; hi = b + delta
				if (b < 4 * delta) { lo = below(lo); hi = above(hi) }
				d = off(fs, F(2, lo), F(2, hi)); if (d > gap) { gap = d; at = s }
				d = off(fs, F(2, b), F(2, b)); if (d > raw) raw = d }
			printf "%d %d %d %d %.4f %d %.4f", t[1], t[2], c[1, 0], c[2, 0], gap, at, raw
			n = split("0.5 0.9 0.99", q, " ")
			for (i = 1; i <= n; i++) {
				run = 0; for (s = 0; s <= max; s++) { run += c[1, s]; if (run >= q[i] * t[1]) break }
				printf " %d %.4f", s, off(q[i], F(2, (s ? 2^s : 0) - delta), F(2, 2^(s + 1) + delta)) }
			print "" }' "$1" "$2"
}

