#!/bin/bash
# config.sh - clustermond.conf: bad lines are refused with file:line and the
# reason; SIGHUP applies a good file and keeps the old one when the new is bad;
# SIGTERM exits cleanly and removes the pidfile.
. "$(dirname "$0")/lib.sh"

plan 24
start_master || bail "snmpd did not start"

bad "an interval below 10 ms" "sampleInterval cpu 5" "10..3600000"
bad "an unknown source" "sampleInterval disk 100" "unknown source 'disk'"
bad "a missing argument" "sampleInterval cpu" "expected SOURCE MILLISECONDS"
bad "a non-number" "sampleInterval mem 1s" "'1s' is not a number"
bad "a relative helper socket" "helperSocket run/x.sock" "absolute path"
bad "a misspelt directive" "sampleIntervall cpu 100" "Unknown token: sampleIntervall"
bad "an interval above an hour" "sampleInterval cpu 3600001" "10..3600000"
bad "a word too many" "sampleInterval cpu 100 always fast" "expected SOURCE MILLISECONDS"
bad "a mode other than always" "sampleInterval cpu 100 fast" "is not \"always\""
bad "a negative interval" "sampleInterval cpu -100" "is not a number"
bad "procFilter without a word" "procFilter" "Blank line following procFilter"
bad "procFilter with a word it does not know" "procFilter top=x" "'top=x' is not"
bad "procFilter with a user that does not exist" "procFilter uid=nosuchuser9" "'uid=nosuchuser9' is not"
bad "helperSocket with two paths" "helperSocket /run/a /run/b" "one absolute path"
bad "pcapInterface with an empty filter" 'pcapInterface lo filter ""' "empty"
bad "tcpFilter without a word" "tcpFilter" "Blank line following tcpFilter"
bad "tcpFilter with a port range upside down" "tcpFilter port=90-80" "'port=90-80' is not"

echo "sampleInterval cpu 250" >"$T/good.conf"
start_agent -c "$T/good.conf" || bail "clustermond did not start with a good config"
is "$(get "$clusterMonSourceIntervalMs.1")" 250 "sampleInterval from -c FILE is in force"

echo "sampleInterval cpu 50" >"$T/good.conf"
kill -HUP "$AGENT_PID"
check "SIGHUP applies the new interval" wait_for 3 sh -c "[ \"\$(snmpget -v2c -c public -Oqv $TARGET $clusterMonSourceIntervalMs.1)\" = 50 ]"
printf 'sampleInterval cpu 70\nsampleInterval cpu 1\n' >"$T/good.conf"
kill -HUP "$AGENT_PID"
sleep 1
is "$(get "$clusterMonSourceIntervalMs.1")" 50 "SIGHUP with a broken file keeps the running configuration"
check "the broken file is reported with its line" grep -q "good.conf: line 2:" "$T/clustermond.log"
check "clustermond still answers after the bad reload" get "$clusterMonNodeName.0"

kill -TERM "$AGENT_PID"
wait "$AGENT_PID"; rc=$?; AGENT_PID=
is "$rc" 0 "SIGTERM exits with status 0"
check "the pidfile is removed on exit" test ! -e "$T/clustermond.pid"
finish
