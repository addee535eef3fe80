#!/bin/bash
# early-start.sh - clustermond started a minute before its master exists:
# it waits without growing (fds, RSS) and registers within one ping
# interval (agentxPingInterval, 2 s by default) of the master appearing.
. "$(dirname "$0")/lib.sh"

plan 3
WAIT=${EARLY_START_SECONDS:-60}
AGENT_WAIT=1 start_agent >/dev/null 2>&1   # no master yet: start_agent's wait fails, the agent stays
kill -0 "$AGENT_PID" 2>/dev/null || bail "clustermond exited without a master"
sleep 5
fds0=$(agent_fds)
rss_steady "no memory growth while waiting" sleep $((WAIT - 5))
fds1=$(agent_fds)
is "$fds1" "$fds0" "no fd growth over ${WAIT}s without a master"
t0=$(date +%s%N)
start_master || bail "snmpd did not start"
ms=never
wait_for $(( $(slack 3000) / 1000 )) get "$clusterMonNodeName.0" && ms=$(( ($(date +%s%N) - t0) / 1000000 ))
[ "$ms" != never ] && [ "$ms" -le "$(slack 3000)" ]
ok $? "registered ${ms} ms after the master was started (ping interval 2 s; $(slack 3000) ms allowed)"
finish
