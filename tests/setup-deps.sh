#!/bin/sh
# setup-deps.sh [--build] - install what a fresh Debian 12 machine lacks
# (only the missing packages), then the base MIB modules (get-base-mibs.sh).
#   --build  only what building clustermon and running it need: the first
#            README command (contrib/quickstart.sh) uses this, so a newcomer
#            does not install the test toolchain to see the agent work.
#   (none)   that and everything the test suite runs (tests/run-suite.sh).
set -eu
here=$(cd "$(dirname "$0")" && pwd)

# Building: the compiler and autotools, net-snmp's agent library, libpcap,
# libcap, and the eBPF helper's toolchain. Running: snmpd as the master and
# snmp's clients (the quickstart's snmpwalk).
BUILD_PACKAGES="build-essential autoconf automake pkg-config libsnmp-dev libpcap-dev
libcap-dev libbpf-dev bpftool clang snmpd snmp"
# The suite: trap receiver, MIB lint, valgrind, libFuzzer's runtime, llvm's
# symbolizer for sanitizer reports, systemd's unit tools, the integrations'
# real consumers (Nagios, snmp_exporter, pysnmp), bpftrace as the independent
# peer of the helper's run-queue latency, perf and gnuplot for the
# benchmarks, the tools the system tests call, and debootstrap and lintian for
# the Debian package test (it builds in a root of its own, so debhelper is
# installed there, not here).
TEST_PACKAGES="snmptrapd smitools valgrind libclang-rt-14-dev llvm systemd iproute2 procps
util-linux tcpdump linux-perf bpftrace python3-pysnmp4 nagios4-core prometheus-snmp-exporter
python3-yaml gnuplot-nox debootstrap lintian git"

case ${1:-} in
--build) PACKAGES=$BUILD_PACKAGES ;;
"") PACKAGES="$BUILD_PACKAGES $TEST_PACKAGES" ;;
*) echo "usage: setup-deps.sh [--build]" >&2; exit 2 ;;
esac

missing=
for p in $PACKAGES; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
	if [ "$(id -u)" -ne 0 ]; then
		echo "setup-deps: missing packages:$missing; run as root (sudo)" >&2
		exit 1
	fi
	echo "setup-deps: installing$missing"
	export DEBIAN_FRONTEND=noninteractive
	# Other apt users (unattended-upgrades, a second set-up) hold the lock
	# for a while: wait for it rather than fail.
	apt-get -o DPkg::Lock::Timeout=900 update -qq
	# snmpd's own service is not needed: quickstart and the tests run
	# private masters.
	apt-get -o DPkg::Lock::Timeout=900 install -y -qq --no-install-recommends $missing >/dev/null
fi
"$here/get-base-mibs.sh"
