#!/bin/bash
# security.sh - contrib/net-snmp/snmpd.conf.fragment, as shipped, in front of
# clustermond: v2c reads but never writes, only from localhost and without
# the process and TCP connection tables (issue 40), which the v3 user reads;
# the v3 authPriv user writes the threshold, history, distribution and trace
# tables (an administrator's credential) and nothing else, authNoPriv is refused, a
# wrong community gets no answer, and the AgentX socket has the fragment's
# modes. The fragment loads clustermon.so: nobody can load or unload snmpd
# modules through dlmodTable, and the image the module reads is 0640.
. "$(dirname "$0")/lib.sh"

plan 23
getent group Debian-snmp >/dev/null || bail "group Debian-snmp missing (Debian's snmpd package creates it)"
# The fragment with this test's socket (in a directory snmpd makes, so the
# directory mode applies) and port; the user's passphrases.
AGENTX="unix:$T/agentx/master"
sed -e "s|unix:/var/agentx/master|$AGENTX|" -e "s|^dlmod  *clustermon\$|dlmod clustermon $MODULE|" \
	-e "s|^clustermonSnapshot .*|clustermonSnapshot $IMAGE|" \
	"$top_srcdir/contrib/net-snmp/snmpd.conf.fragment" >"$T/snmpd.conf"
cat >>"$T/snmpd.conf" <<EOC
agentAddress udp:$TARGET
createUser cmadmin SHA-256 "cm-auth-passphrase" AES "cm-priv-passphrase"
EOC
start_master || bail "snmpd did not start with the fragment"
start_agent || bail "clustermond did not register"

v3() { # v3 LEVEL COMMAND ARGS...: as cmadmin
	local level=$1 cmd=$2; shift 2
	local priv=(); [ "$level" = authPriv ] && priv=(-x AES -X cm-priv-passphrase)
	"$cmd" -v3 -u cmadmin -l "$level" -a SHA-256 -A cm-auth-passphrase "${priv[@]}" \
		-t 2 -r 0 -On "$TARGET" "$@" 2>&1
}
TH=$clusterMonThresholdEntry
check "v2c public reads the MIB" get "$clusterMonNodeName.0"
check "v2c public gets noAccess on a SET" contains noAccess "$(set_ro "$TH.11.3" i 4 "$TH.2.3" o "$clusterMonMemTotalKB.0" "$TH.5.3" s 9 "$TH.6.3" s 1)"
# Processes and connections name users, commands and peers: v3 only.
start_idle() { sleep 300 & IDLE=$!; }
start_idle
wait_for 5 sh -c "snmpget -v3 -u cmadmin -l authPriv -a SHA-256 -A cm-auth-passphrase -x AES -X cm-priv-passphrase -t 2 -r 0 -On '$TARGET' '$clusterMonProcName.$IDLE' 2>&1 | grep -q STRING"
check "v2c public reads no row of clusterMonProcTable" \
	contains "No Such Object" "$(get_raw "$clusterMonProcName.$IDLE")"
no_v2c_rows() { ! snmpwalk -v2c -c public -t 2 -r 0 -On "$TARGET" "$1" 2>&1 | grep -q "^$1\."; }
open_conns 3
check "nor of clusterMonProcTopTable or clusterMonTcpConnTable" \
	sh -c "$(declare -f no_v2c_rows); TARGET='$TARGET'; no_v2c_rows '$clusterMonProcTopTable' && no_v2c_rows '$clusterMonTcpConnTable'"
check "but reads the TCP totals (clusterMonTcpActiveOpens)" contains Counter64 "$(get_raw "$clusterMonTcpActiveOpens.0")"
check "the v3 authPriv user reads that process's row" contains "STRING" \
	"$(v3 authPriv snmpget "$clusterMonProcName.$IDLE")"
