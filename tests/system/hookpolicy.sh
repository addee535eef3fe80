#!/bin/bash
# hookpolicy.sh - what may be hooked is root's decision (issue 40, part 3).
# The built-in policy denies kprobes on the scheduler's hot paths; a policy
# file denying tracepoint:syscalls:sys_enter_getpid makes the helper refuse
# a probe, a trace and a distribution on it, with the rule's FILE:LINE, over
# the socket and in the MIB rows' LastError; SIGHUP reads the file again (a
# bad one leaves the old in force); the helper will not start with a bad
# line (FILE:LINE said), a file nobody owns, one group-writable, or a
# symbolic link. A traced kmem:kmalloc carries zeros in its pointer fields
# (ptr, call_site) and real sizes in bytes_req, and a distribution of a
# pointer field is refused.
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || skip_all "needs root to load BPF programs"
need_helper
command -v babeltrace2 >/dev/null || missing_all "babeltrace2 is not installed (tests/setup-deps.sh)"
plan 22
P=$CM.8.1.1 TR=$CM.12.1.1 D=$clusterMonDistEntry
GETPID=tracepoint:syscalls:sys_enter_getpid
POL="$T/policy"
DENIED="$GETPID is denied by $POL:2 (deny $GETPID)"

# starts HELPER-ARGS...: the helper's exit status when it refuses to start
# (its words in $T/refused.log), or "running" when it serves.
starts() {
	timeout 20 "$KPROBE_HELPER" -f -s "$T/other.sock" -t "$T/traces" "$@" \
		>"$T/refused.log" 2>&1 &
	local pid=$! i
	for i in $(seq 50); do
		kill -0 "$pid" 2>/dev/null || { wait "$pid"; echo "$?"; return; }
		[ -S "$T/other.sock" ] && { kill "$pid"; wait "$pid"; echo running; return; }
		sleep 0.1
	done
	kill "$pid"; wait "$pid"; echo timeout
}

# --- the built-in policy (when root has written none at the default path)
if [ ! -e /etc/clustermon/kprobe-policy ]; then
	start_helper || bail "clustermon-kprobe did not start: $(cat "$T/kprobe.log")"
	is "$(helper_say 'add 1 kprobe:schedule\n')" \
		"err invalid kprobe:schedule is denied by built-in:5 (deny k*probe:schedule*)" \
		"the built-in policy denies a kprobe on schedule(), naming its rule"
	is "$(helper_say 'add 2 latency:kprobe:kmem_cache_alloc\n')" \
		"err invalid kprobe:kmem_cache_alloc is denied by built-in:17 (deny k*probe:kmem_cache_*)" \
		"and a latency kprobe on the slab allocator"
	stop_helper
else
	skip "root has a policy at /etc/clustermon/kprobe-policy"
	skip "root has a policy at /etc/clustermon/kprobe-policy"
fi

# --- a file that denies getpid's tracepoint
printf '# test policy\ndeny %s\nallow *\n' "$GETPID" >"$POL"
start_helper -P "$POL" || bail "clustermon-kprobe did not start: $(cat "$T/kprobe.log")"
is "$(helper_say "add 1 $GETPID\n")" "err invalid $DENIED" "a probe on it is refused, the rule named"
is "$(helper_say "trace 1 $GETPID duration=100\n")" "err invalid $DENIED" "a trace on it too"
is "$(helper_say "dist 1 latency tracepoint:syscalls:sys_enter_getppid $GETPID\n")" \
	"err invalid $DENIED" "and a distribution ending on it"
is "$(helper_say 'add 2 tracepoint:syscalls:sys_enter_getppid\n')" "ok attached" \
	"a probe on another tracepoint attaches"

start_master || bail "snmpd did not start"
printf 'helperSocket %s\nsampleInterval probes 100\n' "$HELPER_SOCK" >"$T/a.conf"
start_agent -c "$T/a.conf" || bail "clustermond did not register"
set_rw "$P.12.5" i 4 "$P.2.5" s "$GETPID" >/dev/null
set_rw "$TR.2.5" s "$GETPID" "$TR.10.5" i 4 >/dev/null
set_rw "$D.15.5" i 4 "$D.2.5" s "value $GETPID __syscall_nr" >/dev/null
wait_for 5 sh -c "[ \"\$(snmpget -v2c -c public -On -Oqv $TARGET $P.9.5)\" = 3 ]"
is "$(get "$P.9.5")/$(get "$P.10.5")" "3/\"$DENIED\"" \
	"the probe row fails, clusterMonProbeLastError naming the rule"
