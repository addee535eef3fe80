#!/bin/bash
# quickstart.sh - on a fresh Debian 12 machine: install what is missing, build
# clustermon, then show the main job: a private snmpd master on loopback,
# clustermond registered with it, and CLUSTER-MON-MIB walked by name.
# Leaves nothing running. Run as root (apt-get, and the master's socket).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)

"$top/tests/setup-deps.sh"
echo "quickstart: building"
cd "$top"
autoreconf -fi >/dev/null 2>&1
mkdir -p build && cd build
[ -f Makefile ] || "$top/configure" -q
make -s -j"$(nproc)" >/dev/null

tmp=$(mktemp -d /tmp/clustermon-quickstart.XXXXXX)
port=$((20000 + RANDOM % 30000))
cleanup() {
	kill "${agent:-}" "${master:-}" 2>/dev/null || true
	wait 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT
export SNMP_PERSISTENT_DIR="$tmp" SNMPCONFPATH="$tmp" MIBS=
cat >"$tmp/snmpd.conf" <<EOC
agentAddress udp:127.0.0.1:$port
master agentx
agentXSocket unix:$tmp/agentx.sock
rocommunity public 127.0.0.1
EOC
echo "quickstart: snmpd on 127.0.0.1:$port, AgentX socket $tmp/agentx.sock"
"$(command -v snmpd || echo /usr/sbin/snmpd)" -f -C -c "$tmp/snmpd.conf" -Lf "$tmp/snmpd.log" &
master=$!
sleep 1
"$top/build/subagent/clustermond" -f -Lf "$tmp/clustermond.log" -x "unix:$tmp/agentx.sock" &
agent=$!
for _ in $(seq 1 50); do
	snmpget -v2c -c public -t 0.2 -r 0 "127.0.0.1:$port" .1.3.6.1.4.1.8072.9999.77.1.1.1.0 >/dev/null 2>&1 && break
	sleep 0.1
done
sleep 0.3
mibs="$top/mibs:/usr/share/snmp/mibs:/usr/share/snmp/mibs/ietf:$top/tests/mibs"
echo "quickstart: snmpwalk -v2c -c public -M $mibs -m CLUSTER-MON-MIB 127.0.0.1:$port CLUSTER-MON-MIB::clusterMonObjects"
snmpwalk -v2c -c public -M "$mibs" -m CLUSTER-MON-MIB "127.0.0.1:$port" CLUSTER-MON-MIB::clusterMonObjects
