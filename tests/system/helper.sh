#!/bin/bash
# helper.sh - clustermon-kprobe's control socket as a client sees it: every
# request, refusals with their reasons, a truncated request never executed,
# an oversized one refused with the connection closed, the socket's mode,
# the trace directory it creates, one helper per socket, nothing left in the kernel after SIGTERM,
# and with -u only root and that user served (SO_PEERCRED).
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || skip_all "needs root to load BPF programs"
need_helper
plan 41
PATH=$PATH:/usr/sbin
start_helper || bail "clustermon-kprobe did not start: $(cat "$T/kprobe.log")"

GETPPID=tracepoint:syscalls:sys_enter_getppid
out=$(helper_say 'hello\n')
check "hello names the protocol and an instance" contains "^ok clustermon-kprobe 1 $HELPER_PID-" "$out"
is "$(stat -c %a "$HELPER_SOCK")" 600 "without -g the socket is the owner's alone (0600)"
is "$(helper_say "add 5 $GETPPID\n")" "ok attached" "add attaches a tracepoint probe"
is "$(helper_say "add 5 $GETPPID\n")" "ok unchanged" "the same add again keeps it (and its counts)"
is "$(helper_say "add 5 $GETPPID pid=1\n")" "ok attached" "an add with other filters replaces it"
is "$(helper_say 'list\n')" "ok 1
probe 5 $GETPPID pid=1" "list shows the probe with its filters"
out=$(helper_say "add 6 tracepoint:nope:nope\n")
is "$out" "err failed no tracepoint nope:nope in this kernel (see /sys/kernel/tracing/events)" \
	"a tracepoint the kernel lacks fails with its name"
out=$(helper_say "add 7 kprobe:tcp_sendmsg\n")
if [ -e /sys/bus/event_source/devices/kprobe ]; then
	is "$out" "ok attached" "a kprobe attaches on a kernel with kprobes"
else
	is "$out" "err unsupported kernel has no kprobes (CONFIG_KPROBES is off)" \
		"a kprobe on this kernel is unsupported, and says why"
fi
helper_say "del 7\n" >/dev/null
out=$(helper_say "add 8 tracepoint:a:b colour=red\n")
check "an unknown option is refused as invalid" contains "^err invalid unknown option 'colour=red'" "$out"
is "$(helper_say 'del 99\n')" "err invalid no probe 99" "deleting a probe that is not there"
is "$(helper_say 'frob\n')" "err invalid unknown request 'frob' (hello, add, del, list, read, trace, stop, traces, procs, maps, cgmaps, exits, dist, undist, dists)" \
	"an unknown request"
is "$(helper_say 'maps\n' | sed 's/ [0-9]* [0-9]* [0-9]*$/ N N N/')" "ok maps N N N" \
	"maps answers with the counts its fds go with (clustermond reads them itself)"
is "$(helper_say 'cgmaps\n')" "ok cgmaps 4096 $(cat /sys/devices/system/cpu/possible | awk -F- '{ print $NF + 1 }')" \
	"cgmaps answers with the per-cgroup map's entries and the possible CPUs (its fds go with it)"
out=$(helper_say "hello\nlist\nread\n")
is "$(grep -c '^ok' <<<"$out")" 3 "three requests on one connection get three answers"
check "read has the probe's counters" contains "^probe 5 0 0 0 " "$out"
check "and the scheduler sensors" contains "^busy [0-9]* [0-9]" "$out"

# A request cut short by the peer closing is never executed.
is "$(helper_say "add 9 $GETPPID")" "" "a truncated add gets no answer"
lacks "probe 9" "$(helper_say 'list\n')"; ok $? "and was not executed"
# An oversized request: refused, the connection closed, nothing executed.
long=$(printf 'add 10 %s %0600d\nlist\n' "$GETPPID" 0)
is "$(helper_say "$long")" "err invalid request longer than 512 bytes" \
	"a request over 512 bytes is refused and the connection closed"
lacks "probe 10" "$(helper_say 'list\n')"; ok $? "and was not executed"
out=$(helper_say 'read\001\n')
check "a control byte is refused" contains "err invalid request has a control" "$out"

# One helper per socket: a second one must not take it over.
"$KPROBE_HELPER" -f -s "$HELPER_SOCK" 2>"$T/second.log"
rc=$?
[ $rc -ne 0 ] && contains "another clustermon-kprobe answers" "$(cat "$T/second.log")"
ok $? "a second helper on the same socket refuses to start (exit $rc)"
check "and the first still answers" contains "^ok clustermon-kprobe" "$(helper_say 'hello\n')"

