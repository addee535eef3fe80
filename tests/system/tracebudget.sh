#!/bin/bash
# tracebudget.sh - the helper's budgets for trace sessions (issue 40, part
# 2), whatever its peers ask for: a node-wide ring-buffer budget (-B) refuses
# a session with the reason, here and in the row's LastError, and holds while
# sessions run; a disk quota (-Q) ends a running session and refuses the
# next; a free-space reserve (-R) on a small tmpfs refuses, then ends a
# session before the filesystem fills; retention (-K, -A) keeps only the
# newest finished traces and removes old ones, never a running session's,
# never a symbolic link or what it points to, a directory another user owns
# or one holding files a session does not write; the ring budget holds with
# 63 sessions running.
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || skip_all "needs root to load BPF programs"
need_helper
plan 33
NCPU=$(awk -F- '{ print $NF + 1 }' /sys/devices/system/cpu/possible)
SYSCALLS="$top_builddir/tests/system/syscalls"
GETPPID=tracepoint:syscalls:sys_enter_getppid
TR=$CM.12.1.1
trap 'umount "$T/small" 2>/dev/null; cleanup' EXIT

# state ID: the state word of trace ID in the helper's traces reply.
state() { helper_say 'traces\n' | awk -v id="$1" '$1 == "trace" && $2 == id { print $3 }'; }
reason() { helper_say 'traces\n' | awk -v id="$1" '$1 == "trace" && $2 == id { $1 = $2 = $3 = $4 = $5 = $6 = $7 = $8 = ""; sub(/^ +/, ""); print }'; }
ended() { [ "$(state "$1")" = "${2:-finished}" ]; }
# busy_trace ID BASE-OPTIONS...: a getppid trace of 300000 calls, started
# and fed; prints the helper's reply.
busy_trace() {
	local id=$1 out
	rm -f "$T/go"; mkfifo "$T/go"
	"$SYSCALLS" getppid 300000 <"$T/go" & CALLS=$!
	out=$(helper_say "trace $id $GETPPID pid=$CALLS duration=60000\n")
	echo g >"$T/go"; wait "$CALLS"
	echo "$out"
}
files_bytes() { find "$1" -type f -printf '%s\n' | awk '{ n += $1 } END { print n + 0 }'; }

# --- 1. the ring budget: room for two sessions of 64 KiB a CPU
RING=$((NCPU * 131072))
start_helper -B "$RING" || bail "clustermon-kprobe did not start: $(cat "$T/kprobe.log")"
is "$(helper_say 'trace 1 sched_switch buffer=262144\n')" \
	"err busy ring budget: $NCPU CPUs x 262144 bytes of buffer, with the running traces' 0, would pass the node's $RING bytes (-B)" \
	"a session asking more ring bytes than the budget is refused with the reason"
contains "^ok started" "$(helper_say 'trace 2 sched_switch buffer=65536 duration=60000\n')"; ok $? "a session of half the budget starts"
contains "^ok started" "$(helper_say 'trace 3 sched_switch buffer=65536 duration=60000\n')"; ok $? "and a second one"
out=$(helper_say 'trace 4 sched_switch buffer=65536 duration=60000\n')
is "$out" "err busy ring budget: $NCPU CPUs x 65536 bytes of buffer, with the running traces' $RING, would pass the node's $RING bytes (-B)" \
	"while both run, a third is refused: the budget holds"
is "$(helper_say 'traces\n' | grep -c ' running ')" 2 "two sessions run"
helper_say 'stop 2\n' >/dev/null
contains "^ok started" "$(helper_say 'trace 4 sched_switch buffer=65536 duration=60000\n')"; ok $? "once one stopped, the third starts"
# Through SNMP: the refusal is the row's LastError.
start_master || bail "snmpd did not start"
printf 'helperSocket %s\nsampleInterval probes 100\n' "$HELPER_SOCK" >"$T/t.conf"
start_agent -c "$T/t.conf" || bail "clustermond did not register"
set_rw "$TR.2.9" s sched_switch "$TR.8.9" u 65536 "$TR.10.9" i 4 >"$T/set.log"
wait_for 6 sh -c "[ \"\$(snmpget -v2c -c public -On -Oqv $TARGET $TR.15.9)\" = 5 ]"
is "$(get "$TR.15.9")" 5 "a row over the budget goes failed(5)"
is "$(get "$TR.16.9")" "\"ring budget: $NCPU CPUs x 65536 bytes of buffer, with the running traces' $RING, would pass the node's $RING bytes (-B)\"" \
	"its LastError is the helper's reason"
