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
# benchmarks, babeltrace2 (the independent reader of the CTF traces), the
# tools the system tests call, the fleet's pollers (Prometheus, VictoriaMetrics
# with vmagent and vmalert) and nftables for its lossy link, and debootstrap
# and lintian for
# the Debian package test (it builds in a root of its own, so debhelper is
# installed there, not here); sysstat's pidstat, the top-N tables' peer.
TEST_PACKAGES="snmptrapd smitools valgrind libclang-rt-14-dev llvm systemd iproute2 procps
util-linux tcpdump linux-perf bpftrace python3-pysnmp4 nagios4-core prometheus-snmp-exporter
python3-yaml gnuplot-nox debootstrap lintian git babeltrace2
prometheus victoria-metrics nftables curl sysstat"

case ${1:-} in
--build) PACKAGES=$BUILD_PACKAGES ;;
"") PACKAGES="$BUILD_PACKAGES $TEST_PACKAGES" ;;
*) echo "usage: setup-deps.sh [--build]" >&2; exit 2 ;;
esac

"$here/install-missing.sh" setup-deps $PACKAGES
"$here/get-base-mibs.sh"