kill "$IDLE" 2>/dev/null; wait "$IDLE" 2>/dev/null
check "the fragment lets v2c in from localhost only (no 'default' source)" \
	sh -c "! grep -qE '^[[:space:]]*rocommunity[[:space:]].*[[:space:]]default([[:space:]]|\$)' '$top_srcdir/contrib/net-snmp/snmpd.conf.fragment' &&
	       grep -qE '^rocommunity[[:space:]]+public[[:space:]]+localhost[[:space:]]' '$top_srcdir/contrib/net-snmp/snmpd.conf.fragment'"
out=$(snmpget -v2c -c wrong -t 1 -r 0 "$TARGET" "$clusterMonNodeName.0" 2>&1)
check "a wrong community gets no answer" contains Timeout "$out"
out=$(v3 authPriv snmpset "$TH.11.3" i 4 "$TH.2.3" o "$clusterMonMemTotalKB.0" "$TH.5.3" s 9 "$TH.6.3" s 1)
check "the v3 authPriv user creates a threshold row" contains "INTEGER: 4" "$out"
out=$(v3 authPriv snmpset "$clusterMonHistoryCtlRowStatus.3" i 4 "$clusterMonHistoryCtlVariable.3" o "$clusterMonMemFreeKB.0")
check "and a history row" contains "INTEGER: 4" "$out"
out=$(v3 authPriv snmpset "$clusterMonDistRowStatus.3" i 5 "$clusterMonDistSpec.3" s \
	"value tracepoint:syscalls:sys_exit_read ret")
check "and a distribution row" contains "INTEGER: 5" "$out"
out=$(v3 authPriv snmpset "$clusterMonTraceRowStatus.3" i 5 "$clusterMonTraceSpec.3" s sched_switch)
check "and a trace row" contains "INTEGER: 5" "$out"
check "which v2c may not" contains noAccess \
	"$(set_ro "$clusterMonTraceRowStatus.4" i 5 "$clusterMonTraceSpec.4" s sched_switch)"
out=$(v3 authPriv snmpset "$clusterMonSourceIntervalMs.1" u 50)
check "but outside its write view (a sampling interval) gets noAccess" contains noAccess "$out"
out=$(v3 authNoPriv snmpget "$clusterMonNodeName.0")
check "authNoPriv is refused: authorizationError" contains authorizationError "$out"
DLMOD_STATUS=.1.3.6.1.4.1.2021.13.14.2.1.5.1
check "the fragment's dlmod line loads clustermon.so into snmpd" grep -q "$MODULE" "/proc/$MASTER_PID/maps"
check "v2c cannot unload it through dlmodTable" contains noAccess "$(set_ro "$DLMOD_STATUS" i 2)"
check "nor can the v3 user: dlmodTable is outside its write view" \
	contains noAccess "$(v3 authPriv snmpset "$DLMOD_STATUS" i 2)"
is "$(stat -c %a "$IMAGE")" 640 "the image the module reads: owner writes, group reads, others nothing"
check "the module file is writable by its owner only" sh -c "[ \$(( 0\$(stat -c %a '$MODULE') & 022 )) -eq 0 ]"
sock=${AGENTX#unix:}
is "$(stat -c %a "$sock") $(stat -c %a "$(dirname "$sock")")" "660 755" \
	"the AgentX socket and its directory have the fragment's modes (0660, 0755)"
# What a subagent that dropped root meets when it reconnects: a member of
# Debian-snmp gets through, anyone else does not.
chmod 0755 "$T"
connect_as() { # GROUPS: connect to the socket as nobody with those groups
	# /usr/bin/python3: the one on PATH may be root's own (pyenv).
	setpriv --reuid=nobody --regid=nogroup --groups="$1" /usr/bin/python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])' "$sock" 2>&1
}
out=$(connect_as "$(getent group Debian-snmp | cut -d: -f3)"); rc=$?
ok $rc "a member of Debian-snmp (not root) reaches the socket${out:+: $out}"
out=$(connect_as "$(getent group nogroup | cut -d: -f3)"); rc=$?
[ $rc -ne 0 ] && contains "Permission denied" "$out"; ok $? "anyone else does not (Permission denied)"
finish
