#!/bin/bash
# distset.sh - clusterMonDistTable against bpftrace on the same kernel and
# the same seconds: a latency pair per thread (1,000 nanosleeps of 2 ms), the
# values of a field (read() returns of 4 KiB blocks) and a keyed pair
# (block_rq_issue -> block_rq_complete on dev+sector, O_DIRECT reads of a
# loop device) count what bpftrace counts and agree with its hist() by the
# largest cumulative gap at the log2 boundaries; a threshold on a row's
# recent p99 sends one rising and one falling trap; wrong specs are refused
# with their reason and a storm of SETs leaves the helper running.
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || skip_all "needs root to load BPF programs"
need_helper
command -v bpftrace >/dev/null || missing_all "bpftrace is missing (apt-get install bpftrace)"
plan 44
SYSCALLS="$top_builddir/tests/system/syscalls"
D=$clusterMonDistEntry HIST=$clusterMonHistSourceEntry BUCKET=$clusterMonHistBucketCount
TH=$clusterMonThresholdEntry RISE=$clusterMonThresholdRising FALL=$clusterMonThresholdFalling
# The largest gap allowed between the two cumulative distributions of the
# nanosleep case, in hundredths of a percent. Measured on this 2-vCPU machine
# shared with five other builds and test runs: 16 runs (14 in a loop, 2 of
# this whole test) gave 0.0% to 1.6%, median 0.45%. Both tools time the same
# events, so a sleep lands in another bucket only when it ends within the
# few hundred ns that separate the two programs of a bucket edge, and 2 ms
# sleeps straddle 2^21 ns. 3% is about twice the worst seen.
GAP_MAX=300

start_trapd || bail "snmptrapd did not start"
start_master || bail "snmpd did not start"
start_helper || bail "clustermon-kprobe did not start: $(cat "$T/kprobe.log")"
printf 'helperSocket %s\nsampleInterval probes 50\n' "$HELPER_SOCK" >"$T/d.conf"
start_agent -c "$T/d.conf" || bail "clustermond did not register"

# spawn ARGS...: tests/system/syscalls waiting to be let go; its pid in $CALLS.
spawn() {
	rm -f "$T/go"; mkfifo "$T/go"
	"$SYSCALLS" "$@" <"$T/go" &
	CALLS=$!
}
let_go() { echo g >"$T/go"; wait "$CALLS"; }
# up ROW: waits for the helper to have attached the row (OperStatus up).
up() { wait_for 5 sh -c "[ \"\$(snmpget -v2c -c public -On -Oqv $TARGET $D.12.$1)\" = 1 ]"; }
# peer SCRIPT N ARGS...: bpftrace in the background until peer_stop; $PEER.
# It prints "Attaching" before it attaches, so wait until the kernel lists
# its N tracepoint programs.
peer() {
	local script=$1 n=$2; shift 2
	bpftrace -e "$script" "$@" >"$T/peer.out" 2>"$T/peer.err" &
	PEER=$!
	wait_for 20 peer_attached "$n" || bail "bpftrace did not attach: $(cat "$T/peer.err")"
}
peer_attached() { [ "$(bpftool perf show 2>/dev/null | grep -c "^pid $PEER .*tracepoint")" -ge "$1" ]; }
# bpftrace 0.17 may miss a SIGINT that lands just before it blocks in
# epoll_wait: send it again until the maps come out (once printing, it ends).
peer_stop() {
	local i=0
	kill -INT "$PEER"
	while kill -0 "$PEER" 2>/dev/null && [ $i -lt 100 ]; do
		sleep 0.1; i=$((i + 1))
		[ $((i % 10)) -eq 0 ] && ! grep -q '^@' "$T/peer.out" && kill -INT "$PEER" 2>/dev/null
	done
	wait "$PEER"
}
# ours ROW: "SLOT COUNT" lines of dist.ROW (bucket i is slot i-1).
ours() {
	walk "$BUCKET.$(get "$D.8.$1")" | awk '{ n = split($1, o, "."); if ($2 > 0) print o[n] - 1, $2 }'
}
# peer_slots: the same from bpftrace's hist() in peer.out ([0] and [1] are slot 0).
peer_slots() {
	awk '/^\[/ { lo = $1; sub(/^\[/, "", lo); sub(/[],]$/, "", lo); m = 1
		if (lo ~ /K$/) m = 2^10; else if (lo ~ /M$/) m = 2^20; else if (lo ~ /G$/) m = 2^30
		sub(/[KMG]$/, "", lo); v = lo * m; s = 0
		while (v >= 2) { v /= 2; s++ }
		c[s] += $1 ~ /\]$/ ? $2 : $3 }
		END { for (s in c) print s, c[s] }' "$T/peer.out"
}
# dist_ids: the rows the helper holds, ascending.
dist_ids() { helper_say 'dists\n' | awk '$1 == "dist" { print $2 }' | sort -n | tr '\n' ' '; }
rows_are() { [ "$(dist_ids)" = "$1" ]; }
total() { awk '{ t += $2 } END { print t + 0 }' "$1"; }
# gap A B: the largest difference of the two cumulative distributions at a
# log2 boundary, in hundredths of a percent.
gap() {
	awk 'FNR == 1 { f++ } { c[f, $1] += $2; t[f] += $2 }
		END { if (!t[1] || !t[2]) { print 10000; exit }
			for (s = 0; s < 64; s++) { a += c[1, s]; b += c[2, s]
			d = a / t[1] - b / t[2]; if (d < 0) d = -d; if (d > g) g = d }
		printf "%d\n", g * 10000 + 0.5 }' "$1" "$2"
}

