#!/bin/bash
# peers.sh - the helper's peers (issue 40, part 4). The maps reply's fds,
# writable because the kernel maps a BPF array only through a fd that may
# write, and the procs drain, whose one reader is clustermond, go to the
# trusted peer alone: root, or the -u user; another uid the socket's group
# lets in is answered err with the reason. No uid holds more than half of
# the 32 client slots, so root still gets in while one peer hoards. -G
# gives the trace base a group of its own, apart from the socket's.
# (/usr/bin/python3 for nobody: the one on PATH may be root's own, pyenv.)
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || skip_all "needs root to load BPF programs"
need_helper
command -v setpriv >/dev/null || missing_all "setpriv is missing (util-linux, tests/setup-deps.sh)"
plan 12
NOBODY_UID=$(id -u nobody)
# nobody walks into $T to reach the socket.
chmod 711 "$T"

# as_nobody CODE: CODE (using helper_say) as nobody:nogroup, no other groups.
as_nobody() {
	setpriv --reuid=nobody --regid=nogroup --clear-groups \
		bash -c "$(declare -f helper_say); HELPER_SOCK=$HELPER_SOCK $1" 2>&1
}

start_helper -g nogroup || bail "clustermon-kprobe did not start: $(cat "$T/kprobe.log")"
wait_for "$(slack 5)" grep -q "scheduler sensors on" "$T/kprobe.log" ||
	bail "the sensors did not start: $(cat "$T/kprobe.log")"

# --- maps and procs: the trusted peer's alone
is "$(as_nobody "helper_say 'maps\n'")" \
	"err failed uid $NOBODY_UID may not ask for maps (its fds are writable): only root" \
	"without -u, another uid in the socket's group is refused the maps, with the reason"
is "$(as_nobody "helper_say 'procs\n'")" \
	"err failed uid $NOBODY_UID may not ask for procs (it drains clustermond's list): only root" \
	"and the procs drain"
check "while it still reads counters" contains "^ok [0-9]" "$(as_nobody "helper_say 'read\n'")"
check "root gets the maps" contains "^ok maps " "$(helper_say 'maps\n')"
check "and drains procs" contains "^ok [0-9]" "$(helper_say 'procs\n')"

# --- a share of the client slots: 16 of 32 to one uid
rm -f "$T/17th"
setpriv --reuid=nobody --regid=nogroup --clear-groups /usr/bin/python3 -c '
import socket, sys, time
held = []
for i in range(16):
    s = socket.socket(socket.AF_UNIX); s.settimeout(5); s.connect(sys.argv[1])
    s.sendall(b"hello\n"); s.recv(4096); held.append(s)
s = socket.socket(socket.AF_UNIX); s.settimeout(5); s.connect(sys.argv[1])
sys.stdout.write(s.recv(4096).decode()); sys.stdout.flush()
time.sleep(4)' "$HELPER_SOCK" >"$T/17th" 2>"$T/hoard.err" &
hoarder=$!
wait_for 10 test -s "$T/17th"
is "$(cat "$T/17th" "$T/hoard.err" 2>/dev/null)" \
	"err busy uid $NOBODY_UID holds 16 of the 32 client slots (at most half each)" \
	"a uid holding 16 connections is refused a 17th, with the reason"
check "while root still gets in" contains "^ok clustermon-kprobe" "$(helper_say 'hello\n')"
check "and the refusal is logged" contains "refused a client of uid $NOBODY_UID" "$(cat "$T/kprobe.log")"
wait "$hoarder"
check "once it lets go, that uid gets in again" contains "^ok clustermon-kprobe" \
	"$(as_nobody "helper_say 'hello\n'")"
stop_helper

# --- with -u nobody, nobody is the trusted peer
start_helper -g nogroup -u nobody || bail "clustermon-kprobe -u nobody did not start"
wait_for 5 sh -c "[ \$(grep -c 'scheduler sensors on' '$T/kprobe.log') -ge 2 ]"
check "with -u nobody, nobody gets the maps" contains "^ok maps " "$(as_nobody "helper_say 'maps\n'")"
stop_helper

# --- -G: the trace base's group, apart from the socket's
start_helper -g nogroup -G daemon -t "$T/tg/traces" || bail "clustermon-kprobe -G did not start"
is "$(stat -c '%a %G' "$HELPER_SOCK") $(stat -c '%a %U %G' "$T/tg/traces" 2>&1)" \
	"660 nogroup 750 root daemon" "-G daemon: the socket is nogroup's, the trace base daemon's"
stop_helper
"$KPROBE_HELPER" -f -s "$HELPER_SOCK" -G no-such-group-cm -t "$T/tg2" 2>"$T/nogroup.log"
rc=$?
[ $rc -ne 0 ] && contains "unknown group no-such-group-cm" "$(cat "$T/nogroup.log")"
ok $? "-G with an unknown group: the helper refuses to start (exit $rc)"
finish
