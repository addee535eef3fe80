#!/bin/bash
# systemd.sh - contrib/systemd as installed: both units pass systemd-analyze
# verify (every key known, every command executable) with this build's
# binaries, and sysusers.d/tmpfiles.d make the user, its groups and the
# directories in a scratch root.
. "$(dirname "$0")/lib.sh"

# Before the plan: TAP allows one plan line, and the skip is a plan (1..0).
for tool in systemd-analyze systemd-sysusers systemd-tmpfiles; do
	command -v $tool >/dev/null || missing_all "$tool is missing (Debian: apt-get install systemd)"
done
plan 7
units="$top_srcdir/contrib/systemd"
sed "s|@sbindir@/clustermond|$CLUSTERMOND|" "$units/clustermond.service.in" >"$T/clustermond.service"
sed "s|@sbindir@/clustermon-kprobe|$KPROBE_HELPER|" "$units/clustermon-kprobe.service.in" \
	>"$T/clustermon-kprobe.service"
for u in clustermond clustermon-kprobe; do
	if [ $u = clustermon-kprobe ] && [ ! -x "$KPROBE_HELPER" ]; then
		missing "clustermon-kprobe is not built (configure --disable-helper)"
		continue
	fi
	out=$(cd "$T" && systemd-analyze verify --man=no "$T/$u.service" 2>&1)
	rc=$?
	[ $rc -eq 0 ] && [ -z "$out" ]; ok $? "$u.service passes systemd-analyze verify (exit $rc)"
	[ -z "$out" ] || diag "$out"
done
# Issue 40: the helper needs neither CAP_CHOWN nor CAP_DAC_OVERRIDE (it is a
# member of the socket's group and writes only in root-owned directories).
caps=$(sed -n 's/^CapabilityBoundingSet=//p' "$units/clustermon-kprobe.service.in")
! grep -qE 'CAP_CHOWN|CAP_DAC_OVERRIDE' <<<"$caps" &&
	grep -qx 'PrivateDevices=yes' "$units/clustermon-kprobe.service.in" &&
	grep -qx 'StateDirectory=clustermon-kprobe' "$units/clustermon-kprobe.service.in" &&
	grep -q '^MemoryMax=' "$units/clustermon-kprobe.service.in" &&
	grep -q '^LimitMEMLOCK=' "$units/clustermon-kprobe.service.in"
ok $? "the helper's unit: no CAP_CHOWN or CAP_DAC_OVERRIDE ($caps), PrivateDevices, a StateDirectory of its own, MemoryMax= and LimitMEMLOCK="
root="$T/root"
mkdir -p "$root/etc"
systemd-sysusers --root="$root" "$units/clustermon.sysusers" >/dev/null 2>&1
grep -q '^clustermon:x:[0-9]*:[0-9]*:.*:/nonexistent:' "$root/etc/passwd"
ok $? "sysusers.d makes the system user clustermon"
grep -q '^Debian-snmp:x:[0-9]*:.*clustermon' "$root/etc/group"
ok $? "and puts it in Debian-snmp (the AgentX socket's group)"
systemd-tmpfiles --create --root="$root" "$units/clustermon.tmpfiles" >/dev/null 2>&1
is "$(stat -c %a "$root/run/clustermon")" 755 "tmpfiles.d makes /run/clustermon for the helper's socket"
uid=$(awk -F: '$1 == "clustermon" { print $3 }' "$root/etc/passwd")
is "$(stat -c '%a %u' "$root/var/lib/clustermon")" "750 $uid" "and /var/lib/clustermon, 0750 clustermon's"
finish
