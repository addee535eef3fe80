#!/bin/bash
# valgrind.sh - clustermond under valgrind memcheck through a bit of
# everything: whole-MIB walks, read-create SETs (made, changed, refused,
# destroyed), TCP connections and a capture, SIGHUP, a clean exit. Any
# invalid access or definitely lost block fails the run.
. "$(dirname "$0")/lib.sh"

command -v valgrind >/dev/null || missing_all "valgrind is not installed (apt-get install valgrind)"
# The sanitizer build checks the same paths with ASan; valgrind cannot run it.
asan_build &&
	skip_all "clustermond is built with AddressSanitizer (the -Werror build runs this test)"
plan 5
start_master || bail "snmpd did not start"
uport=$(free_udp_port)
cat >"$T/v.conf" <<EOC
threshold t1 $clusterMonMemTotalKB.0 rising=10 falling=5
history h1 $clusterMonCpuUtil.1 100 20
tcpFilter state=established port=1024-65535
pcapInterface lo filter "udp port $uport or (tcp[tcpflags] & tcp-syn != 0)"
EOC
# Errors only (-q); the leak check runs at exit.
AGENT_WAIT=60 CLUSTERMOND_WRAPPER="valgrind -q --leak-check=full --show-leak-kinds=definite --errors-for-leak-kinds=definite" \
	start_agent -c "$T/v.conf" || bail "clustermond did not register under valgrind"
"$top_builddir/tests/system/tcpconns" 4 20 100 >"$T/conns" 2>&1 &
cp=$!
wait_for 20 grep -q ready "$T/conns"
sleep 2
n=$(walk "$clusterMonObjects" | wc -l)
check "a whole-MIB walk under valgrind ($n objects)" test "$n" -gt 100
TH=$clusterMonThresholdEntry H=$clusterMonHistoryCtlEntry
out=$(set_rw "$TH.11.5" i 4 "$TH.2.5" o "$clusterMonMemFreeKB.0" "$TH.5.5" s 100 "$TH.6.5" s 50 \
	"$H.8.5" i 4 "$H.2.5" o "$clusterMonMemFreeKB.0" "$H.3.5" u 100 "$H.4.5" u 10 2>&1)
check "threshold and history rows made in one request" contains "INTEGER: 4" "$out"
set_rw "$TH.6.5" s 500 >/dev/null   # refused: falling above rising
set_rw "$TH.5.5" s 1000 "$H.3.5" u 200 >/dev/null
kill -HUP "$AGENT_PID"; sleep 2
sleep 1
n=$(walk "$clusterMonObjects" | wc -l)
check "another walk after changes and SIGHUP ($n objects)" test "$n" -gt 100
out=$(set_rw "$TH.11.5" i 6 "$H.8.5" i 6)
check "and both rows destroyed" contains "INTEGER: 6" "$out"
kill "$cp"; wait "$cp" 2>/dev/null
stop_agent
errors=$(grep -c '^==[0-9]*==' "$T/clustermond.stderr")
is "$errors" 0 "valgrind reported nothing"
[ "$errors" -eq 0 ] || sed -n '1,60p' "$T/clustermond.stderr" | sed 's/^/# /'
finish
