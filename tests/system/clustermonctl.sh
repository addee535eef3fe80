#!/bin/bash
# clustermonctl.sh - the CLI shows what snmpget reads (CPU bars, a
# histogram's counts and percentiles, the probe table), manages probes, and
# fails with a clear word and exit status: 2 when refused (bad spec, no
# write access, unknown command), 1 when the node or the subagent is not there.
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || skip_all "needs root for the eBPF helper"
need_helper
plan 25
CTL="$top_builddir/contrib/clustermonctl"
SYSCALLS="$top_builddir/tests/system/syscalls"
write_master_conf
add_reader_v3
start_master || bail "snmpd did not start"
start_helper || bail "clustermon-kprobe did not start"
# CPU figures frozen for the test: sampled once an hour after the first.
TCPPORT=$(( $(free_udp_port) ))
printf 'helperSocket %s\nsampleInterval probes 50\nsampleInterval cpu 3600000\n' \
	"$HELPER_SOCK" >"$T/ctl.conf"
printf 'history mem %s 100 5\nsampleInterval tcp 100\ntcpFilter port=%s\n' "$clusterMonMemAvailableKB.0" \
	"$TCPPORT" >>"$T/ctl.conf"
start_agent -c "$T/ctl.conf" || bail "clustermond did not register"
ctl() { out=$("$CTL" -v 2c -c private -t 2 -r 0 "$@" 2>&1); rc=$?; echo "$out" >>"$T/clients.log"; }

ctl -H "127.0.0.1:$PORT" cpu
want=$(walk "$clusterMonCpuUtil" | awk '{ split($1, o, "."); printf "cpu%d %.2f%%\n", o[length(o)] - 1, $2 / 100 }')
got=$(awk '/^cpu[0-9]/ { print $1, $NF }' <<<"$out")
is "$got" "$want" "cpu: every CPU's percentage is clusterMonCpuUtil"
contains "\[#*\.*\]" "$out"; ok $? "drawn as bars"

# sample.cost.cpu holds the one cpu sample taken so far: it stands still.
ctl "127.0.0.1:$PORT" hist sample.cost.cpu
idx=$(walk "$clusterMonHistSourceName" | awk '$2 == "\"sample.cost.cpu\"" { n = split($1, o, "."); print o[n] }')
head=$(printf 'sample.cost.cpu: %s values; p50 %s, p90 %s, p99 %s us' "$(get "$clusterMonHistSourceCount.$idx")" \
	"$(get "$clusterMonHistSourceP50.$idx")" "$(get "$clusterMonHistSourceP90.$idx")" "$(get "$clusterMonHistSourceP99.$idx")")
is "$(head -n 1 <<<"$out")" "$head" "hist: count and percentiles as snmpget reads them"
want=$(walk "$clusterMonHistBucketCount.$idx" | awk '$2 > 0 { print $2 }' | paste -sd ' ')
got=$(awk -F: '/->/ && $2 + 0 > 0 { sub(/\|.*/, "", $2); print $2 + 0 }' <<<"$out" | paste -sd ' ')
[ -n "$got" ] && [ "$got" = "$want" ]; ok $? "and its bucket counts ($got; snmpget: $want)"

