#!/bin/bash
# demand-fastpath.sh - reads through clustermon.so count as demand, and the
# module alone serves the first read after idle: it keeps every section
# registered; a read of a section whose source sleeps is delegated inside
# snmpd while the module's demand record wakes the source, and answered
# once the image holds a sample taken since. clustermond's SNMP thread
# answers none of it (its AgentX requests are counted in its debug log).
# What a GETBULK reads on past what it asked for (the top tables' last
# rows into the connections) is no read of the section it runs into.
# Reads through the module alone keep the source sampling; a poller buys
# one sample a poll; an unread section's source sleeps, and so does the
# read one once unread.
. "$(dirname "$0")/lib.sh"

[ -f "$MODULE" ] || bail "no $MODULE (make builds it)"
plan 21
TCPCONNS="$top_builddir/tests/system/tcpconns"
# Connections in the tcp source's first sample, for a walk to read on into.
"$TCPCONNS" 4 2 0 >"$T/conns.0" 2>&1 &
CONNS0=$!
wait_for 20 grep -q ready "$T/conns.0" || bail "tcpconns did not start"
add_module
start_master || bail "snmpd did not start with clustermon.so"
start_agent -D agentx/subagent || bail "clustermond did not register"
S=$clusterMonSourceEntry TCP=4 MEM=2
state() { get "$S.9.$1"; }
idle() { [ "$(state "$1")" = 3 ]; }
# The requests clustermond's SNMP thread got from the master over AgentX.
agentx() { grep -c -- '-> get' "$T/clustermond.log"; }

# sec: the tcp section's flags, held_ns and fresh_ns from the image header,
# and its read count and wake from the module's demand record (image/image.h).
sec() {
	python3 - "$IMAGE" "$clusterMonTcp" <<'PY'
import struct, sys
img, base = sys.argv[1], [int(x) for x in sys.argv[2].strip('.').split('.')]
SEC, SEC_SIZE = 56, 184
h = open(img, 'rb').read(SEC + 16 * SEC_SIZE)
nsec = struct.unpack_from('=I', h, 44)[0]
for i in range(nsec):
    o = SEC + i * SEC_SIZE
    n = struct.unpack_from('=I', h, o)[0]
    if list(struct.unpack_from('=%dI' % n, h, o + 4)) == base:
        flags = struct.unpack_from('=I', h, o + 140)[0]
        held, fresh = struct.unpack_from('=QQ', h, o + 168)
        try:
            d = open(img + '.demand', 'rb').read()
            reads, wake = struct.unpack_from('=Q', d, 16 + 8 * i)[0], struct.unpack_from('=Q', d, 144 + 8 * i)[0]
        except (OSError, struct.error):
            reads, wake = '-', '-'
        print(flags, held, fresh, reads, wake)
PY
}
field() { sec | cut -d' ' -f"$1"; }
asleep() { [ "$(field 1)" = 1 ] && [ "$(field 2)" = 0 ]; }

check "tcp unread: idle" wait_for "$(slack 10)" idle $TCP
check "and its section asleep in the image ($(sec))" asleep

# A GETBULK from the proc group's last instance (its top table's) runs on
# into clusterMonTcp and its connections: served from the image as it is,
# no read of the tcp section and no wake in the module's demand record.
last=$(walk "$clusterMonProcTopTable" | awk '{ o = $1 } END { print o }')
r0=$(field 4) wake0=$(field 5)
out=$(snmpbulkget -v2c -c public -t 2 -r 1 -On -Oq -Cn0 -Cr50 "$TARGET" "$last" 2>&1)
over=$(grep -c "^$clusterMonTcpConnEntry\." <<<"$out")
check "a GETBULK from the top table's last instance read on into the connections ($over of 50)" \
	test "$over" -gt 0
sleep 1.5  # past the module's next report and a wake's sample
is "$(field 4) $(field 5)" "$r0 $wake0" "the module counted no read of the tcp section and woke nothing"
is "$(state $TCP)" 3 "tcp stayed idle(3)"

"$TCPCONNS" 4 3 0 >"$T/conns.1" 2>&1 &
CONNS=$!
wait_for 20 grep -q ready "$T/conns.1" || bail "tcpconns did not start"
lport=$(awk '/^conn/ { print $3; exit }' "$T/conns.1")
mine() { walk "$clusterMonTcpConnLocalPort" | awk -v p="$lport" '$2 == p' | wc -l; }