stop_agent
helper_say 'stop 3\nstop 4\n' >/dev/null
is "$(helper_say 'traces\n' | grep -c ' running ')" 0 "stopped, nothing runs"
stop_helper

# --- 2. the disk quota: 256 KiB for all traces under the base
Q=262144
start_helper -t "$T/q" -Q "$Q" || bail "clustermon-kprobe -Q did not start"
out=$(busy_trace 1)
contains "^ok started $T/q/trace-1-" "$out"; ok $? "a getppid trace under a 256 KiB quota starts"
wait_for 5 ended 1
is "$(state 1)" finished "300000 events later it has ended, finished"
is "$(reason 1)" "quota: the disk quota of all traces (-Q) reached" "with the reason"
sz=$(files_bytes "$T/q")
[ "$sz" -le "$Q" ] && [ "$sz" -gt $((Q / 2)) ]; ok $? "the traces under the base hold $sz bytes, at most the quota"
out=$(helper_say 'trace 2 sched_switch\n')
contains "^err busy disk quota: the traces under the base hold $sz of their $Q bytes (-Q)" "$out"
ok $? "the next session is refused: $out"
contains "ok clustermon-kprobe" "$(helper_say 'hello\n')"; ok $? "and the helper answers"
stop_helper

# --- 3. the reserve: half of a 1 MiB tmpfs kept free
mkdir -p "$T/small"
mount -t tmpfs -o size=1m,mode=0755 cmbudget "$T/small" || bail "cannot mount a small tmpfs"
head -c 700000 /dev/zero >"$T/small/fill"
start_helper -t "$T/small/traces" -R 50 -Q 0 || bail "clustermon-kprobe -R did not start"
out=$(helper_say 'trace 1 sched_switch\n')
is "$out" "err busy disk reserve: the trace base's filesystem is down to its 50% kept free (-R)" \
	"with less than half the filesystem free, a session is refused"
rm -f "$T/small/fill"
out=$(busy_trace 2)
contains "^ok started $T/small/traces/trace-2-" "$out"; ok $? "once there is room, one starts"
wait_for 5 ended 2
is "$(state 2) $(reason 2)" "finished reserve: the trace base's filesystem down to its reserve (-R)" \
	"and ends at the reserve, finished, with the reason"
avail=$(stat -f -c '%a * %S' "$T/small") total=$(stat -f -c '%b * %S' "$T/small")
# What it stops at is measured every 50 ms; the packets it holds in memory
# (64 KiB a CPU) are written after.
[ $((avail)) -ge $((total / 2 - NCPU * 65536)) ]; ok $? "the filesystem keeps $((avail)) of $((total)) bytes free"
stop_helper
umount "$T/small"

