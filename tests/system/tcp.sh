#!/bin/bash
# tcp.sh - clusterMonTcpConnTable against connections this test opens on
# loopback (IPv4 and IPv6): every one appears with its addresses, ports and
# state, byte counts match what was sent, RTTs match `ss -tin` for the same
# sockets, indexes stay put, closed connections go; the Tcp counters follow
# /proc/net/snmp; tcp.rtt gains samples.
. "$(dirname "$0")/lib.sh"

plan 21
TCPCONNS="$top_builddir/tests/system/tcpconns"
[ -x "$TCPCONNS" ] || bail "tests/system/tcpconns is not built"
echo "sampleInterval tcp 200" >"$T/tcp.conf"
start_master || bail "snmpd did not start"
start_agent -c "$T/tcp.conf" || bail "clustermond did not register"
C=$clusterMonTcpConnEntry

# conns FAMILY N BYTES: starts tcpconns, waits for "ready"; sets CONNS_PID.
conns() {
	"$TCPCONNS" "$@" >"$T/conns.$1" 2>"$T/conns.err" &
	CONNS_PID=$!
	wait_for 20 grep -q ready "$T/conns.$1"
}
# table: one line per row: INDEX LPORT RPORT STATE ACKED RECEIVED RTT PID LADDR
# WSCALE-RCVD WSCALE-SENT TIMESTAMPS SACK
# ("-" for an absent column)
table() {
	walk "$C" | awk '
		{ split($1, o, "."); n = length(o); col = o[n - 1]; idx = o[n]; v = $2
		  for (i = 3; i <= NF; i++) v = v $i; gsub(/"/, "", v); val[idx, col] = v; seen[idx] = 1 }
		function f(x) { return x == "" ? "-" : x }
		END { for (i in seen) print i, f(val[i,4]), f(val[i,7]), f(val[i,8]), f(val[i,16]),
			f(val[i,17]), f(val[i,9]), f(val[i,23]), f(val[i,3]), f(val[i,34]),
			f(val[i,33]), f(val[i,35]), f(val[i,36]) }' |
		sort -n
}

conns 4 200 1000 || bail "tcpconns did not open 200 connections"
lport=$(awk '/^conn/ { print $3; exit }' "$T/conns.4")
sleep 0.5
table >"$T/table.1"
ss -tinH "sport = :$lport or dport = :$lport" >"$T/ss.1"
rows=$(awk -v p="$lport" '$2 == p || $3 == p' "$T/table.1" | wc -l)
is "$rows" 400 "200 connections, both ends: 400 rows with the listener's port"
missing=$(awk 'NR == FNR { have[$2 " " $3 " " $4] = 1; next }
	/^conn/ { if (!have[$2 " " $3 " 1"]) m++; if (!have[$3 " " $2 " 1"]) m++ }
	END { print m + 0 }' "$T/table.1" "$T/conns.4")
is "$missing" 0 "every client and server socket is there, established, with both ports"
bad=$(awk -v p="$lport" '$2 == p && $9 != "7F000001"' "$T/table.1")
is "$bad" "" "local addresses are 127.0.0.1"
bad=$(awk 'NR == FNR { acked[$2 " " $3] = $5; rcvd[$2 " " $3] = $6; next }
	/^conn/ && $4 > 0 { a = acked[$2 " " $3]; r = rcvd[$3 " " $2]
		if ((a != $4 && a != $4 + 1) || r != $4) b++ }
	END { print b + 0 }' "$T/table.1" "$T/conns.4")
is "$bad" 0 "senders' BytesAcked and receivers' BytesReceived are the 1000 bytes sent"
idle=$(awk 'NR == FNR { rcvd[$2 " " $3] = $6; next } /^conn/ && $4 == 0 && rcvd[$3 " " $2] != "0" { b++ }
	END { print b + 0 }' "$T/table.1" "$T/conns.4")
is "$idle" 0 "idle connections received nothing"
# ss prints rtt:SRTT/RTTVAR in ms; compare per socket by its two ports.
off=$(awk 'NR == FNR { rtt[$2 " " $3] = $7; next }
	/^ESTAB/ { split($4, l, ":"); split($5, r, ":"); key = l[length(l)] " " r[length(r)]; next }
	match($0, /rtt:[0-9.]+/) { ss = substr($0, RSTART + 4, RLENGTH - 4) * 1000
		d = rtt[key] - ss; if (d < 0) d = -d; n++; if (d > 5 + ss / 10) far++ }
	END { printf "%d %d\n", n, far }' "$T/table.1" "$T/ss.1")
read -r compared far <<<"$off"
check "ss -tin shows the same sockets ($compared)" test "$compared" -eq 400
is "$far" 0 "clusterMonTcpConnRttUs matches ss's rtt within 10% for every one"
# ss prints wscale:SND,RCV: the peer's scale, then ours.
wsbad=$(awk 'NR == FNR { ws[$2 " " $3] = $10 "," $11; opt[$2 " " $3] = $12 $13; next }
	/^ESTAB/ { split($4, l, ":"); split($5, r, ":"); key = l[length(l)] " " r[length(r)]; next }
	match($0, /wscale:[0-9]+,[0-9]+/) { n++; if (substr($0, RSTART + 7, RLENGTH - 7) != ws[key] || opt[key] != "11") b++ }
	END { printf "%d %d\n", n, b }' "$T/table.1" "$T/ss.1")
read -r wsn wsb <<<"$wsbad"
check "window scales match ss's wscale and timestamps and SACK read true ($wsn sockets, $wsb differ)" \
	test "$wsn" -eq 400 -a "$wsb" -eq 0
pid_seen() { table | awk -v p="$lport" -v pid="$CONNS_PID" '$2 == p && $8 == pid' | grep -q .; }
check "clusterMonTcpConnPid names tcpconns (within the 5 s refresh)" wait_for 8 pid_seen

# indexes stay put while connections live (ours: another test's may close,
# and a new one take its ports, between the two walks)
table >"$T/table.2"
ours() { awk -v p="$lport" '$2 == p || $3 == p { print $2 "-" $3, $1 }' "$1" | sort; }
moved=$(join <(ours "$T/table.1") <(ours "$T/table.2") |
	awk '$2 != $3' | wc -l)
is "$moved" 0 "no connection changed its index between samples"

# the Tcp counters follow the kernel's
kernel_opens() { awk '/^Tcp:/ { if (h) { print $6; exit } h = 1 }' /proc/net/snmp; }
before=$(kernel_opens); served=$(get "$clusterMonTcpActiveOpens.0"); after=$(kernel_opens)
check "clusterMonTcpActiveOpens ($served) within /proc/net/snmp's [$((before - 1)), $after]" \
	test "$served" -ge "$((before - 1))" -a "$served" -le "$after"
check "clusterMonTcpPassiveOpens is there" get "$clusterMonTcpPassiveOpens.0"
rtt_count=$(walk "$clusterMonHistSourceName" | awk '$2 == "\"tcp.rtt\"" { split($1, o, "."); print o[length(o)] }')
check "tcp.rtt is a distribution source" test -n "$rtt_count"
check "tcp.rtt has samples" test "$(get "$clusterMonHistSourceCount.${rtt_count:-0}")" -gt 0

# closed connections go
kill "$CONNS_PID"; wait "$CONNS_PID" 2>/dev/null
sleep 0.6
left=$(table | awk -v p="$lport" '$2 == p || $3 == p' | wc -l)
is "$left" 0 "after tcpconns resets them, its connections are gone"
old_max=$(awk '{ print $1 }' "$T/table.1" | sort -n | tail -n 1)

# IPv6
conns 6 20 500 || bail "tcpconns did not open IPv6 connections"
lport6=$(awk '/^conn/ { print $3; exit }' "$T/conns.6")
sleep 0.5
table >"$T/table.6"
is "$(awk -v p="$lport6" '($2 == p || $3 == p) && $4 == 1' "$T/table.6" | wc -l)" 40 "20 IPv6 connections: 40 established rows"
check "their local address is ::1" test "$(awk -v p="$lport6" '$2 == p && $9 != "00000000000000000000000000000001"' "$T/table.6" | wc -l)" -eq 0
check "and their indexes are new ones (above $old_max)" \
	test "$(awk -v p="$lport6" -v m="$old_max" '($2 == p || $3 == p) && $1 <= m' "$T/table.6" | wc -l)" -eq 0

# tcpFilter: the kernel keeps only the client ends (remote port = listener)
printf 'sampleInterval tcp 200\ntcpFilter state=established dport=%s\n' "$lport6" >"$T/tcp.conf"
kill -HUP "$AGENT_PID"
sleep 1
table >"$T/table.f"
is "$(awk -v p="$lport6" '$3 == p' "$T/table.f" | wc -l) $(wc -l <"$T/table.f")" "20 20" \
	"after SIGHUP with tcpFilter dport=: the 20 client ends and nothing else"
kill "$CONNS_PID"; wait "$CONNS_PID" 2>/dev/null
printf 'tcpFilter state=listening\n' >"$T/bad.conf"
out=$(timeout 10 "$CLUSTERMOND" -f -Le -x "$AGENTX" -c "$T/bad.conf" 2>&1)
rc=$?
[ $rc -ne 0 ] && contains "bad.conf: line 1:" "$out" && contains "state=listening" "$out"
ok $? "a tcpFilter with an unknown state is refused with file:line (exit $rc)"
printf 'tcpFilter local=10.0.0.0/33\n' >"$T/bad.conf"
out=$(timeout 10 "$CLUSTERMOND" -f -Le -x "$AGENTX" -c "$T/bad.conf" 2>&1)
rc=$?
[ $rc -ne 0 ] && contains "bad.conf: line 1:" "$out" && contains "local=10.0.0.0/33" "$out"
ok $? "a tcpFilter with a /33 IPv4 prefix is refused with file:line (exit $rc)"
finish
