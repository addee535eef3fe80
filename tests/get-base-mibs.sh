#!/bin/sh
# get-base-mibs.sh [DEST] - make sure net-snmp and libsmi can resolve the IETF
# base modules CLUSTER-MON-MIB imports, and say where each one comes from.
# In this order, module by module:
#   1. present: already installed (a distribution package, download-mibs, an
#      earlier run of this script);
#   2. erlang-snmp: Debian main's erlang-snmp ships SNMPv2-SMI/TC/CONF/MIB and
#      INET-ADDRESS-MIB as text; `apt-get download` and `dpkg-deb -x` take the
#      files without installing Erlang; copied to DEST;
#   3. npm: the npm package net-snmp carries the SNMPv2 ones as data files,
#      used only where apt cannot fetch erlang-snmp and npm is installed;
#   4. stand-in: tests/mibs/ has minimal INET-ADDRESS-MIB and HCNUM-TC (no
#      reachable package has HCNUM-TC); the tests and quickstart put that
#      directory last on the path, so it counts only when nothing else has
#      the module. Never installed system-wide.
# DEST defaults to /usr/share/snmp/mibs/ietf, on net-snmp's default path on
# Debian. Idempotent: run again, it finds the modules "present".
# BASE_MIB_DIRS (colon-separated) replaces the system directories searched
# first (tests use it to start from an empty machine).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
dest=${1:-/usr/share/snmp/mibs/ietf}
dirs=${BASE_MIB_DIRS-/usr/share/snmp/mibs:/usr/share/snmp/mibs/ietf:/usr/share/snmp/mibs/iana:/usr/share/mibs/ietf:/usr/share/mibs/iana:/usr/local/share/snmp/mibs}
modules="SNMPv2-SMI SNMPv2-TC SNMPv2-CONF SNMPv2-MIB INET-ADDRESS-MIB HCNUM-TC"

# found MODULE: the file that holds it, on the system or in DEST.
found() {
	old_ifs=$IFS; IFS=:
	for d in $dirs; do
		for ext in "" .txt .mib .my; do
			if [ -f "$d/$1$ext" ]; then IFS=$old_ifs; echo "$d/$1$ext"; return 0; fi
		done
	done
	IFS=$old_ifs
	for ext in "" .txt .mib .my; do
		[ -f "$dest/$1$ext" ] && { echo "$dest/$1$ext"; return 0; }
	done
	return 1
}

missing=
for m in $modules; do
	if f=$(found "$m"); then
		echo "get-base-mibs: $m: present ($f)"
	else
		missing="$missing $m"
	fi
done
[ -n "$missing" ] || exit 0

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# apt's download runs as the user _apt where it exists: let it write here.
id _apt >/dev/null 2>&1 && chown _apt "$tmp" 2>/dev/null || true

# take SOURCE-NAME DIR EXT: copy the still missing modules found in DIR.
take() {
	still=
	for m in $missing; do
		if [ -f "$2/$m$3" ]; then
			mkdir -p "$dest"
			cp "$2/$m$3" "$dest/$m.txt"
			echo "get-base-mibs: $m: $1 (installed $dest/$m.txt)"
		else
			still="$still $m"
		fi
	done
	missing=$still
}

# 2. erlang-snmp from the configured apt sources. A fresh root has no
# package lists yet: update once and retry.
erl_fetch() { (cd "$tmp" && apt-get download -q erlang-snmp >"$tmp/apt.log" 2>&1); }
if command -v apt-get >/dev/null 2>&1 && command -v dpkg-deb >/dev/null 2>&1; then
	if erl_fetch || { [ "$(id -u)" -eq 0 ] &&
		apt-get -o DPkg::Lock::Timeout=900 update -qq >>"$tmp/apt.log" 2>&1 && erl_fetch; }; then
		deb=$(ls "$tmp"/erlang-snmp_*.deb)
		dpkg-deb -x "$deb" "$tmp/erl"
		ver=$(dpkg-deb -f "$deb" Version)
		for mibdir in "$tmp"/erl/usr/lib/erlang/lib/snmp-*/mibs; do
			take "erlang-snmp $ver" "$mibdir" .mib
		done
	else
		echo "get-base-mibs: apt-get download erlang-snmp failed: $(tail -n 1 "$tmp/apt.log")" >&2
	fi
fi

# 3. npm, for the SNMPv2 modules, only where apt could not help.
case $missing in *SNMPv2-*)
	if command -v npm >/dev/null 2>&1; then
		if (cd "$tmp" && npm pack --silent net-snmp@3 >/dev/null 2>&1); then
			tar -xzf "$tmp"/net-snmp-*.tgz -C "$tmp"
			take "npm net-snmp" "$tmp/package/lib/mibs" .mib
		else
			echo "get-base-mibs: npm pack net-snmp failed" >&2
		fi
	fi
esac

# 4. The stand-ins, left where they are.
still=
for m in $missing; do
	if [ -f "$here/mibs/$m.txt" ]; then
		echo "get-base-mibs: $m: stand-in ($here/mibs/$m.txt, tests and quickstart only)"
	else
		still="$still $m"
	fi
done
if [ -n "$still" ]; then
	echo "get-base-mibs: no source for$still: install erlang-snmp's files (apt-get download" \
		"erlang-snmp) or your distribution's IETF MIB modules, see docs/operations.md" >&2
	exit 1
fi
