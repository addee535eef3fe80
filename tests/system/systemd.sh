#!/bin/bash
# systemd.sh - contrib/systemd as installed: both units pass systemd-analyze
# verify (every key known, every command executable) with this build's
# binaries, their systemd-analyze security exposure is at most what issue 40
# set (clustermond 2.5, the helper 3.5), and sysusers.d/tmpfiles.d make the
# user, its groups and the directories in a scratch root.
. "$(dirname "$0")/lib.sh"

# Before the plan: TAP allows one plan line, and the skip is a plan (1..0).
for tool in systemd-analyze systemd-sysusers systemd-tmpfiles; do
	command -v $tool >/dev/null || missing_all "$tool is missing (Debian: apt-get install systemd)"
done
plan 12
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
# Issue 40, part 5: the exposure systemd-analyze gives each unit as built
# (0 is the least, 10 the most; Debian 12's snmpd.service has 9.6). The
# targets are the issue's; docs/operations.md has the scores.
exposure() {
	systemd-analyze security --offline=true "$1" 2>&1 |
		sed -n 's/^.*Overall exposure level for .*: \([0-9][0-9.]*\) .*$/\1/p'
}
at_most() { awk -v got="$1" -v max="$2" 'BEGIN { exit !(got != "" && got + 0 <= max + 0) }'; }
for u in clustermond:2.5 clustermon-kprobe:3.5; do
	got=$(exposure "$T/${u%:*}.service")
	at_most "$got" "${u#*:}"
	ok $? "${u%:*}.service: systemd-analyze security exposure ${got:-(none)}, at most ${u#*:}"
	[ -n "$got" ] || diag "$(systemd-analyze security --offline=true "$T/${u%:*}.service" 2>&1 | tail -3)"
done
# What the scores rest on, each a line of its own: a unit edited past
# them fails here with the key's name, not only with a number.
d="$units/clustermond.service.in"
grep -qx 'NoNewPrivileges=yes' "$d" && grep -qx 'UMask=0077' "$d" &&
	grep -qx 'ProtectKernelTunables=yes' "$d" && grep -qx 'MemoryDenyWriteExecute=yes' "$d" &&
	grep -qx 'SystemCallFilter=@system-service bpf perf_event_open' "$d" &&
	! grep -qE '^CapabilityBoundingSet=.*(CAP_SYS_PTRACE|CAP_DAC_)' "$d" &&
	! grep -q '^ProtectProc=invisible' "$d"
ok $? "clustermond.service: no_new_privs, umask 0077, the Protect*/Restrict* set, @system-service with bpf and perf_event_open, no ptrace or DAC capability, every process's /proc visible"
h="$units/clustermon-kprobe.service.in"
caps=$(sed -n 's/^CapabilityBoundingSet=//p' "$h")
[ "$caps" = "CAP_BPF CAP_PERFMON CAP_SYS_ADMIN" ] && grep -qx 'NoNewPrivileges=yes' "$h" &&
	grep -qx 'SystemCallFilter=@system-service bpf perf_event_open' "$h" &&
	grep -qx 'UMask=0077' "$h" && grep -qx 'ProtectKernelTunables=yes' "$h"
ok $? "clustermon-kprobe.service: CAP_BPF CAP_PERFMON CAP_SYS_ADMIN only (got: $caps), no_new_privs, umask 0077, @system-service with bpf and perf_event_open"
root="$T/root"
mkdir -p "$root/etc"
systemd-sysusers --root="$root" "$units/clustermon.sysusers" >/dev/null 2>&1
grep -q '^clustermon:x:[0-9]*:[0-9]*:.*:/nonexistent:' "$root/etc/passwd"
ok $? "sysusers.d makes the system user clustermon"
grep -q '^Debian-snmp:x:[0-9]*:.*clustermon' "$root/etc/group"
ok $? "and puts it in Debian-snmp (the AgentX socket's group)"
grep -q '^clustermon-traces:x:[0-9]*:$' "$root/etc/group" &&
	grep -q -- '-G clustermon-traces' "$units/clustermon-kprobe.service.in" &&
	grep -qx 'SupplementaryGroups=clustermon clustermon-traces' "$units/clustermon-kprobe.service.in"
ok $? "and the trace readers' group, empty, which the helper's unit gives its traces (-G) and is a member of"
systemd-tmpfiles --create --root="$root" "$units/clustermon.tmpfiles" >/dev/null 2>&1
is "$(stat -c %a "$root/run/clustermon")" 755 "tmpfiles.d makes /run/clustermon for the helper's socket"
uid=$(awk -F: '$1 == "clustermon" { print $3 }' "$root/etc/passwd")
is "$(stat -c '%a %u' "$root/var/lib/clustermon")" "750 $uid" "and /var/lib/clustermon, 0750 clustermon's"
finish