# --- 4. retention: 3 finished traces kept, none older than a day
R="$T/r" OLD='2000-01-01 00:00:00'
mkdir -m 750 "$R" "$T/victim"
echo precious >"$T/victim/metadata"; echo precious >"$T/victim/cpu0"
touch -d "$OLD" "$T/victim"/*
ln -s "$T/victim" "$R/trace-900-20000101T000000Z-00000000000000aa"
mkdir "$R/trace-901-20000101T000000Z-00000000000000bb"
echo theirs >"$R/trace-901-20000101T000000Z-00000000000000bb/metadata"
chown -R nobody "$R/trace-901-20000101T000000Z-00000000000000bb"
mkdir "$R/trace-902-20000101T000000Z-00000000000000cc" "$R/trace-903-old"
echo notes >"$R/trace-902-20000101T000000Z-00000000000000cc/notes"
echo meta >"$R/trace-902-20000101T000000Z-00000000000000cc/metadata"
echo meta >"$R/trace-903-old/metadata"
mkdir "$R/trace-904-20000101T000000Z-00000000000000dd"
echo meta >"$R/trace-904-20000101T000000Z-00000000000000dd/metadata"
touch -h -d "$OLD" "$R"/trace-9*/* "$R"/trace-9*
start_helper -t "$R" -K 3 -A 86400 || bail "clustermon-kprobe -K did not start"
[ ! -e "$R/trace-904-20000101T000000Z-00000000000000dd" ]
ok $? "at start, a finished trace of the year 2000 is removed (-A)"
long=$(helper_say 'trace 10 sched_switch duration=60000\n'); long=${long#ok started }
dirs=()
for i in 1 2 3 4 5; do
	out=$(helper_say "trace $i sched_switch duration=200\n")
	dirs+=("${out#ok started }")
	wait_for 5 ended "$i"
done
is "$(state 5)" finished "five short sessions ran one after the other"
kept=$(ls "$R" | grep -E '^trace-[0-9]+-[0-9]{8}T[0-9]{6}Z-[0-9a-f]{16}$' | grep -v '^trace-90' | sort | tr '\n' ' ')
want=$(printf '%s\n' "${long##*/}" "${dirs[2]##*/}" "${dirs[3]##*/}" "${dirs[4]##*/}" | sort | tr '\n' ' ')
is "$kept" "$want" "only the newest 3 finished traces are kept, and the running one"
[ -d "$long" ] && [ "$(state 10)" = running ]; ok $? "the running session's directory, the oldest, stays"
[ -L "$R/trace-900-20000101T000000Z-00000000000000aa" ] &&
	[ "$(cat "$T/victim/metadata" "$T/victim/cpu0")" = "precious
precious" ]
ok $? "a symbolic link named like a trace stays, and what it points to is untouched"
[ "$(cat "$R/trace-901-20000101T000000Z-00000000000000bb/metadata" 2>&1)" = theirs ]
ok $? "a directory nobody owns, named like a trace, stays whole"
[ -f "$R/trace-902-20000101T000000Z-00000000000000cc/notes" ] &&
	[ -f "$R/trace-902-20000101T000000Z-00000000000000cc/metadata" ]
ok $? "a root one holding a file no session writes stays whole"
[ -f "$R/trace-903-old/metadata" ]; ok $? "and a name the helper does not make stays"
helper_say 'stop 10\n' >/dev/null
wait_for 3 ended 10
[ -d "$long" ] && [ ! -e "${dirs[2]}" ]; ok $? "stopped, the long session is the newest: the oldest kept one goes"
contains "removed 1 finished trace under $R" "$(cat "$T/kprobe.log")"; ok $? "the helper logs what retention removed"
stop_helper

# --- 5. as many sessions as the helper runs (64): a ring budget of 63
# sessions' buffers holds with 63 running (traces of calls init does not
# make, spread over eight tracepoints: the kernel takes at most 64 programs
# on one, and other tests may hold some).
start_helper -t "$T/many" -B $((63 * NCPU * 65536)) || bail "clustermon-kprobe for 64 sessions did not start"
calls=(getppid getpgid getuid geteuid getgid getegid getsid sched_yield)
started=0
for id in $(seq 101 163); do
	tp=tracepoint:syscalls:sys_enter_${calls[id % 8]}
	contains "^ok started" "$(helper_say "trace $id $tp pid=1 buffer=65536 duration=60000\n")" &&
		started=$((started + 1))
done
is "$started" 63 "63 sessions of 64 KiB a CPU start under a budget of 63"
out=$(helper_say "trace 164 $GETPPID pid=1 buffer=65536 duration=60000\n")
contains "^err busy ring budget: $NCPU CPUs x 65536 bytes of buffer, with the running traces' $((63 * NCPU * 65536))," "$out"
ok $? "with 63 running the 64th is refused by the budget: $out"
helper_say 'stop 101\n' >/dev/null
contains "^ok started" "$(helper_say "trace 164 $GETPPID pid=1 buffer=65536 duration=60000\n")"
ok $? "once one stopped, it starts"
is "$(helper_say 'traces\n' | grep -c ' running ')" 63 "and 63 run, never more than the budget"
finish
