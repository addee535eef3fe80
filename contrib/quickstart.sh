#!/bin/bash
# quickstart.sh [--stay] - on a fresh Debian 12 machine: install what building
# and running clustermon need (not the test toolchain: tests/run-suite.sh
# installs that), build it, then show it working on one screen: a private
# snmpd master on loopback, the eBPF helper clustermon-kprobe, clustermond
# registered with the one and fed by the other with a probe counting
# openat() calls, clustermonctl's overview (with the run-queue latency
# distribution and the probe's count), and CLUSTER-MON-MIB's system group
# walked by name. Prints the snmpwalk that shows everything. Leaves nothing
# running, unless --stay: then the daemons run until Ctrl-C, to try that
# walk and clustermonctl. Run as root (apt-get, BPF, the master's socket).
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
	kill "${agent:-}" "${helper:-}" "${master:-}" 2>/dev/null || true
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
kprobe="$top/build/kprobe-helper/clustermon-kprobe"
if [ -x "$kprobe" ]; then
	echo "quickstart: clustermon-kprobe on $tmp/kprobe.sock, a probe on openat()"
	"$kprobe" -f -s "$tmp/kprobe.sock" -t "$tmp/traces" 2>"$tmp/kprobe.log" &
	helper=$!
	# clustermond reads clustermond.conf from SNMPCONFPATH ($tmp).
	printf 'helperSocket %s\nprobe tracepoint:syscalls:sys_enter_openat\n' \
		"$tmp/kprobe.sock" >"$tmp/clustermond.conf"
	for _ in $(seq 1 50); do [ -S "$tmp/kprobe.sock" ] && break; sleep 0.1; done
else
	echo "quickstart: no clustermon-kprobe was built (clang, bpftool or libbpf-dev missing):" \
		"no scheduler latency or probes"
fi
sleep 1
"$top/build/subagent/clustermond" -f -Lf "$tmp/clustermond.log" -x "unix:$tmp/agentx.sock" &
agent=$!
get() { snmpget -v2c -c public -t 0.2 -r 0 -Oqv "127.0.0.1:$port" "$1" 2>/dev/null; }
# An object's OID from the header the build makes from the MIB.
oid_of() {
	sed -n "s/^#define CM_OID_$1 \([0-9, ]*\)\$/.\1/p" "$top/build/subagent/mib/cm-oids.h" | sed 's/, /./g'
}
for _ in $(seq 1 50); do
	get "$(oid_of clusterMonNodeName).0" >/dev/null && break
	sleep 0.1
done
# The overview shows rates: let cpu (100 ms) and proc (1 s) sample twice;
# with the helper, wait for the probe to be up (clusterMonProbeOperStatus.1
# is 1; loading its BPF program takes a moment on a busy machine).
sleep 2.5
for _ in $(seq 1 100); do
	[ -z "${helper:-}" ] && break
	[ "$(get "$(oid_of clusterMonProbeOperStatus).1")" = 1 ] && break
	sleep 0.1
done
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
