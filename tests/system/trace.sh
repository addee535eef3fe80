#!/bin/bash
# trace.sh - kernel event traces through SNMP: sessions made with snmpset
# record into CTF directories that babeltrace2 reads back; the counts the
# MIB shows agree with what babeltrace2 prints, with an exact workload
# (getppid calls of one process), with a counting probe on the same
# tracepoint when a tiny buffer loses events, and with the ping-pong of two
# processes on one CPU; sessions end at their duration and their size, a
# full disk ends a session and not the helper, and the notifications come.
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || skip_all "needs root to load BPF programs"
[ "$(nproc)" -ge 2 ] || skip_all "needs 2 CPUs (the ping-pong gets one of its own)"
need_helper
command -v babeltrace2 >/dev/null || missing_all "babeltrace2 is not installed (tests/setup-deps.sh)"
plan 50
PATH=$PATH:/usr/sbin
SYSCALLS="$top_builddir/tests/system/syscalls"
PINGPONG="$top_builddir/tests/system/pingpong"
TR=$CM.12.1.1 P=$CM.8.1.1
ENDED=.1.3.6.1.4.1.8072.9999.77.0.5 TLOSS=.1.3.6.1.4.1.8072.9999.77.0.6

start_trapd || bail "snmptrapd did not start"
start_master || bail "snmpd did not start"
start_helper -t "$T/traces" || bail "clustermon-kprobe did not start: $(cat "$T/kprobe.log")"
cat >"$T/t.conf" <<EOC
helperSocket $HELPER_SOCK
sampleInterval probes 100
EOC
start_agent -c "$T/t.conf" || bail "clustermond did not register"

# oper ROW WANT: wait (up to 6 s) for clusterMonTraceOperStatus.ROW = WANT.
oper() {
	wait_for 6 sh -c "[ \"\$(snmpget -v2c -c public -On -Oqv $TARGET $TR.15.$1)\" = '$2' ]"
}
# events DIR: babeltrace2's text of a trace, timestamps in clock cycles (ns).
events() { babeltrace2 --clock-cycles --no-delta "$1" 2>"$T/bt.err"; }
nevents() { events "$1" | wc -l; }
traps_at_least() { [ "$(traps "$1")" -ge "$2" ]; }
# The small tmpfs of the disk-full test goes before lib.sh removes $T.
trap 'umount "$T/small" 2>/dev/null; cleanup' EXIT

# --- a 2 s sched_switch session on the ping-pong's CPU
set_rw "$TR.2.1" s sched_switch "$TR.4.1" i 1 "$TR.6.1" u 2000 "$TR.8.1" u 4194304 \
	"$TR.10.1" i 4 >"$T/set.log"
check "a sched_switch session on CPU 1 is created with snmpset" grep -q "$TR.10.1 = INTEGER: 4" "$T/set.log"
oper 1 3; is "$(get "$TR.15.1")" 3 "its OperStatus goes running(3)"
# At most 20000 round trips a second, 40000 switches: the helper drains
# them on the other CPU, shared with whatever else runs there.
taskset -c 1 chrt -f 10 "$PINGPONG" 1.5 20000 >"$T/pp.out" 2>"$T/pp.err"
read -r PA PB <"$T/pp.out"
oper 1 4; is "$(get "$TR.15.1")" 4 "it ends by itself: finished(4)"
contains duration "$(get "$TR.16.1")"; ok $? "LastError says the duration: $(get "$TR.16.1")"
D1=$(get "$TR.11.1" | tr -d '"')
[ -d "$D1" ] && [ -f "$D1/metadata" ] && [ -f "$D1/cpu1" ]; ok $? "Directory $D1 holds the metadata and CPU 1's stream"
n=$(nevents "$D1") rec=$(get "$TR.12.1")
is "$n" "$rec" "babeltrace2 prints every record: $n = clusterMonTraceRecords"
[ ! -s "$T/bt.err" ]; ok $? "babeltrace2 reads it without a warning"
is "$(get "$TR.13.1")" 0 "nothing lost"
events "$D1" | python3 -c '
import re, sys
pa, pb = int(sys.argv[1]), int(sys.argv[2])
line = re.compile(r"^\[(\d+)\] .*? sched_switch: \{ cpu_id = (\d+) \}, \{ cpu = (\d+), pid = (-?\d+), tid = (-?\d+) \}, \{ (.*) \}$")
field = re.compile(r"(\w+) = (\"(?:[^\"\\\\]|\\\\.)*\"|-?\d+)")
last_ts, cpus, pair, alt_breaks, prev_pair, intruded, first = {}, set(), 0, 0, None, False, None
for l in sys.stdin:
    m = line.match(l)
    if not m:
        print("unparsed:", l.strip()); sys.exit(1)
    ts, cpu, ecpu = int(m[1]), int(m[2]), int(m[3])
    f = dict(field.findall(m[6]))
    prev, nxt = int(f["prev_pid"]), int(f["next_pid"])
    if ts < last_ts.get(cpu, 0) or cpu != ecpu:
        print("not monotonic or wrong CPU at", ts); sys.exit(1)
    last_ts[cpu] = ts; cpus.add(cpu)
    first = ts if first is None else first
    if prev in (pa, pb) and nxt in (pa, pb):
        pair += 1
        if prev_pair is not None and not intruded and prev != prev_pair[1]:
            alt_breaks += 1
        prev_pair, intruded = (prev, nxt), False
    elif prev_pair is not None:
        intruded = True
