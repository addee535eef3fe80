#!/bin/bash
# privdrop.sh - clustermond -u USER runs as that user with no capabilities and
# no_new_privs, and still serves what it opened as root.
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || skip_all "needs root to start as root and drop to nobody"
id nobody >/dev/null 2>&1 || skip_all "no user nobody on this machine"
plan 9
write_master_conf
# The unprivileged agent must reach the master's socket (agentXPerms).
sed -i 's/^agentXPerms .*/agentXPerms 0666 0777/' "$T/snmpd.conf"
chmod 0755 "$T"
start_master || bail "snmpd did not start"
start_agent -u nobody || bail "clustermond -u nobody did not register"

status() { awk -v k="$1:" '$1 == k { print $2 }' "/proc/$AGENT_PID/status"; }
is "$(status Uid)" "$(id -u nobody)" "runs as nobody"
is "$(status NoNewPrivs)" 1 "no_new_privs is set"
# Its own groups (the AgentX socket's group, on a packaged node), not root's.
groups=$(awk '$1 == "Groups:" { for (i = 2; i <= NF; i++) print $i }' "/proc/$AGENT_PID/status" | sort -n | paste -sd ' ')
is "$groups" "$(id -G nobody | tr ' ' '\n' | sort -n | paste -sd ' ')" "with nobody's groups (id -G nobody), not root's"
is "$(status CapEff)" 0000000000000000 "no effective capabilities"
is "$(status CapPrm)" 0000000000000000 "no permitted capabilities"
every_thread_dropped() {
	local f
	for f in /proc/$AGENT_PID/task/*/status; do
		awk '$1 == "Uid:" && $2 != '"$(id -u nobody)"' { bad = 1 }
		     $1 == "CapEff:" && $2 != "0000000000000000" { bad = 1 }
		     $1 == "CapPrm:" && $2 != "0000000000000000" { bad = 1 }
		     END { exit bad }' "$f" || return 1
	done
}
check "every thread (sampler threads too) runs as nobody without capabilities" every_thread_dropped
check "still serves CPU counters read through fds opened as root" get "$clusterMonCpuUserMs.1"
check "and the process table" get "$clusterMonProcCount.0"
wait_for 5 test -s "$IMAGE"
is "$(stat -c '%U %a' "$IMAGE")" "nobody 640" "the image is written after the drop: nobody's, mode 0640"
finish
