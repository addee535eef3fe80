#!/bin/sh
# setup-deps.sh - install what a fresh Debian 12 machine lacks to build and
# test clustermon (only the missing packages), then the base MIB modules.
set -eu
here=$(cd "$(dirname "$0")" && pwd)

PACKAGES="build-essential autoconf automake pkg-config libsnmp-dev snmpd snmp
snmptrapd libpcap-dev libcap-dev libbpf-dev bpftool clang llvm libclang-rt-14-dev smitools iproute2
procps util-linux systemd valgrind tcpdump linux-perf python3-pysnmp4 nagios4-core
prometheus-snmp-exporter python3-yaml gnuplot-nox"

missing=
for p in $PACKAGES; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
command -v npm >/dev/null 2>&1 || missing="$missing npm"
if [ -n "$missing" ]; then
	if [ "$(id -u)" -ne 0 ]; then
		echo "setup-deps: missing packages:$missing; run as root (sudo)" >&2
		exit 1
	fi
	echo "setup-deps: installing$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	# snmpd's own service is not needed: the tests run private masters.
	apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi
"$here/get-base-mibs.sh"
