#!/bin/bash
# consoles-nagios.sh - clustermon in a real Nagios 4 (Debian's nagios4) with
# contrib's definitions: check_clustermon's services against a live
# clustermond get results with perfdata, and a threshold trap goes
# snmpd -> snmptrapd -> snmptt (contrib/snmptt) -> Nagios's command file,
# turning the passive service clustermon-traps CRITICAL in status.dat within
# seconds, the falling trap OK again; a real OOM kill on the node (a process
# of this run's over its cgroup's memory limit) makes clusterMonOomKill,
# which turns it CRITICAL naming the process, its cgroup and its job. Part
# of `make check-consoles`.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/consoles-lib.sh"

plan 16
NAGIOS=$(command -v nagios4 || echo /usr/sbin/nagios4)
SNMPTT=$(command -v snmptt || echo /usr/sbin/snmptt)
# Under CI the set-up step installs both: missing there is a failure.
for p in "$NAGIOS" "$SNMPTT" /usr/lib/nagios/plugins/check_dummy /etc/nagios4/objects/templates.cfg; do
	[ -e "$p" ] && continue
	[ "${CI:-}" = true ] && bail "$p is missing (tests/setup-consoles.sh installs it)"
	skip_all "$p is missing: run tests/setup-consoles.sh"
done
CHECK="$top_builddir/contrib/nagios/check_clustermon"
N=$T/nagios
mkdir -p "$N/plugins" "$N/checkresults" "$N/tmp"

# --- snmptrapd hands traps to snmptt (contrib's traphandle line), which
# runs contrib's EXEC lines against this Nagios's command file.
TRAP_PORT=$(free_udp_port) || bail "no free UDP port for snmptrapd"
snmptt_setup "NAGIOS_CMD=$N/nagios.cmd $top_srcdir/contrib/snmptt/clustermon-submit"
run_trapd || bail "snmptrapd did not start"
start_master || bail "snmpd did not start"
# With clustermon-kprobe (OOM kills come from its oom:mark_victim program);
# sched.runqlat, which it also feeds, there before Nagios's first check.
start_agent_helper
[ -z "$HAVE_HELPER" ] || wait_for 10 sh -c "snmpwalk -v2c -c public $TARGET $clusterMonHistSourceName | grep -q sched.runqlat" ||
	diag "no sched.runqlat within 10 s of the helper's start"

