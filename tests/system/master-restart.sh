#!/bin/bash
# master-restart.sh - clustermond starts before its master exists, and comes
# back within 3 s each time the master is killed and restarted.
. "$(dirname "$0")/lib.sh"

plan 8
# The subagent first: the master's socket does not exist yet.
"$CLUSTERMOND" -f -Lf "$T/clustermond.log" -x "$AGENTX" 2>>"$T/clustermond.stderr" &
AGENT_PID=$!
sleep 1
check "clustermond keeps running without a master" kill -0 "$AGENT_PID"
start_master || bail "snmpd did not start"
check "registers within 3 s once the master appears" wait_for 3 get "$CM.1.1.0"

for i in 1 2 3 4 5; do
	stop_master
	start_master || bail "snmpd did not restart"
	t0=$(date +%s%N)
	if wait_for 3 get "$CM.3.1.0"; then rc=0; else rc=1; fi
	ok $rc "answers again within 3 s of master restart $i ($(( ($(date +%s%N) - t0) / 1000000 )) ms)"
done
# Our counters predate the restarted master: a TimeStamp from before its
# re-initialization is 0 (RFC 2579), never a time after its sysUpTime.
is "$(get "$CM.1.3.0")" 0 "clusterMonDiscontinuityTime is 0 after the master restarted"
finish