wait_for 5 sh -c "[ \"\$(snmpget -v2c -c public -On -Oqv $TARGET $TR.15.5)\" = 5 ]"
is "$(get "$TR.15.5")/$(get "$TR.16.5")" "5/\"$DENIED\"" \
	"the trace row fails, clusterMonTraceLastError naming the rule"
wait_for 5 sh -c "[ \"\$(snmpget -v2c -c public -On -Oqv $TARGET $D.12.5)\" = 3 ]"
is "$(get "$D.12.5")/$(get "$D.13.5")" "3/\"$DENIED\"" \
	"the distribution row fails, clusterMonDistLastError naming the rule"
set_rw "$P.12.5" i 6 "$TR.10.5" i 6 "$D.15.5" i 6 >/dev/null
stop_agent

# --- SIGHUP: the file read again; a bad one leaves the policy in force
printf 'allow *\n' >"$POL"
kill -HUP "$HELPER_PID"
wait_for 3 sh -c "[ \$(grep -c 'hooks allowed by $POL' '$T/kprobe.log') -ge 2 ]"
is "$(helper_say "add 1 $GETPID\n")" "ok attached" "after SIGHUP the new file allows it"
printf 'deny %s\nforbid *\n' "$GETPID" >"$POL"
kill -HUP "$HELPER_PID"
wait_for 3 grep -q "$POL:2: 'forbid' is neither allow nor deny; the policy in force stays" "$T/kprobe.log"
ok $? "a bad file at SIGHUP is reported with FILE:LINE"
is "$(helper_say "del 1\nadd 1 $GETPID\n")" "ok
ok attached" "and the policy in force stays"

# --- pointers: zeros in a kmem:kmalloc trace, no distribution of one
out=$(helper_say 'trace 7 tracepoint:kmem:kmalloc duration=400 bytes=2097152\n')
dir=${out#ok started }
for i in $(seq 20); do ls / /proc/self/ >/dev/null; python3 -c 'x = [bytes(100) for _ in range(1000)]'; done
for i in $(seq 50); do
	contains "trace 7 finished" "$(helper_say 'traces\n')" && break
	sleep 0.1
done
babeltrace2 "$dir" >"$T/kmalloc.txt" 2>"$T/bt.err"
read -r n ptrs sizes < <(python3 -c '
import re, sys
n = ptrs = sizes = 0
for l in open(sys.argv[1]):
    f = dict(re.findall(r"(\w+) = (-?\d+)", l.split("}, {")[-1]))
    if "bytes_req" not in f:
        continue
    n += 1
    ptrs += f["ptr"] != "0" or f["call_site"] != "0"
    sizes += f["bytes_req"] != "0"
print(n, ptrs, sizes)' "$T/kmalloc.txt")
ok $(( n < 10 )) "a kmem:kmalloc trace holds allocations ($n)"
is "$ptrs" 0 "every one with ptr = 0 and call_site = 0"
ok $(( sizes * 2 < n )) "while bytes_req is not zero ($sizes of $n)"
diag "$(grep -m1 kmalloc "$T/kmalloc.txt")"
is "$(helper_say 'dist 8 value tracepoint:kmem:kmalloc ptr\n')" \
	"err failed kmem:kmalloc: field ptr holds a kernel address (a pointer): not a value to serve" \
	"a distribution of a pointer field is refused"
is "$(helper_say 'dist 8 value tracepoint:kmem:kmalloc bytes_req\n')" "ok attached" \
	"and one of bytes_req attaches"
stop_helper

# --- files the helper will not take
printf 'allow tracepoint:*\n\nallow kporbe:*\n' >"$T/bad"
is "$(starts -P "$T/bad")" 1 "a bad line: the helper exits 1"
contains "$T/bad:3: pattern 'kporbe:\*' names no kind of hook" "$(cat "$T/refused.log")"
ok $? "saying FILE:LINE: $(cat "$T/refused.log")"
printf 'allow *\n' >"$T/nobodys"; chown nobody "$T/nobodys"
is "$(starts -P "$T/nobodys")/$(cat "$T/refused.log")" \
	"1/clustermon-kprobe: policy $T/nobodys is not owned by root" "a file nobody owns is refused"
ln -s "$POL" "$T/link"
is "$(starts -P "$T/link")/$(cat "$T/refused.log")" \
	"1/clustermon-kprobe: policy $T/link is a symbolic link" "a symbolic link is refused"
printf 'allow *\n' >"$T/gw"; chmod 664 "$T/gw"
is "$(starts -P "$T/gw")/$(cat "$T/refused.log")" \
	"1/clustermon-kprobe: policy $T/gw is writable by its group or others" \
	"a group-writable file is refused"
finish
