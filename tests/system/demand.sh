#!/bin/bash
# demand.sh - a source nobody reads stops sampling, and what wakes it: the
# tcp source goes idle (its samples counter stands still, its node counters
# still follow /proc/net/snmp), a GETBULK that reads on past the proc group
# into the connections does not wake it, the first walk after idle shows a connection
# opened while it slept, a threshold row on one of its instances keeps it
# sampling every interval, a poller buys one sample a poll, "always" pins
# it, and a bad mode word is a file:line error.
. "$(dirname "$0")/lib.sh"

plan 20
TCPCONNS="$top_builddir/tests/system/tcpconns"
[ -x "$TCPCONNS" ] || bail "tests/system/tcpconns is not built"
# Connections in the tcp source's first sample, for a walk to read on into.
"$TCPCONNS" 4 2 0 >"$T/conns.0" 2>&1 &
CONNS0=$!
wait_for 20 grep -q ready "$T/conns.0" || bail "tcpconns did not start"
start_master || bail "snmpd did not start"
start_agent || bail "clustermond did not register"
S=$clusterMonSourceEntry TCP=4

state() { get "$S.9.$TCP"; }
samples() { get "$S.5.$TCP"; }
idle() { [ "$(state)" = 3 ]; }

check "nobody reads tcp: clusterMonSourceState idle(3)" wait_for "$(slack 10)" idle
a=$(samples); sleep 2.5; b=$(samples)
is "$((b - a))" 0 "idle: clusterMonSourceSamples stands still over 2.5 s ($a)"

# The node's counters keep their timer: a connection made now shows in
# clusterMonTcpActiveOpens within two intervals, and no read of them wakes
# the connections.
opens() { awk '/^Tcp:/ { if (h) { print $6; exit } h = 1 }' /proc/net/snmp; }
k0=$(opens)
"$TCPCONNS" 4 3 0 >"$T/conns.1" 2>&1 &
CONNS=$!
wait_for 20 grep -q ready "$T/conns.1" || bail "tcpconns did not start"
k1=$(opens)
counted() { v=$(get "$clusterMonTcpActiveOpens.0") && [ "$v" -ge "$k1" ]; }
check "ActiveOpens follows /proc/net/snmp while idle ($k0 -> $k1)" wait_for "$(slack 3)" counted
is "$(state)" 3 "reading the node's counters leaves the connections idle"

# Reading past the end of what was asked wakes nothing: a GETBULK from the
# proc group's last instance (its top table's) runs on into clusterMonTcp
# and its connections, answered from their last sample. (The walk that
# finds that instance reads on past it too, by one GETNEXT.)
last=$(walk "$clusterMonProcTopTable" | awk '{ o = $1 } END { print o }')
s0=$(samples)
out=$(snmpbulkget -v2c -c public -t 2 -r 1 -On -Oq -Cn0 -Cr50 "$TARGET" "$last" 2>&1)
over=$(grep -c "^$clusterMonTcpConnEntry\." <<<"$out")
check "a GETBULK from the top table's last instance read on into the connections ($over of 50)" \
	test "$over" -gt 0
sleep 1.5  # past the sample a wake would have taken at once
is "$(state)" 3 "that over-read left tcp idle(3)"
is "$(samples)" "$s0" "and its samples counter where it was"

# The first walk after idle waits for a fresh sample: the connections opened
# while the source slept are in it.
lport=$(awk '/^conn/ { print $3; exit }' "$T/conns.1")
rows=$(walk "$clusterMonTcpConnLocalPort" | awk -v p="$lport" '$2 == p' | wc -l)
is "$rows" 3 "the first walk after idle has the 3 connections opened while idle"
check "and the source samples again: onDemand(2)" test "$(state)" = 2
c=$(samples)
check "clusterMonSourceSamples moved on ($b -> $c)" test "$c" -gt "$b"
check "two intervals and 3 s after the last read, idle again" wait_for "$(slack 8)" idle
c=$(samples)
snmpbulkget -v2c -c public -t 2 -r 1 -On -Cn0 -Cr50 "$TARGET" "$clusterMonTcpConnTable" >/dev/null 2>&1
check "a walk of clusterMonTcpConnTable (its first GETBULK) wakes it: onDemand(2), a sample" \
	test "$(state)" = 2 -a "$(samples)" -gt "$c"

# A threshold on a connection's instance keeps the source sampling.
idx=$(walk "$clusterMonTcpConnLocalPort" | awk -v p="$lport" '$2 == p { n = split($1, o, "."); print o[n]; exit }')
TH=$clusterMonThresholdEntry
out=$(set_rw "$TH.11.7" i 4 "$TH.2.7" o "$clusterMonTcpConnSegsOut.$idx" "$TH.4.7" u 500 \
	"$TH.5.7" s 1000000 "$TH.6.7" s 0 "$TH.7.7" i 1 "$TH.12.7" s "conn")
check "a threshold row on connection $idx" contains "INTEGER: 4" "$out"
sleep 4
d=$(samples); sleep 2; e=$(samples)
check "with the threshold, tcp keeps sampling ($d -> $e in 2 s) past its idle time" \
	test "$e" -gt "$d" -a "$(state)" = 2
set_rw "$TH.11.7" i 6 >/dev/null
check "its row gone, tcp goes idle again" wait_for "$(slack 8)" idle

# A poller every 2 s of a source sampled every second: each GET finds the
# deadline after its last sample passed unread (stale), waits for one fresh
# sample, and buys no other; the hold (3 s) keeps it onDemand between. Five
# polls, five samples (one more if snmpget resends: a second read); sampling
# every interval while held, as before, took two or three a poll.
n=$(polled_samples $TCP "$clusterMonTcpConnState.$idx")
check "polled every 2 s for 10 s, tcp took $n samples (5, or 6 after a resend)" \
	test "$n" -ge 5 -a "$n" -le 6
is "$(state)" 2 "and stayed onDemand(2) between the polls"

# "always" pins it to the timer.
echo "sampleInterval tcp 500 always" >"$T/pin.conf"
stop_agent
start_agent -c "$T/pin.conf" || bail "clustermond did not restart"
is "$(state)" 1 "sampleInterval tcp 500 always: timer(1)"
f=$(samples); sleep 2; g=$(samples)
check "pinned, it samples unread ($f -> $g in 2 s)" test "$((g - f))" -ge 2
kill "$CONNS" "$CONNS0" 2>/dev/null
bad "sampleInterval with a mode other than always" "sampleInterval tcp 1000 sometimes" \
	"is not \"always\""
finish
