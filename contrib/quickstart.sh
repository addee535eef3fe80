#!/bin/bash
# quickstart.sh [--stay] - on a fresh Debian 12 machine: install what building
# and running clustermon need (not the test toolchain: tests/run-suite.sh
# installs that), build it, then show it working on one screen: a private
# snmpd master on loopback, clustermond registered with it, clustermonctl's
# overview, and CLUSTER-MON-MIB's system group walked by name. Prints the
# snmpwalk that shows everything. Leaves nothing running, unless --stay:
# then the two daemons run until Ctrl-C, to try that walk and clustermonctl.
# Run as root (apt-get, and the master's socket).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
case ${1:-} in
--stay) stay=1 ;;
"") stay= ;;
*) echo "usage: contrib/quickstart.sh [--stay]" >&2; exit 2 ;;
esac

"$top/tests/setup-deps.sh" --build
echo "quickstart: building in $top/build"
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
# The overview shows rates: let cpu (100 ms) and proc (1 s) sample twice.
sleep 2.5
ctl="$top/build/contrib/clustermonctl -v 2c -c public 127.0.0.1:$port"
echo "quickstart: clustermonctl -v 2c -c public 127.0.0.1:$port overview"
$ctl overview
# The stand-ins in tests/mibs come last: real modules win where they exist.
mibs="$top/mibs:/usr/share/snmp/mibs:/usr/share/snmp/mibs/ietf:$top/tests/mibs"
walk="snmpwalk -v2c -c public -M $mibs -m CLUSTER-MON-MIB 127.0.0.1:$port"
echo
echo "quickstart: $walk CLUSTER-MON-MIB::clusterMonSystem"
$walk CLUSTER-MON-MIB::clusterMonSystem
echo
echo "quickstart: everything (thousands of lines, a row per process and connection):"
echo "  $walk CLUSTER-MON-MIB::clusterMonObjects"
if [ -n "$stay" ]; then
	echo "quickstart: snmpd and clustermond keep running; Ctrl-C stops them"
	wait "$agent"
else
	echo "quickstart: done, nothing left running (contrib/quickstart.sh --stay keeps the agent up to try it)"
fi