# --- a latency pair per thread: 1,000 nanosleeps of 2 ms
spawn nanosleep 1000 2000
out=$(set_rw "$D.15.1" i 4 "$D.2.1" s "latency tracepoint:syscalls:sys_enter_nanosleep tracepoint:syscalls:sys_exit_nanosleep" "$D.3.1" i "$CALLS")
check "createAndGo of a latency row filtered to the test process" contains "INTEGER: 4" "$out"
up 1; ok $? "the row is attached (OperStatus up)"
src=$(get "$D.8.1")
is "$(get "$HIST.2.$src")" '"dist.1"' "row 1 is the distribution source dist.1"
is "$(get "$HIST.3.$src")" '"ns"' "in ns"
peer 'tracepoint:syscalls:sys_enter_nanosleep /pid == $1/ { @start[tid] = nsecs; }
tracepoint:syscalls:sys_exit_nanosleep /@start[tid]/ { @h = hist(nsecs - @start[tid]); delete(@start[tid]); }
END { clear(@start); }' 2 "$CALLS"
let_go
wait_for 5 sh -c "[ \"\$(snmpget -v2c -c public -On -Oqv $TARGET $HIST.4.$src)\" -ge 1000 ]"
peer_stop
is "$(get "$HIST.4.$src")" 1000 "dist.1 counts the 1,000 sleeps"
ours 1 >"$T/o1"; peer_slots >"$T/p1"
is "$(total "$T/p1")" 1000 "bpftrace counts 1,000 too"
g=$(gap "$T/o1" "$T/p1")
diag "ours:  $(sort -n "$T/o1" | tr '\n' ' ')"
diag "peer:  $(sort -n "$T/p1" | tr '\n' ' ')"
check "largest cumulative gap to bpftrace's hist() $g/10000 <= $GAP_MAX" test "$g" -le "$GAP_MAX"
sum=$(get "$HIST.5.$src")
check "the sum is 1,000 sleeps of 2-3 ms ($sum ns)" test "$sum" -ge 2000000000 -a "$sum" -le 3000000000

