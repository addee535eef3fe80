#!/bin/bash
# traps.sh - contrib/net-snmp/snmptrapd.conf as shipped: a real snmptrapd
# logs clustermond's notifications with CLUSTER-MON-MIB's names.
. "$(dirname "$0")/lib.sh"

plan 2
TRAPD_PORT=$(free_udp_port) || bail "no free UDP port"
# lib.sh empties MIBS for the tools; the config's mibs line must count here.
env -u MIBS MIBDIRS="$(mib_dirs)" snmptrapd -f -C -c "$top_srcdir/contrib/net-snmp/snmptrapd.conf" \
	-Lf "$T/named-traps.log" -p "$T/trapd.pid" "udp:127.0.0.1:$TRAPD_PORT" &
TRAPD_PID=$!
wait_for "$(slack 5)" grep -q "NET-SNMP version" "$T/named-traps.log" || bail "snmptrapd did not start"
write_master_conf
echo "trap2sink 127.0.0.1:$TRAPD_PORT public" >>"$T/snmpd.conf"
start_master || bail "snmpd did not start"
# A threshold already crossed at start-up: one clusterMonThresholdRising.
printf 'threshold memory %s rising=1 falling=0\n' "$clusterMonMemTotalKB.0" >"$T/traps.conf"
start_agent -c "$T/traps.conf" || bail "clustermond did not register"
wait_for 10 grep -q "clusterMonThresholdRising" "$T/named-traps.log"
check "the rising notification is logged by name" grep -q \
	"SNMPv2-MIB::snmpTrapOID.0 = OID: CLUSTER-MON-MIB::clusterMonThresholdRising" "$T/named-traps.log"
check "its variable too (clusterMonThresholdVariable.1 = clusterMonMemTotalKB.0)" grep -q \
	"CLUSTER-MON-MIB::clusterMonThresholdVariable.1 = OID: CLUSTER-MON-MIB::clusterMonMemTotalKB.0" \
	"$T/named-traps.log"
grep -q "CLUSTER-MON-MIB::clusterMonThresholdRising" "$T/named-traps.log" ||
	diag "$(tail -n 3 "$T/named-traps.log")"
finish