# --- Nagios: Debian's stock templates, contrib's two files, one host.
# contrib's commands call $USER1$/check_clustermon -H $HOSTADDRESS$ with no
# port: snmpd here listens on a free port, so $USER1$ holds a wrapper that
# adds -p and runs the real plugin.
cat >"$N/plugins/check_clustermon" <<EOS
#!/bin/sh
exec "$CHECK" -p $PORT "\$@"
EOS
chmod +x "$N/plugins/check_clustermon"
echo "\$USER1\$=$N/plugins" >"$N/resource.cfg"
# The host is named as snmptt names the trap's agent ($A): the name
# snmptrapd found for the sender, 127.0.0.1, in /etc/hosts.
agent_name=$(getent hosts 127.0.0.1 | awk '{ print $2; exit }')
cat >"$N/host.cfg" <<EOC
define host {
    use                 generic-host
    host_name           ${agent_name:-127.0.0.1}
    address             127.0.0.1
    hostgroups          clustermon-nodes
    check_command       clustermon_traps_idle
    max_check_attempts  1
}
EOC
cat >"$N/nagios.cfg" <<EOC
cfg_file=/etc/nagios4/objects/commands.cfg
cfg_file=/etc/nagios4/objects/contacts.cfg
cfg_file=/etc/nagios4/objects/timeperiods.cfg
cfg_file=/etc/nagios4/objects/templates.cfg
cfg_file=$top_srcdir/contrib/nagios/clustermon.cfg
cfg_file=$top_srcdir/contrib/snmptt/clustermon-traps.cfg
cfg_file=$N/host.cfg
resource_file=$N/resource.cfg
log_file=$N/nagios.log
object_cache_file=$N/objects.cache
precached_object_file=$N/objects.precache
status_file=$N/status.dat
state_retention_file=$N/retention.dat
retain_state_information=0
lock_file=$N/nagios.lock
temp_file=$N/nagios.tmp
temp_path=$N/tmp
check_result_path=$N/checkresults
command_file=$N/nagios.cmd
query_socket=$N/nagios.qh
check_external_commands=1
# Status written every second and results reaped every second, so the test
# sees a trap's effect within seconds, as an operator's screen does.
status_update_interval=1
check_result_reaper_frequency=1
# All first checks at once instead of spread over minutes; one worker.
service_inter_check_delay_method=n
host_inter_check_delay_method=n
check_workers=1
nagios_user=root
nagios_group=root
enable_notifications=0
enable_event_handlers=0
use_syslog=0
log_rotation_method=n
check_for_updates=0
illegal_macro_output_chars=\`~\$&|'"<>
EOC
"$NAGIOS" -v "$N/nagios.cfg" >"$N/verify.log" 2>&1
ok $? "nagios4 -v accepts contrib's clustermon.cfg and clustermon-traps.cfg"
"$NAGIOS" "$N/nagios.cfg" >"$T/nagios.log" 2>&1 &
NAGIOS_PID=$!
stop_nagios() { [ -n "${NAGIOS_PID:-}" ] && stop_pid "$NAGIOS_PID"; NAGIOS_PID=; }
trap 'stop_nagios; cleanup' EXIT
trap 'exit 143' TERM INT

# svc FIELD SERVICE: a field of a service's block in status.dat.
svc() {
	awk -v want="$2" -v f="$1" '
		/^servicestatus \{/ { in_s = 1; desc = ""; delete v; next }
		in_s && /^\t}/ { if (desc == want) print v[f]; in_s = 0; next }
		in_s { line = $0; sub(/^\t/, "", line); k = line; sub(/=.*/, "", k); val = line; sub(/^[^=]*=/, "", val)
		       v[k] = val; if (k == "service_description") desc = val }' "$N/status.dat" 2>/dev/null
}
checked() { [ "$(svc has_been_checked "$1")" = 1 ]; }
wait_for 30 test -p "$N/nagios.cmd" || bail "nagios did not open its command file"

# --- check_clustermon's services, actively checked by Nagios.
for s in "CPU busy" "Memory available" "TCP retransmits" "Run-queue latency p99" "sshd running"; do
	wait_for 40 checked "$s" || diag "$s: not checked within 40 s"
done
is "$(svc current_state "Memory available")" 0 "Memory available is OK: $(svc plugin_output "Memory available")"
check "with perfdata: $(svc performance_data "Memory available")" contains "^mem_available=[0-9.]*%" "$(svc performance_data "Memory available")"
# CPU busy warns above 80%: judged against what the plugin itself printed,
# as the machine may be busy.
out=$(svc plugin_output "CPU busy") st=$(svc current_state "CPU busy")
case "$out" in "CLUSTERMON CPU OK: "*) want=0;; "CLUSTERMON CPU WARNING: "*) want=1;; "CLUSTERMON CPU CRITICAL: "*) want=2;; *) want=x;; esac
is "$st" "$want" "CPU busy is a real result whose state matches its text: $out"
check "with perfdata: $(svc performance_data "CPU busy")" contains "^cpu=[0-9.]*%" "$(svc performance_data "CPU busy")"
is "$(svc current_state "TCP retransmits")" 0 "TCP retransmits is OK on an idle loopback: $(svc plugin_output "TCP retransmits")"
# sched.runqlat comes from the eBPF helper: without it (not root) the
# plugin must say UNKNOWN and why, with it give perfdata.
out=$(svc plugin_output "Run-queue latency p99")
if walk "$clusterMonObjects" | grep -q '"sched.runqlat"'; then
	check "Run-queue latency p99 has perfdata: $out | $(svc performance_data "Run-queue latency p99")" \
		contains "=[0-9.]*" "$(svc performance_data "Run-queue latency p99")"
else
	is "$(svc current_state "Run-queue latency p99")/$out" "3/CLUSTERMON HISTOGRAM UNKNOWN: no distribution named sched.runqlat on 127.0.0.1" \
		"Run-queue latency p99 is UNKNOWN, naming the distribution, with no helper running"
fi
# sshd running: OK exactly when an sshd runs here, CRITICAL when none does.
if pgrep -x sshd >/dev/null; then want=0; else want=2; fi
is "$(svc current_state "sshd running")" "$want" "sshd running agrees with pgrep: $(svc plugin_output "sshd running")"
is "$(svc current_state clustermon-traps)" 0 "clustermon-traps starts OK with no trap"

# --- a threshold on clusterMonSourceIntervalMs of the mem source, moved by
# SETs: a crossing that does not depend on how busy the machine is.
mem_interval_threshold 9
TH=$clusterMonThresholdEntry orig=$IV_ORIG
is "$(get "$TH.11.9")" 1 "a threshold on the mem source's interval is active"
t0=$(date +%s.%N)
set_rw "$IV" u 60000 >>"$T/set.log"
crit() { [ "$(svc current_state clustermon-traps)" = 2 ]; }
wait_for 15 crit; rc=$?
t1=$(date +%s.%N)
ok $rc "the rising trap turns clustermon-traps CRITICAL in status.dat after $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s: $(svc plugin_output clustermon-traps)"
set_rw "$IV" u "$orig" >>"$T/set.log"
okagain() { [ "$(svc current_state clustermon-traps)" = 0 ] && contains "threshold falling" "$(svc plugin_output clustermon-traps)"; }
wait_for 15 okagain; rc=$?
ok $rc "the falling trap turns it OK again: $(svc plugin_output clustermon-traps)"
check "snmptt logged both with the FORMAT lines" contains "threshold falling on" "$(cat "$T/snmptt.log" 2>/dev/null)"

# --- a real OOM kill: clusterMonOomKill -> snmptt's EVENT -> CRITICAL,
# naming the process, its cgroup and job (the service is OK before it).
if oom_node_kill; then
	is "$OOM_RC" 137 "$HOG (pid $OOM_PID), over its cgroup's memory limit, was OOM-killed (cgroup v$CGV: $OOM_REL)"
	want="OOM kill: $HOG (pid $OOM_PID) in $OOM_REL (slurm job $OOM_JOB)"
	oomcrit() { [ "$(svc current_state clustermon-traps)" = 2 ] && contains "$want" "$(svc plugin_output clustermon-traps)"; }
	wait_for 15 oomcrit; rc=$?
	ok $rc "the OOM kill turns clustermon-traps CRITICAL in status.dat $(since "$OOM_T0") s after the process started: $(svc plugin_output clustermon-traps)"
	[ $rc -eq 0 ] || diag "snmptt.log: $(tail -n 2 "$T/snmptt.log" 2>/dev/null)"
else
	oom_skip 2
fi
# A name is its process's to choose: one with a quote, shell syntax and a
# closing backslash (which makes snmptt take the next varbind into it and
# split the EXEC line's quoted text) still turns the service CRITICAL,
# naming it, and runs nothing.
snmptrap -v2c -c public "127.0.0.1:$TRAP_PORT" '' "$clusterMonOomKill" "$clusterMonOomKillPid.0" u 4711 \
	"$clusterMonOomKillName.0" s "q\"\$(touch $T/pwned)\`touch $T/pwned\`\\" "$clusterMonOomKillCgroup.0" s "cg" 2>>"$T/snmptrap.log"
hostile() { [ "$(svc current_state clustermon-traps)" = 2 ] && contains 'OOM kill: q"(touch' "$(svc plugin_output clustermon-traps)"; }
wait_for 15 hostile; rc=$?
[ $rc -eq 0 ] && [ ! -e "$T/pwned" ]
ok $? "a hostile process name is shown, defused, and runs nothing: $(svc plugin_output clustermon-traps)"
diag "status line: clustermon-traps $(svc plugin_output clustermon-traps)"
stop_nagios
finish
