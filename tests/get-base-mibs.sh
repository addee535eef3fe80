#!/bin/sh
# get-base-mibs.sh [DEST] - put the IETF base MIB modules CLUSTER-MON-MIB
# imports (SNMPv2-SMI, SNMPv2-TC, SNMPv2-CONF, SNMPv2-MIB) where net-snmp and
# libsmi both look, when this machine lacks them. Debian's main archive has
# none of them; the npm package "net-snmp" carries them as data files.
# INET-ADDRESS-MIB and HCNUM-TC are in no reachable package: the tests fall
# back to the stand-ins in tests/mibs/ (never installed system-wide).
# Idempotent: does nothing when the modules are already there.
set -eu
dest=${1:-/usr/share/snmp/mibs/ietf}
modules="SNMPv2-SMI SNMPv2-TC SNMPv2-CONF SNMPv2-MIB"

have() {
	for d in "$dest" /usr/share/snmp/mibs /usr/share/snmp/mibs/ietf /usr/share/mibs/ietf; do
		for ext in "" .txt .mib .my; do
			[ -f "$d/$1$ext" ] && return 0
		done
	done
	return 1
}

missing=
for m in $modules; do have "$m" || missing="$missing $m"; done
if [ -z "$missing" ]; then
	echo "get-base-mibs: base modules present"
	exit 0
fi
command -v npm >/dev/null 2>&1 || {
	echo "get-base-mibs: need npm to fetch$missing (apt-get install npm)" >&2
	exit 1
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent net-snmp@3 >/dev/null 2>&1) || {
	echo "get-base-mibs: npm pack net-snmp failed" >&2
	exit 1
}
tar -xzf "$tmp"/net-snmp-*.tgz -C "$tmp"
mkdir -p "$dest"
for m in $missing; do
	src="$tmp/package/lib/mibs/$m.mib"
	[ -f "$src" ] || { echo "get-base-mibs: $m not in the npm package" >&2; exit 1; }
	cp "$src" "$dest/$m.txt"
	echo "get-base-mibs: installed $dest/$m.txt (from npm net-snmp)"
done
