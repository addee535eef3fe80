#!/bin/bash
# walk.sh - clustermond registers with a private snmpd master and its groups
# walk completely, with the right shape, and bad instances are refused.
. "$(dirname "$0")/lib.sh"

plan 22
start_master || bail "snmpd did not start"
start_agent || bail "clustermond did not register"

w=$(walk "$clusterMonObjects"); walk_rc=$?
ncpu=$(grep -c '^cpu[0-9]' /proc/stat)

is "$(get "$clusterMonNodeName.0")" "\"$(uname -n)\"" "clusterMonNodeName is the node's name"
version=$(get "$clusterMonAgentVersion.0")
check "clusterMonAgentVersion is a version string ($version)" grep -Eq '^"[0-9]+\.[0-9]+\.[0-9]+' <<<"$version"
check "clusterMonDiscontinuityTime is present" get "$clusterMonDiscontinuityTime.0"
is "$(get "$clusterMonHelperStatus.0")" 2 "clusterMonHelperStatus is absent(2) without the helper"

is "$(get "$clusterMonSourceName.1")" '"cpu"' "source 1 is cpu"
is "$(get "$clusterMonSourceName.2")" '"mem"' "source 2 is mem"
is "$(get "$clusterMonSourceIntervalMs.1")" 100 "cpu samples every 100 ms by default"
is "$(get "$clusterMonSourceIntervalMs.2")" 1000 "mem samples every 1000 ms by default"

is "$(get "$clusterMonCpuCount.0")" "$ncpu" "clusterMonCpuCount equals the online CPUs"
is "$(grep -c "^$clusterMonCpuUtil\." <<<"$w")" "$ncpu" "one clusterMonCpuUtil row per online CPU"
is "$(grep -c "^$clusterMonCpuUserMs\.1 " <<<"$w")" 1 "clusterMonCpuIndex starts at CPU 0 + 1"
cols=$(grep "^$clusterMonCpuEntry\.[0-9]*\.1 " <<<"$w" | sed "s/^$clusterMonCpuEntry.\([0-9]*\).*/\1/" | tr '\n' ' ')
is "$cols" "2 3 4 5 6 7 8 9 10 12 " "CPU columns user..steal, util and context switches (busy ns needs the helper)"
check "memory group has all twelve counters" test "$(grep -c "^$clusterMonMemory\.\([1-9]\|1[0-2]\)\.0 " <<<"$w")" -eq 12
if [ -r /proc/pressure/cpu ]; then
	check "PSI avg10 scalars are served" grep -q "^$clusterMonPressureCpuSome10.0 " <<<"$w"
else
	check "PSI avg10 scalars are absent without /proc/pressure" lacks "^$clusterMonPressureCpuSome10.0 " "$w"
fi
check "the walk ends cleanly (exit 0, no timeout, OIDs increasing)" \
	sh -c "[ $walk_rc -eq 0 ] && ! grep -q '^Timeout\|^Error in packet\|OID not increasing' \"\$1\"" _ <(echo "$w")

# Malformed instances: noSuchInstance; unknown objects: noSuchObject.
check "clusterMonCpuUtil.0 (CPU index 0) is noSuchInstance" grep -q "No Such Instance" <<<"$(get_raw "$clusterMonCpuUtil.0")"
check "clusterMonCpuUtil.4294967295 is noSuchInstance" grep -q "No Such Instance" <<<"$(get_raw "$clusterMonCpuUtil.4294967295")"
check "clusterMonCpuUtil.1.1 (index too long) is noSuchInstance" grep -q "No Such Instance" <<<"$(get_raw "$clusterMonCpuUtil.1.1")"
check "clusterMonCpuUtil without index is noSuchInstance" grep -q "No Such Instance" <<<"$(get_raw "$clusterMonCpuUtil")"
check "clusterMonCpuCount.1 is noSuchInstance" grep -q "No Such Instance" <<<"$(get_raw "$clusterMonCpuCount.1")"
check "an unknown column is noSuchObject" grep -q "No Such Object" <<<"$(get_raw "$clusterMonCpuEntry.99.1")"

# By name, when the base MIB modules are installed (tests/get-base-mibs.sh).
if snmptranslate -M "$(mib_dirs)" -m +CLUSTER-MON-MIB -On CLUSTER-MON-MIB::clusterMonCpuUtil >/dev/null 2>&1; then
	out=$(snmpwalk -v2c -c public -M "$(mib_dirs)" -m +CLUSTER-MON-MIB "$TARGET" CLUSTER-MON-MIB::clusterMonCpuUtil 2>&1)
	check "snmpwalk by name prints CLUSTER-MON-MIB::clusterMonCpuUtil.1" grep -q '^CLUSTER-MON-MIB::clusterMonCpuUtil.1 = Gauge32: ' <<<"$out"
else
	missing "base MIB modules not installed: run tests/get-base-mibs.sh"
fi
finish
