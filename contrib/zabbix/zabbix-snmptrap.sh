#!/bin/sh
# zabbix-snmptrap.sh: an snmptrapd traphandle that appends each trap to the
# Zabbix server's SNMPTrapperFile in the format its snmptrapper reads, so
# the template's snmptrap["..."] items get clustermond's notifications.
# Debian's Zabbix packages do not ship zabbix_trap_receiver.pl, and that
# one needs snmptrapd's embedded Perl; this needs only sh.
#   snmptrapd.conf:  authCommunity log,execute public
#                    traphandle default /usr/lib/clustermon/zabbix-snmptrap.sh
# Run snmptrapd with -On: the template's trap keys match numeric OIDs.
# ZABBIX_TRAP_FILE overrides the file (SNMPTrapperFile in zabbix_server.conf).
file=${ZABBIX_TRAP_FILE:-/var/lib/zabbix/snmptraps/snmptraps.log}
read -r host
read -r transport
# "UDP: [192.0.2.7]:41234->[192.0.2.1]:162": Zabbix finds the host by the
# first address, the sender's, among its SNMP interfaces.
addr=$(printf '%s\n' "$transport" | sed -n 's/^[A-Z0-9]*: \[\([^]]*\)\].*/\1/p')
# Zabbix starts a new trap wherever the word ZBXTRAP appears, even inside a
# line, and gives it to the address that follows: a varbind holding it (the
# name of an OOM-killed process or of its cgroup, which a node's user
# chooses) would pass the rest of the trap off as another host's. Only the
# header below may have it.
defuse() { sed 's/ZBXTRAP/ZBX_TRAP/g'; }
body=$(defuse)
transport=$(printf '%s\n' "$transport" | defuse)
host=$(printf '%s\n' "${addr:-$host}" | tr -cd 'A-Za-z0-9.:_-')
# One write of the whole record, so traps handled at once do not interleave.
printf '%s ZBXTRAP %s\n%s\n%s\n' "$(date '+%Y%m%d.%H%M%S')" "$host" "$transport" "$body" >>"$file"
