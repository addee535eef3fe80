#!/bin/bash
# pysnmp.sh - a second, independent SNMP stack (Debian's python3-pysnmp4)
# walks CLUSTER-MON-MIB with GETNEXT and GETBULK over v2c and v3 authPriv and
# gets the same instances, ASN.1 types and stable values as net-snmp's tools
# (Counter64 up to 2^64-1 included), and the same endOfMibView past the end.
. "$(dirname "$0")/lib.sh"

plan 10
PY=/usr/bin/python3
$PY -c 'import pysnmp.hlapi' 2>/dev/null ||
	bail "python3-pysnmp4 is missing for $PY (tests/setup-deps.sh installs it)"
write_master_conf
add_reader_v3
start_master || bail "snmpd did not start"
# Only rows that stay put between the walks: the agent's own process (under
# a name no other process on the machine has, this run's: CI runs the plain
# and the sanitizer suites side by side), no TCP connection (port 1 has
# none), no capture, no helper, and one empty cgroup of this run's (other
# tests make and remove cgroups meanwhile; without root, none).
name="cmwalk${T##*.}"
cp "$CLUSTERMOND" "$T/$name"
CLUSTERMOND="$T/$name"
CG=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
[ -n "$CG" ] && [ "$(id -u)" -eq 0 ] && mkdir "$CG/$name" 2>/dev/null || CG=
trap '[ -z "$CG" ] || rmdir "$CG/$name"; cleanup' EXIT
cat >"$T/py.conf" <<EOC
procFilter name=$name
tcpFilter port=1
cgroupMatch $name
EOC
start_agent -c "$T/py.conf" || bail "clustermond did not register"
# Its first process sample is taken before its sampler threads start, when
# it is single-threaded (CpuNs and RunDelayNs present); let the next one in.
sleep 1.5
"$PY" "$(dirname "$0")/pysnmp_walk.py" 127.0.0.1 "$PORT" "${clusterMonObjects#.}" \
	cmadmin cm-auth-passphrase cm-priv-passphrase 1 || tap_failed=1
tap_n=$((tap_n + 10))
finish
