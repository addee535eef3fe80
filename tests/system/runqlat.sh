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
. "$(dirname "$0")/runqlat-lib.sh"

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
compare() { # compare LABEL: one measured window, five test points
	local label=$1 bp hcost hprogs oprogs st pt s0 p0 gap at raw s50 d50 s90 d90 s99 d99 mt
	wait_for 5 sh -c "snmpwalk -v2c -c public -On $TARGET $HIST.2 | grep -q sched.runqlat" ||
		bail "no sched.runqlat with the helper ($label)"
	rq=$(dist sched.runqlat)
	# Run-time statistics on for the window (the programs' own time).
	stats_start "$T/stats.out"
	bpftrace -B line "$top_srcdir/tests/system/runqlat.bt" "$MARK_ON" "$MARK_OFF" 0 0 >"$T/peer.out" 2>"$T/peer.err" &
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
	stats_stop
	read -r hcost hprogs oprogs < <(progs_cost "$T/hp0" "$T/hp1")
	[ "$hprogs" = 2 ] || bail "the helper's wakeup and switch programs did not both run ($label): $(tr '\n' ' ' <"$T/hp1")"
	# bpftrace ends at the end mark, printing its maps; a watchdog for a hang.
	(sleep 60; kill -9 "$bp") >/dev/null 2>&1 & local dog=$!
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
