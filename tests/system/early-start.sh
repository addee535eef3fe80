#!/bin/bash
# early-start.sh - clustermond started well before its master exists: it
# keeps trying (each failed AgentX connect is logged) without growing (fds,
# RSS) and registers within one ping interval (agentxPingInterval, 2 s by
# default) of the master appearing. The wait is counted in connect attempts,
# not seconds: EARLY_START_TRIES (15, about 30 s) after the first two.
. "$(dirname "$0")/lib.sh"

plan 3
TRIES=${EARLY_START_TRIES:-15}
steady_tables
AGENT_WAIT=1 start_agent >/dev/null 2>&1   # no master yet: start_agent's wait fails, the agent stays
kill -0 "$AGENT_PID" 2>/dev/null || bail "clustermond exited without a master"
tries() { grep -c 'Failed to connect to the agentx master' "$T/clustermond.log"; }
tries_reach() { [ "$(tries)" -ge "$1" ]; }
wait_for 60 tries_reach 2 || bail "clustermond logged no second connect attempt in 60 s"
rss_settle
fds0=$(agent_fds)
rss_steady "no memory growth over $TRIES more connect attempts" wait_for 600 tries_reach $((TRIES + 2))
fds1=$(agent_fds)
is "$fds1" "$fds0" "no fd growth over $(tries) connect attempts without a master"
t0=$(date +%s%N)
start_master || bail "snmpd did not start"
ms=never
wait_for $(( $(slack 3000) / 1000 )) get "$clusterMonNodeName.0" && ms=$(( ($(date +%s%N) - t0) / 1000000 ))
[ "$ms" != never ] && [ "$ms" -le "$(slack 3000)" ]
ok $? "registered ${ms} ms after the master was started (ping interval 2 s; $(slack 3000) ms allowed)"
finish