ax0=$(agentx)
t0=$(date +%s%N)
first=$(snmpgetnext -v2c -c public -t 2 -r 0 -On -Oqv "$TARGET" "$clusterMonTcpConnLocalPort" 2>&1)
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
diag "the first read after idle: $first, in $ms ms (the module waits for the woken sample)"
check "it waited less than the module's 0.5 s bound" test "$ms" -lt "$(slack 500)"
is "$(mine)" 3 "the first walk after idle has the 3 connections opened while tcp slept"
check "the module wrote a wake and clustermond answered it ($wake0 -> $(sec))" \
	test "$(field 5)" != "$wake0" -a "$(field 3)" -ge "$(field 5)"
is "$(( $(agentx) - ax0 ))" 0 "clustermond's SNMP thread answered none of it (AgentX requests)"

# The whole table, walked: its last step asks for what follows the table,
# which snmpd looks for in the subagent's registrations between the
# module's (gaps of the groups after it) before the module's next one.
ax1=$(agentx)
walk "$clusterMonTcpConnTable" >"$T/walk"
ax2=$(agentx)
snmpgetnext -v2c -c public -t 2 -r 1 -On "$TARGET" "$(tail -n 1 "$T/walk" | cut -d' ' -f1)" >/dev/null 2>&1
past=$(( $(agentx) - ax2 ))
is "$(( ax2 - ax1 ))" "$past" "a walk of the table reached clustermond only past its end ($past requests, as one GETNEXT from its last instance)"
# Every instance of our connections' rows, walked, answers a GET.
idx=$(awk -v p="$lport" -v col="$clusterMonTcpConnLocalPort." 'index($1, col) == 1 && $2 == p {
	print substr($1, length(col) + 1) }' "$T/walk" | tr '\n' ' ')
grep -E "\\.($(echo $idx | tr ' ' '|')) " "$T/walk" | awk '{ print $1 }' >"$T/mine"
n=$(wc -l <"$T/mine")
ax3=$(agentx)
while read -r -a oids; do
	snmpget -v2c -c public -t 2 -r 1 -On -Oq "$TARGET" "${oids[@]}" >>"$T/gets" 2>&1
done < <(xargs -n 20 <"$T/mine")
bad=$(grep -c "No Such\|Timeout\|Error" "$T/gets")
check "every walked instance of our 3 rows ($n) answers a GET" test "$n" -gt 20 -a "$bad" -eq 0
is "$(( $(agentx) - ax3 ))" 0 "through the module alone"

r0=$(field 4) held=0
for i in $(seq 16); do
	mine >/dev/null; sleep 0.5
	[ "$(field 1)" = 0 ] && [ "$(field 2)" -gt 0 ] && held=$((held + 1))
done
r1=$(field 4)
check "8 s of walks through the module: it counted them ($r0 -> $r1)" test "$r1" -gt "$r0"
is "$(state $TCP)" 2 "and they alone kept tcp sampling, past its 3 s hold"
check "the section was held meanwhile ($held of 16 looks; now $(sec))" test "$held" -ge 8
is "$(state $MEM)" 3 "mem, which nobody reads, slept all along"
is "$(( $(agentx) - ax3 ))" 0 "still no AgentX request"

# A poller every 2 s, through the module: each GET finds the section
# asleep (the deadline after the last sample passed unread), waits for one
# fresh sample and buys no other. Five polls, five samples (six after a
# resend); the section held 3 s a read, as before, took two or three.
n=$(polled_samples $TCP "$clusterMonTcpConnState.${idx%% *}")
check "polled through the module every 2 s for 10 s, tcp took $n samples (5, or 6 after a resend)" \
	test "$n" -ge 5 -a "$n" -le 6
is "$(( $(agentx) - ax3 ))" 0 "and none of the polls went to clustermond over AgentX"

check "unread, tcp idle again" wait_for "$(slack 8)" idle $TCP
check "and its section asleep ($(sec))" wait_for 2 asleep
kill "$CONNS" "$CONNS0" 2>/dev/null
finish
