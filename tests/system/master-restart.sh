#!/bin/bash
# master-restart.sh - clustermond starts before its master exists without
# growing, and comes back within 3 s each of 20 times the master is killed
# and restarted, with the same memory and fds after the 20th as after the
# first.
. "$(dirname "$0")/lib.sh"

plan 8
fds() { agent_fds; }
steady_tables
# The subagent first: the master's socket does not exist yet. It retries
# every ping interval (2 s) while it waits: 10 s of that must not grow it.
"$CLUSTERMOND" -f -Lf "$T/clustermond.log" -x "$AGENTX" 2>>"$T/clustermond.stderr" &
AGENT_PID=$!
rss_settle
f0=$(fds)
rss_steady "clustermond's RSS steady while it waits for a master" sleep 10
f1=$(fds)
kill -0 "$AGENT_PID" && [ "$f1" -eq "$f0" ]
ok $? "clustermond keeps running without a master, its fds steady ($f0 -> $f1)"
start_master || bail "snmpd did not start"
check "registers within 3 s (one ping interval and a bit; $(slack 3) s allowed) once the master appears" \
	wait_for "$(slack 3)" get "$clusterMonNodeName.0"

slow=0 worst=0 restarts=0
restart() { # restart N: the master killed and started N times
	local t0 ms
	for _ in $(seq 1 "$1"); do
		stop_master
		start_master || bail "snmpd did not restart"
		restarts=$((restarts + 1))
		t0=$(date +%s%N)
		wait_for "$(slack 3)" get "$clusterMonCpuCount.0" || slow=$((slow + 1))
		ms=$(( ($(date +%s%N) - t0) / 1000000 ))
		[ "$ms" -gt "$worst" ] && worst=$ms
	done
}
restart 1
f0=$(fds)
rss_steady "RSS after the 20th restart as after the 1st" restart 19
is "$slow" 0 "answers again within 3 s ($(slack 3) s allowed) of each of $restarts master restarts (slowest ${worst} ms)"
f1=$(fds)
is "$f1" "$f0" "and the same number of open fds"
sleep 2.5   # the pings of a session that works must not open anything either
is "$(fds)" "$f0" "and still after a ping interval"
# Our counters predate the restarted master: a TimeStamp from before its
# re-initialization is 0 (RFC 2579), never a time after its sysUpTime.
is "$(get "$clusterMonDiscontinuityTime.0")" 0 "clusterMonDiscontinuityTime is 0 after the master restarted"
finish