print(len(cpus), pair, (ts - first) // 1000000, alt_breaks)' "$PA" "$PB" >"$T/pp.check" 2>&1
read -r ncpu npair span alt <"$T/pp.check"
is "$ncpu" 1 "only CPU 1's events (FilterCpu), timestamps monotonic"
[ "${npair:-0}" -ge 1000 ]; ok $? "$npair switches between the ping-pong's two pids ($(cat "$T/pp.err"))"
[ "${span:-0}" -ge 1400 ] && [ "$span" -le 2000 ]; ok $? "the events span ${span} ms: the ping-pong's 1.5 s, within DurationMs"
is "$alt" 0 "the ping-pong's pids alternate"

# --- exactly N records for N getppid calls of one process
rm -f "$T/go"; mkfifo "$T/go"
"$SYSCALLS" getppid 5000 <"$T/go" & CALLS=$!
set_rw "$TR.2.2" s tracepoint:syscalls:sys_enter_getppid "$TR.3.2" i "$CALLS" \
	"$TR.6.2" u 60000 "$TR.10.2" i 4 >"$T/set.log"
oper 2 3; is "$(get "$TR.15.2")" 3 "a getppid trace of pid $CALLS runs"
echo g >"$T/go"; wait "$CALLS"
set_rw "$TR.10.2" i 2 >"$T/set.log"
oper 2 4; is "$(get "$TR.15.2")" 4 "notInService stops it: finished(4)"
contains stopped "$(get "$TR.16.2")"; ok $? "LastError says it was stopped"
is "$(get "$TR.12.2")" 5000 "clusterMonTraceRecords is exactly the 5000 calls"
D2=$(get "$TR.11.2" | tr -d '"')
is "$(events "$D2" | grep -c "syscalls:sys_enter_getppid: .* pid = $CALLS, tid = $CALLS }")" 5000 \
	"babeltrace2 shows 5000 getppid events of that pid"
contains "__syscall_nr = " "$(events "$D2" | head -1)"; ok $? "with the tracepoint's own field"

# --- a tiny buffer under load: what is lost is counted exactly
rm -f "$T/go"; mkfifo "$T/go"
"$SYSCALLS" getppid 300000 <"$T/go" & CALLS=$!
set_rw "$P.2.7" s tracepoint:syscalls:sys_enter_getppid "$P.3.7" i "$CALLS" "$P.12.7" i 4 >"$T/set.log"
set_rw "$TR.2.3" s tracepoint:syscalls:sys_enter_getppid "$TR.3.3" i "$CALLS" \
	"$TR.8.3" u 4096 "$TR.6.3" u 60000 "$TR.10.3" i 4 >>"$T/set.log"
