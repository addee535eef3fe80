#!/bin/bash
# pcap.sh - clusterMonPcapTable on lo: a UDP burst of known count and size
# is counted exactly, pcap.synrtt gains one sample per TCP handshake, and
# pcapInterface lines that are wrong are refused with file:line.
. "$(dirname "$0")/lib.sh"

plan 10
TCPCONNS="$top_builddir/tests/system/tcpconns"
start_master || bail "snmpd did not start"

bad "an interface that does not exist" "pcapInterface nosuch0" "no network interface 'nosuch0'"
bad "a filter that does not compile" 'pcapInterface lo filter "udp port"' "does not compile"
bad "a word that is not filter" 'pcapInterface lo udp' "expected IFNAME"

uport=$(free_udp_port) || bail "no free port"
tport=$(free_tcp_port) || bail "no free TCP port"
# Our UDP port, and only handshake packets of our TCP listener: other
# traffic on lo (snmpd's, other tests') must not count.
printf 'pcapInterface lo filter "udp port %s or (tcp port %s and tcp[tcpflags] & tcp-syn != 0)"\nsampleInterval pcap 100\n' \
	"$uport" "$tport" >"$T/pcap.conf"
start_agent -c "$T/pcap.conf" || bail "clustermond did not register"
P=$clusterMonPcapEntry lo=$(cat /sys/class/net/lo/ifindex)
is "$(get "$P.2.$lo")" '"lo"' "a row for lo, indexed by its ifindex ($lo)"
p0=$(get "$P.3.$lo"); b0=$(get "$P.4.$lo")
# 500 datagrams of 100 bytes: 14 + 20 + 8 + 100 = 142 bytes on lo each.
payload=$(head -c 100 /dev/zero | tr '\0' x)
for _ in $(seq 1 500); do printf '%s' "$payload" >/dev/udp/127.0.0.1/"$uport"; done 2>/dev/null
sleep 0.5
p1=$(get "$P.3.$lo"); b1=$(get "$P.4.$lo")
is "$((p1 - p0))" 500 "clusterMonPcapPackets counts the 500 datagrams"
is "$((b1 - b0))" $((500 * 142)) "clusterMonPcapBytes counts their 142 bytes each"
is "$(get "$P.5.$lo")" 0 "no kernel drops"

syn=$(walk "$clusterMonHistSourceName" | awk '$2 == "\"pcap.synrtt\"" { n = split($1, o, "."); print o[n] }')
check "pcap.synrtt is a distribution source" test -n "$syn"
c0=$(get "$clusterMonHistSourceCount.${syn:-0}")
"$TCPCONNS" 4 25 0 "$tport" >"$T/conns" 2>&1 &
cp=$!
wait_for 10 grep -q ready "$T/conns"
sleep 0.5
kill "$cp"; wait "$cp" 2>/dev/null
c1=$(get "$clusterMonHistSourceCount.${syn:-0}")
is "$((c1 - c0))" 25 "pcap.synrtt gains one sample per handshake (25)"
pk=$(walk "$clusterMonHistSourceName" | awk '$2 == "\"pcap.pktsize\"" { n = split($1, o, "."); print o[n] }')
check "pcap.pktsize holds every captured packet" test "$(get "$clusterMonHistSourceCount.${pk:-0}")" -ge 550
finish