# --- the values of a field: 1,000 read()s of 4 KiB blocks
spawn read 1000 4096
set_rw "$D.15.2" i 4 "$D.2.2" s "value tracepoint:syscalls:sys_exit_read ret" "$D.3.2" i "$CALLS" >/dev/null
up 2; ok $? "a value row on sys_exit_read ret is attached"
src=$(get "$D.8.2")
is "$(get "$HIST.3.$src")" '"ret"' "its unit is the field's name"
peer 'tracepoint:syscalls:sys_exit_read /pid == $1/ { @h = hist(args->ret); }' 1 "$CALLS"
let_go
# The test process's read of its go byte returns 1: 1,001 values each.
wait_for 5 sh -c "[ \"\$(snmpget -v2c -c public -On -Oqv $TARGET $HIST.4.$src)\" -ge 1001 ]"
peer_stop
ours 2 >"$T/o2"; peer_slots >"$T/p2"
diag "ours: $(sort -n "$T/o2" | tr '\n' ' ')  peer: $(sort -n "$T/p2" | tr '\n' ' ')"
# A sanitizer's runtime reads a few files of 4-8 KiB in the test process
# before main (/proc/self/maps): at least the 1,000 blocks, and a handful more
# there, counted alike by both tools.
o12=$(awk '$1 == 12 { print $2 }' "$T/o2") p12=$(awk '$1 == 12 { print $2 }' "$T/p2")
ok $(( ${o12:-0} < 1000 || ${o12:-0} > 1010 )) "the 1,000 blocks are in [4096, 8192) ($o12)"
is "$p12" "$o12" "where bpftrace puts them"
is "$(total "$T/o2")" "$(total "$T/p2")" "the same count as bpftrace ($(total "$T/p2"))"

# --- a threshold on a row's recent p99: 2 ms sleeps, 20 ms sleeps, 2 ms again
spawn nanosleep 1500 2000 300 20000 3500 2000
set_rw "$D.15.3" i 4 "$D.2.3" s "latency tracepoint:syscalls:sys_enter_nanosleep tracepoint:syscalls:sys_exit_nanosleep" "$D.3.3" i "$CALLS" >/dev/null
up 3; ok $? "a second nanosleep row is attached"
# 20 ms sleeps fall in [2^24, 2^25) ns: a window where more than 1% of the
# values are theirs has a p99 of at least 2^24 ns (16.78 ms). The 2 ms
# sleeps reach that only when over 1% of them overshoot by 15 ms: at a load
# average of 50 on this 2-vCPU machine, p99s of 10-15 ms were seen, never
# 16.8 ms. So the threshold rises above 16.8 ms and falls below 10 ms.
out=$(set_rw "$TH.11.7" i 4 "$TH.2.7" o "$D.11.3" "$TH.4.7" u 200 "$TH.5.7" s 16800000 \
	"$TH.6.7" s 10000000 "$TH.7.7" i 1)
check "a threshold on its clusterMonDistRecentP99 (16.8 ms up, 10 ms down)" contains "INTEGER: 4" "$out"
let_go
# RMON semantics: a p99 that wandered above 10 ms and back during the 2 ms
# sleeps (a loaded machine) may send a falling trap before the rising one,
# so the falling traps are counted from the rising one on.
rise_line() { grep -n "$TH.2.7 =" "$T/traps.log" | grep -m1 "${RISE//./\\.}[[:space:]]" | cut -d: -f1; }
falls_after_rise() {
	local r; r=$(rise_line)
	grep -n "$TH.2.7 =" "$T/traps.log" | grep "${FALL//./\\.}[[:space:]]" |
		awk -F: -v r="${r:-999999}" '$1 > r { n++ } END { print n + 0 }'
}
# The window forgets the 20 ms sleeps DIST_RECENT_MS (5 s) after the last.
fell() { [ "$(falls_after_rise)" -ge 1 ]; }
wait_for 15 fell
sleep 1
is "$(traps "$RISE" "$TH.2.7 =")" 1 "one rising trap for the 20 ms sleeps"
is "$(falls_after_rise)" 1 "then one falling trap once they left the window"
set_rw "$TH.11.7" i 6 >/dev/null

