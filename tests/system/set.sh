#!/bin/bash
# set.sh - clusterMonSourceIntervalMs is writable with a read-write community,
# refused with the right error status otherwise, and takes effect at once.
. "$(dirname "$0")/lib.sh"

plan 11
start_master || bail "snmpd did not start"
# Pinned to its timer: nobody reads the cpu table here, and the samples
# counter must count what the interval asks for, not what demand does.
echo "sampleInterval cpu 100 always" >"$T/set.conf"
start_agent -c "$T/set.conf" || bail "clustermond did not register"
IV="$clusterMonSourceIntervalMs"

check "SET cpu interval to 20 ms with the rw community" contains "Gauge32: 20" "$(set_rw "$IV.1" u 20)"
is "$(get "$IV.1")" 20 "the new interval reads back"
s0=$(get "$clusterMonSourceSamples.1"); sleep 1; s1=$(get "$clusterMonSourceSamples.1")
check "cpu now samples about 50 times a second ($((s1 - s0)))" test $((s1 - s0)) -ge 35 -a $((s1 - s0)) -le 60
check "read-only community gets noAccess" contains "noAccess" "$(set_ro "$IV.1" u 50)"
check "9 ms is wrongValue" contains "wrongValue" "$(set_rw "$IV.1" u 9)"
check "3600001 ms is wrongValue" contains "wrongValue" "$(set_rw "$IV.1" u 3600001)"
check "an INTEGER instead of Unsigned32 is wrongType" contains "wrongType" "$(set_rw "$IV.1" i 50)"
check "clusterMonSourceName is notWritable" contains "notWritable" "$(set_rw "$clusterMonSourceName.1" s x)"
check "a source that does not exist is noCreation" contains "noCreation" "$(set_rw "$IV.9" u 50)"
# A failing varbind undoes the whole request: the good one is not applied.
out=$(set_rw "$IV.2" u 500 "$IV.1" u 5)
check "a mixed request fails as a whole ($(echo $out | head -c 60))" contains "wrongValue" "$out"
is "$(get "$IV.2")" 1000 "mem interval unchanged after the failed request"
finish