oper 3 3; is "$(get "$TR.15.3")" 3 "a trace with 4 KiB buffers runs beside a counting probe"
echo g >"$T/go"; wait "$CALLS"
wait_for 3 traps_at_least "$TLOSS" 1
[ "$(traps "$TLOSS")" -ge 1 ]; ok $? "clusterMonTraceLoss was sent while it ran"
set_rw "$TR.10.3" i 2 >/dev/null
oper 3 4
wait_for 3 sh -c "[ \"\$(snmpget -v2c -c public -On -Oqv $TARGET $P.6.7)\" = 300000 ]"
rec=$(get "$TR.12.3") lost=$(get "$TR.13.3") hits=$(get "$P.6.7")
[ "$lost" -gt 0 ]; ok $? "the full buffer lost $lost events"
is "$((rec + lost))" "$hits" "Records + Lost = the probe's Hits ($rec + $lost = $hits)"
D3=$(get "$TR.11.3" | tr -d '"')
is "$(nevents "$D3")" "$rec" "babeltrace2 prints the $rec records"
disc=$(grep -o "discarded [0-9]* events" "$T/bt.err" | awk '{ n += $2 } END { print n + 0 }')
is "$disc" "$lost" "and reports the $lost lost ones as discarded"

# --- MaxBytes: the session ends before the directory passes it
set_rw "$TR.2.4" s sched_switch "$TR.7.4" u 65536 "$TR.10.4" i 4 >"$T/set.log"
oper 4 4; is "$(get "$TR.15.4")" 4 "a 64 KiB session ends by itself"
contains size "$(get "$TR.16.4")"; ok $? "LastError says the size: $(get "$TR.16.4")"
D4=$(get "$TR.11.4" | tr -d '"')
sz=$(cat "$D4"/* | wc -c)
[ "$sz" -le 65536 ] && [ "$sz" -gt 32768 ]; ok $? "the directory holds $sz bytes, at most MaxBytes"
is "$(get "$TR.14.4")" "$sz" "clusterMonTraceBytes is the directory's size"
is "$(nevents "$D4")" "$(get "$TR.12.4")" "babeltrace2 reads all of its records"

# --- clustermonctl: add, list, show, stop; the idle view of CPU 1 kept busy
# for the first half of a 2 s window, against the kernel's own idle time
CTL="$top_builddir/contrib/clustermonctl"
IDLE="$top_srcdir/contrib/ctl/clustermon-idle"
ctl() { out=$("$CTL" -v 2c -c private -t 2 -r 0 "$TARGET" "$@" 2>&1); rc=$?; echo "$out" >>"$T/clients.log"; }
# Bash arithmetic: mawk's printf %d stops at 2^31 - 1 (21 s of idle here).
cpu1_idle_ns() {
	local cpu user nice sys idle iowait rest
	while read -r cpu user nice sys idle iowait rest; do
		[ "$cpu" = cpu1 ] && echo $(( (idle + iowait) * 1000000000 / $(getconf CLK_TCK) ))
	done </proc/stat
}
ctl trace add sched_switch cpu=1 duration=2000
is "$rc $out" "0 trace 5: sched_switch (queued; see trace show 5)" "clustermonctl trace add queues session 5"
oper 5 3
idle0=$(cpu1_idle_ns)
timeout 1 taskset -c 1 sh -c 'while :; do :; done'
oper 5 4
idle1=$(cpu1_idle_ns)
ctl traces
contains "^ *5  finished .* sched_switch  $T/traces/trace-5-" "$out"; ok $? "clustermonctl traces lists it finished"
ctl trace show 5
D5=$(get "$TR.11.5" | tr -d '"')
contains "idle view  clustermon-idle $D5" "$out"; ok $? "trace show points at its directory and the idle view"
"$IDLE" --ns --png "$T/idle.png" "$D5" >"$T/idle.txt" 2>&1
window=$(awk '$1 == "window" { print $2 }' "$T/idle.txt")
idle=$(awk '$1 == "1" && NF >= 5 { print $3 }' "$T/idle.txt")
kernel=$((idle1 - idle0))
diag "CPU 1 idle: $idle ns of a $window ns window by the trace; /proc/stat says $kernel ns"
[ -n "$idle" ] && [ "$idle" -le $((window * 55 / 100)) ]; ok $? "busy for half the window: at most about half of it idle ($((${idle:-0} * 100 / ${window:-1}))%)"
d=$(( ${idle:-0} - kernel )); d=${d#-}
[ "$d" -le $((window / 10)) ]; ok $? "the trace's idle time agrees with /proc/stat's within 10% of the window"
cols=$(grep "^cpu1 " "$T/idle.txt" | cut -d'|' -f2 | cut -c10-30)
[ -n "$cols" ] && lacks '\.' "$cols"; ok $? "the text timeline has no idle column while the loop ran ($cols)"
[ "$(head -c 4 "$T/idle.png" | od -An -c | tr -d ' ')" = "211PNG" ]; ok $? "and gnuplot drew the PNG"
ctl trace add tracepoint:syscalls:sys_enter_getppid duration=60000
oper 6 3
ctl trace stop 6
is "$rc" 0 "clustermonctl trace stop"
oper 6 4; contains stopped "$(get "$TR.16.6")"; ok $? "ends session 6: $(get "$TR.16.6")"
ctl trace add kprobe:vfs_read
is "$rc" 2 "a spec the table refuses exits 2: $out"

# --- the notifications and refusals
wait_for 3 traps_at_least "$ENDED" 6
is "$(traps "$ENDED")" 6 "clusterMonTraceEnded once per session (6)"
contains "wrongValue\|Wrong Type\|wrong" "$(set_rw "$TR.2.9" s kprobe:vfs_read "$TR.10.9" i 4)"
ok $? "a kprobe spec is refused (traces record tracepoints)"
contains "wrongValue\|wrong" "$(set_rw "$TR.8.9" u 5000 "$TR.10.9" i 5)"; ok $? "a buffer that is not a power of two is refused"
set_rw "$TR.2.8" s tracepoint:no_such:event "$TR.10.8" i 4 >/dev/null
oper 8 5; is "$(get "$TR.15.8")" 5 "a tracepoint this kernel lacks: failed(5)"
contains "no tracepoint" "$(get "$TR.16.8")"; ok $? "LastError says why: $(get "$TR.16.8")"

# --- a trace line in clustermond.conf: a readOnly row that starts with the agent
stop_agent
printf 'trace sched_switch cpu=0 duration=300 buffer=65536\n' >>"$T/t.conf"
start_agent -c "$T/t.conf" || bail "clustermond did not register again"
is "$(get "$TR.9.1")" 5 "a trace line in clustermond.conf is a readOnly row"
oper 1 4; is "$(get "$TR.15.1")" 4 "its session ran and finished"
[ "$(get "$TR.12.1")" -gt 0 ] && contains "trace-1-" "$(get "$TR.11.1")"; ok $? "into a directory of its own ($(get "$TR.12.1") records)"

# --- the disk full ends the session, never the helper
mkdir -p "$T/small"
# mode=0755: a tmpfs's root is 1777 by default, a base the helper refuses.
mount -t tmpfs -o size=64k,mode=0755 cmtrace "$T/small" || bail "cannot mount a small tmpfs"
HS2="$T/kprobe2.sock"
# -R 0: no free-space reserve (tracebudget.sh tests it), so the disk fills.
"$KPROBE_HELPER" -f -s "$HS2" -t "$T/small" -R 0 2>>"$T/kprobe2.log" & H2=$!
wait_for 5 test -S "$HS2"
say2() { HELPER_SOCK=$HS2 helper_say "$1"; }
contains "ok started" "$(say2 'trace 1 sched_switch duration=20000\n')"; ok $? "a session on a 64 KiB tmpfs starts"
failed2() { say2 'traces\n' | grep -q failed; }
wait_for 10 failed2
contains "disk full" "$(say2 'traces\n')"; ok $? "it fails with the reason: $(say2 'traces\n' | tail -1)"
contains "ok clustermon-kprobe" "$(say2 'hello\n')"; ok $? "and the helper still answers"
stop_pid "$H2"
umount "$T/small"
finish