# --- a keyed pair: block requests of O_DIRECT reads of a loop device, by dev+sector
LOOP=
if dd if=/dev/zero of="$T/disk.img" bs=1M count=16 status=none &&
	LOOP=$(losetup -f --show "$T/disk.img" 2>"$T/losetup.err"); then
	rm -f "$T/go"; mkfifo "$T/go"
	sh -c 'read x; exec dd if="$0" of=/dev/null bs=4096 count=2000 iflag=direct status=none' \
		"$LOOP" <"$T/go" &
	CALLS=$!
	set_rw "$D.15.4" i 4 "$D.2.4" s "latency tracepoint:block:block_rq_issue tracepoint:block:block_rq_complete key dev+sector" \
		"$D.3.4" i "$CALLS" >/dev/null
	up 4; ok $? "a keyed pair on block_rq_issue -> block_rq_complete is attached"
	src=$(get "$D.8.4")
	peer 'tracepoint:block:block_rq_issue /pid == $1/ { @s[args->dev, args->sector] = nsecs; }
tracepoint:block:block_rq_complete /@s[args->dev, args->sector]/ {
	@h = hist(nsecs - @s[args->dev, args->sector]); delete(@s[args->dev, args->sector]); }
END { clear(@s); }' 2 "$CALLS"
	let_go
	sleep 0.2
	peer_stop
	n=$(total <(peer_slots))
	wait_for 5 sh -c "[ \"\$(snmpget -v2c -c public -On -Oqv $TARGET $HIST.4.$src)\" -ge $n ]"
	is "$(get "$HIST.4.$src")" "$n" "as many requests as bpftrace counts ($n)"
	check "the 8 MB read came in requests ($n)" test "$n" -ge 1
	is "$(get "$D.10.4")" 0 "no start missed (clusterMonDistMisses)"
	losetup -d "$LOOP"
else
	missing "no loop device here: $(cat "$T/losetup.err" 2>/dev/null)"
	missing "no loop device"
	missing "no loop device"
	missing "no loop device"
fi

# --- the cgroup filter: reads of a process in a new cgroup v2, not another's
CG=
for d in /sys/fs/cgroup /sys/fs/cgroup/unified; do
	[ "$(stat -fc %T "$d" 2>/dev/null)" = cgroup2fs ] && { CG=$d; break; }
done
if [ -n "$CG" ] && mkdir "$CG/cmtest-${T##*.}"; then
	spawn read 300 4096
	echo "$CALLS" >"$CG/cmtest-${T##*.}/cgroup.procs"
	set_rw "$D.15.10" i 4 "$D.2.10" s "value tracepoint:syscalls:sys_exit_read ret" \
		"$D.6.10" s "/cmtest-${T##*.}" >/dev/null
	up 10; ok $? "a row filtered to a cgroup is attached"
	"$SYSCALLS" read 200 4096 <<<g
	let_go
	src=$(get "$D.8.10")
	wait_for 5 sh -c "[ \"\$(snmpget -v2c -c public -On -Oqv $TARGET $BUCKET.$src.13)\" -ge 300 ]"
	# 300 and, in a sanitizer build, its runtime's few reads; the 200 outside would make 500.
	cgn=$(get "$BUCKET.$src.13")
	ok $(( cgn < 300 || cgn > 310 )) "it counts the 300 reads of 4 KiB in the cgroup, not the 200 outside ($cgn)"
	set_rw "$D.15.10" i 6 >/dev/null
	rmdir "$CG/cmtest-${T##*.}"
else
	missing "no cgroup v2 hierarchy to make a cgroup in"
	missing "no cgroup v2 hierarchy"
fi

# --- wrong specs: refused with the parser's reason, or failed with the kernel's
refused "a spec that does not parse" wrongValue "$D.15.5" i 4 "$D.2.5" s "latency tracepoint:syscalls:sys_enter_read"
check "and no row 5 was made" contains "No Such Instance" "$(get_raw "$D.15.5")"
set_rw "$D.15.6" i 5 "$D.2.6" s "value tracepoint:syscalls:sys_exit_read ret" >/dev/null
refused "a wrong spec on an existing row" wrongValue "$D.2.6" s "value tracepoint:syscalls:sys_exit_read"
is "$(get "$D.2.6")" '"value tracepoint:syscalls:sys_exit_read ret"' "which keeps its spec"
is "$(get "$D.13.6")" '"value EVENT FIELD"' "and says why in clusterMonDistLastError"
set_rw "$D.15.7" i 4 "$D.2.7" s "value tracepoint:syscalls:sys_exit_read nosuchfield" >/dev/null
wait_for 5 sh -c "[ \"\$(snmpget -v2c -c public -On -Oqv $TARGET $D.12.7)\" = 3 ]"
is "$(get "$D.12.7")" 3 "a field the event lacks: OperStatus failed(3)"
check "with the reason in LastError ($(get "$D.13.7"))" contains "no field nosuchfield" "$(get "$D.13.7")"
check "and nothing of it left in the helper" lacks "^dist 7 " "$(helper_say 'dists\n')"