# SIGTERM: every probe detached, the socket gone.
progs=$(probe_progs 5)
[ -n "$progs" ]; ok $? "bpftool shows probe 5's program ($(echo $progs))"
stop_helper
is "$(progs_alive $progs)" 0 "SIGTERM detaches it: the kernel has none of its programs left"
[ ! -e "$HELPER_SOCK" ]; ok $? "and removes the socket"

# With -g the group may connect: mode 0660, group-owned. With -r the
# sensors run on raw tracepoints (the fallback) and still count.
# The trace directory, missing with its parent, is made at start: 0750 in
# the socket's group, so only that group reads traces.
TD="$T/state/clustermon/traces"
start_helper -g nogroup -r -t "$TD" || bail "clustermon-kprobe -g nogroup -r did not start"
is "$(stat -c '%a %G' "$HELPER_SOCK")" "660 nogroup" "with -g nogroup the socket is 0660 root:nogroup"
is "$(stat -c '%a %U %G' "$TD" 2>&1)" "750 root nogroup" "a missing trace directory is made 0750 root:nogroup"
is "$(stat -c '%a' "$T/state/clustermon" 2>&1)" 755 "with its missing parent (0755)"
rm -r "$T/state"
out=$(helper_say 'trace 3 sched_switch duration=100\n')
check "a trace after the directory vanished makes it again" contains "^ok started $TD/trace-3-" "$out"
is "$(stat -c '%a %G' "$TD" 2>&1)" "750 nogroup" "again 0750 in the socket's group"
check "-r runs the sensors on raw tracepoints" contains "scheduler sensors on raw tracepoints" \
	"$(cat "$T/kprobe.log")"
sleep 0.5
out=$(helper_say 'read\n')
rq=$(awk '$1 == "runqlat" { for (i = 3; i <= NF; i++) n += $i } END { print n + 0 }' <<<"$out")
sw=$(awk '$1 == "switches" { for (i = 3; i <= NF; i++) n += $i } END { print n + 0 }' <<<"$out")
[ "$rq" -gt 0 ] && [ "$sw" -gt 0 ]; ok $? "and count ($sw switches, $rq run-queue latencies)"

# Only the group gets in: nobody (group nogroup) may talk to the helper, the
# daemon user (not in nogroup) is refused by the kernel at connect.
chmod 711 "$T"
as() { # as USER: helper_say hello as that user, its groups only
	setpriv --reuid="$1" --regid="$(id -g "$1")" --init-groups \
		bash -c "$(declare -f helper_say); HELPER_SOCK=$HELPER_SOCK helper_say 'hello\n'" 2>&1
}
check "a member of the socket's group is answered" contains "^ok clustermon-kprobe" "$(as nobody)"
out=$(as daemon)
check "a user outside the group is refused (Permission denied)" contains "Permission denied" "$out"

# -u USER: only root and that user, by the kernel's word on the peer
# (SO_PEERCRED), whatever group lets another uid reach the socket.
# as_ids USER GROUP CODE: CODE (a helper_say or hear_first) as that uid
# and gid, no other groups.
as_ids() {
	setpriv --reuid="$1" --regid="$2" --clear-groups \
		bash -c "$(declare -f helper_say hear_first); HELPER_SOCK=$HELPER_SOCK $3" 2>&1
}
# hear_first: connects and prints what the helper says before any request.
hear_first() {
	python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.settimeout(3)
s.connect(sys.argv[1])
out = b""
while True:
    d = s.recv(4096)
    if not d:
        break
    out += d
sys.stdout.write(out.decode())' "$HELPER_SOCK"
}
check "without -u, another uid in the socket's group is answered, as before" \
	contains "^ok clustermon-kprobe" "$(as_ids daemon nogroup "helper_say 'hello\n'")"
stop_helper
"$KPROBE_HELPER" -f -s "$HELPER_SOCK" -u no-such-user-cm 2>"$T/nouser.log"
rc=$?
[ $rc -ne 0 ] && contains "unknown user no-such-user-cm" "$(cat "$T/nouser.log")"
ok $? "-u with an unknown user: the helper refuses to start (exit $rc)"
start_helper -g nogroup -u nobody -t "$TD" || bail "clustermon-kprobe -g nogroup -u nobody did not start"
check "with -u nobody, nobody is answered" contains "^ok clustermon-kprobe" \
	"$(as_ids nobody nogroup "helper_say 'hello\n'")"
check "and root" contains "^ok clustermon-kprobe" "$(helper_say 'hello\n')"
out=$(as_ids daemon nogroup hear_first)
is "$out" "err failed uid $(id -u daemon) may not use clustermon-kprobe (only root and nobody)" \
	"a peer of another uid, in the socket's group, is refused with the reason"
check "and the refusal is logged" contains "refused a client of uid $(id -u daemon)" "$(cat "$T/kprobe.log")"
finish