ctl "127.0.0.1:$PORT" sources
want=$(walk "$clusterMonSourceName" | while read -r o n; do echo "${n//\"/} $(get "$clusterMonSourceIntervalMs.${o##*.}")"; done)
got=$(awk 'NR > 1 { print $1, $2 }' <<<"$out")
[ -n "$want" ] && [ "$got" = "$want" ]; ok $? "sources: each source's name and interval as snmpget reads them"
[ -n "$want" ] || diag "got '$got', want '$want'"
# The quickstart's screen: every part there, and one screen long. With the
# helper running its distribution is the run-queue latency; no probe rows
# yet, so no probe part.
wait_for 5 sh -c "snmpwalk -v2c -c public -On -Oqv $TARGET $clusterMonHistSourceName | grep -q sched.runqlat"
ctl "127.0.0.1:$PORT" overview
parts=$(grep -c '^== ' <<<"$out"); lines=$(wc -l <<<"$out")
[ $rc -eq 0 ] && [ "$parts" -eq 6 ] && [ "$lines" -le 60 ] && contains "^cpu0 " "$out" &&
	contains "^sched.runqlat: [0-9]* values; .* ns$" "$out" && lacks "== probes" "$out"
ok $? "overview: $parts parts (node, CPUs, memory, processes, run-queue latency, sources) in $lines lines"

# tcp: one loopback connection of ours, both ends.
python3 -c '
import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen()
c = socket.create_connection(("127.0.0.1", int(sys.argv[1]))); a, _ = s.accept()
time.sleep(4)' "$TCPPORT" &
sleep 1
ctl "127.0.0.1:$PORT" tcp
is "$(awk -v a="127.0.0.1:$TCPPORT" '$1 == a && $3 == "ESTABLISHED"' <<<"$out" | wc -l)" 1 \
	"tcp: the connection's listening end, ESTABLISHED"
is "$(awk -v a="127.0.0.1:$TCPPORT" '$2 == a && $3 == "ESTABLISHED"' <<<"$out" | wc -l)" 1 \
	"and its connecting end"
ctl "127.0.0.1:$PORT" history mem
spark=$(sed -n 2p <<<"$out")
# Five block characters of three UTF-8 bytes each, whatever the locale.
[ $rc -eq 0 ] && contains "^mem: 5 buckets" "$out" && [ "$(printf '%s' "$spark" | wc -c)" -eq 15 ]
ok $? "history: five buckets, one sparkline character each ($spark)"

rm -f "$T/go"; mkfifo "$T/go"
"$SYSCALLS" getppid 5000 <"$T/go" & calls=$!
ctl "127.0.0.1:$PORT" probe add tracepoint:syscalls:sys_enter_getppid "pid=$calls"
[ $rc -eq 0 ] && contains "^probe [0-9]*: tracepoint:syscalls:sys_enter_getppid" "$out"
ok $? "probe add: $out"
n=$(sed -n 's/^probe \([0-9]*\):.*/\1/p' <<<"$out")
echo g >"$T/go"; wait "$calls"
wait_for 3 sh -c "[ \"\$(snmpget -v2c -c public -On -Oqv $TARGET $clusterMonProbeHits.$n)\" = 5000 ]"
ctl "127.0.0.1:$PORT" probes
line=$(awk -v n="$n" '$1 == n' <<<"$out")
is "$(awk '{ print $2, $3, $4, $5 }' <<<"$line")" "up $(get "$clusterMonProbeHits.$n") $(get "$clusterMonProbeLost.$n") tracepoint:syscalls:sys_enter_getppid" \
	"probes: status, hits and lost as snmpget reads them"
ctl "127.0.0.1:$PORT" overview
parts=$(grep -c '^== ' <<<"$out"); lines=$(wc -l <<<"$out")
line=$(sed -n '/^== probes/,/^$/p' <<<"$out" | awk -v n="$n" '$1 == n { print $2, $3, $5 }')
[ $rc -eq 0 ] && [ "$parts" -eq 7 ] && [ "$lines" -le 66 ] &&
	[ "$line" = "up $(get "$clusterMonProbeHits.$n") tracepoint:syscalls:sys_enter_getppid" ]
ok $? "overview with a probe: a seventh part, the probe's count as snmpget reads it ($line), $lines lines"
ctl "127.0.0.1:$PORT" probe add tracepoint:nope:nope
[ $rc -eq 2 ] && contains "cannot attach: no tracepoint nope:nope" "$out"; ok $? "a spec that cannot attach: exit $rc, $out"
lacks "nope:nope" "$(walk "$clusterMonProbeSpec")"; ok $? "and leaves no row behind"
ctl "127.0.0.1:$PORT" probe add "tracepoint:sched"
[ $rc -eq 2 ] && contains "refused: wrongValue" "$out"; ok $? "a malformed spec: exit $rc, $out"
out=$("$CTL" -v 2c -c public -t 2 -r 0 "127.0.0.1:$PORT" probe add tracepoint:sched:sched_switch 2>&1); rc=$?
[ $rc -eq 2 ] && contains "no write access" "$out"; ok $? "a read-only community: exit $rc, $out"
ctl "127.0.0.1:$PORT" probe del "$n"
[ $rc -eq 0 ] && contains "No Such Instance" "$(get_raw "$clusterMonProbeRowStatus.$n")"; ok $? "probe del removes the row"
out=$("$CTL" -v 3 -u cmadmin -l authPriv -a SHA-256 -A cm-auth-passphrase -x AES \
	-X cm-priv-passphrase -t 2 "127.0.0.1:$PORT" nodes 2>&1); rc=$?
echo "$out" >>"$T/clients.log"
[ $rc -eq 0 ] && contains "^$(uname -n) .* CPUs" "$out"; ok $? "SNMPv3 authPriv works too: $out"
ctl "127.0.0.1:$PORT" threshold add memtotal "$clusterMonMemTotalKB.0" rising=1 falling=0 interval=200
[ $rc -eq 0 ] && contains "^threshold [0-9]*: memtotal" "$out"; ok $? "threshold add: $out"
t=$(sed -n 's/^threshold \([0-9]*\):.*/\1/p' <<<"$out")
wait_for 3 sh -c "[ \"\$(snmpget -v2c -c public -On -Oqv $TARGET $clusterMonThresholdState.$t)\" = 2 ]"
ctl "127.0.0.1:$PORT" thresholds
line=$(awk -v t="$t" '$1 == t' <<<"$out")
is "$(awk '{ print $2, $3, $4 }' <<<"$line")" "memtotal risen $(get "$clusterMonThresholdValue.$t")" \
	"thresholds: owner, state and value as snmpget reads them"
ctl "127.0.0.1:$PORT" threshold add bad "$clusterMonMemTotalKB.0" rising=1 falling=5
[ $rc -eq 2 ] && contains "refused" "$out"; ok $? "falling above rising is refused: $out"
# Numbers in arguments are read whole (common/number.h): "5x" was 5 to strtol.
bad=
for args in "procs 5x" "procs 0" "probe del 1x" "probe del 65536" "trace stop +1" \
	"probe add tracepoint:a:b pid=-1" "threshold add t $clusterMonMemTotalKB.0 rising=1 falling=0 interval=9x"; do
	# shellcheck disable=SC2086
	ctl "127.0.0.1:$PORT" $args
	[ $rc -eq 2 ] || bad="$bad [$args: exit $rc]"
done
ctl -W 1s "127.0.0.1:$PORT" cpu
[ $rc -eq 2 ] || bad="$bad [-W 1s: exit $rc]"
[ -z "$bad" ]; ok $? "malformed numbers in arguments are refused (exit 2)$bad"
ctl "127.0.0.1:$PORT" frobnicate
[ $rc -eq 2 ] && contains "unknown command 'frobnicate'" "$out"; ok $? "an unknown command: exit $rc"
stop_agent
ctl "127.0.0.1:$PORT" cpu
[ $rc -eq 1 ] && contains "not registered" "$out"; ok $? "clustermond stopped: exit $rc, $out"
stop_master
ctl "127.0.0.1:$PORT" cpu
[ $rc -eq 1 ] && contains "does not answer" "$out"; ok $? "the node silent: exit $rc, $out"
finish