# --- limits: at most clusterMonDistMaxRows rows; a storm of SETs
is "$(get "$clusterMonDistMaxRows.0")" 64 "clusterMonDistMaxRows is 64"
is "$(get "$clusterMonDistMaxInflightLimit.0")" 65536 "clusterMonDistMaxInflightLimit is 65536"
refused "a MaxInflight beyond it" wrongValue "$D.7.6" u 65537
n=$(walk "$D.15" | grep -c .)
for i in $(seq 100 $((100 + 64 - n - 1))); do
	set_rw "$D.15.$i" i 5 "$D.2.$i" s "value tracepoint:syscalls:sys_exit_read ret" >/dev/null
done
is "$(walk "$D.15" | grep -c .)" 64 "64 rows"
refused "a 65th" resourceUnavailable "$D.15.200" i 5 "$D.2.200" s "value tracepoint:syscalls:sys_exit_read ret"
for i in $(seq 100 163); do set_rw "$D.15.$i" i 6 >/dev/null; done
for i in $(seq 1 30); do
	set_rw "$D.15.8" i 4 "$D.2.8" s "latency tracepoint:syscalls:sys_enter_read tracepoint:syscalls:sys_exit_read" >/dev/null
	set_rw "$D.15.9" i 4 "$D.2.9" s "value tracepoint:syscalls:sys_exit_write ret" "$D.7.9" u $((i * 100)) >/dev/null
	set_rw "$D.15.8" i 6 "$D.15.9" i 6 >/dev/null
done
set_rw "$D.15.8" i 4 "$D.2.8" s "latency tracepoint:syscalls:sys_enter_read tracepoint:syscalls:sys_exit_read" >/dev/null
up 8; ok $? "after 90 SETs creating and destroying rows, the last one comes up"
is "$(helper_say 'hello\n' | cut -d' ' -f1-2)" "ok clustermon-kprobe" "the helper still answers"
want="1 2 3 ${LOOP:+4 }8 "
wait_for 5 rows_are "$want"
is "$(dist_ids)" "$want" "and holds exactly the active rows"

# --- clustermonctl dist: a ready spec added, drawn and removed
CTL="$top_builddir/contrib/clustermonctl"
ctl() { out=$("$CTL" -v 2c -c private -t 2 -r 0 "$TARGET" "$@" 2>&1); rc=$?; echo "$out" >>"$T/clients.log"; }
spawn read 200 16384
ctl dist add readsize "pid=$CALLS"
check "clustermonctl dist add readsize (a ready spec) attaches a row: $out" test "$rc" -eq 0
idx=$(sed -n 's/^dist \([0-9]*\): .*/\1/p' <<<"$out")
let_go
wait_for 5 sh -c "[ \"\$(snmpget -v2c -c public -On -Oqv $TARGET $D.9.$idx)\" -ge 200 ]"
ctl dist show "$idx"
check "dist show draws the 16 KiB reads as hist draws runqlat" contains "16384 -> 32767 *: 200 " "$out"
ctl dist del "$idx"
check "dist del removes the row" contains "No Such Instance" "$(get_raw "$D.15.$idx")"

# --- nonVolatile rows come back with clustermond
stop_agent
start_agent -c "$T/d.conf" || bail "clustermond did not come back"
is "$(get "$D.2.1")" '"latency tracepoint:syscalls:sys_enter_nanosleep tracepoint:syscalls:sys_exit_nanosleep"' "row 1 is back after a restart"
up 1; ok $? "and attached again"
finish
