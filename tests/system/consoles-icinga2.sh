#!/bin/bash
# consoles-icinga2.sh - clustermon in a real Icinga 2 (Debian's icinga2
# 2.13) with contrib/icinga2/clustermon.conf: a host from the template
# "clustermon-node" gets the apply rules' services, each reaching the state
# the agent's values imply, read through the REST API: CPU and the top
# process (check_clustermon -m cputop) at the state the agent's busy
# percent implies, CRITICAL with thresholds sized from what a spinner on
# every CPU gets, naming rank 1 of clusterMonProcTopTable, then back; a
# threshold row's state CRITICAL while risen. Its traps go snmpd ->
# snmptrapd -> snmptt (contrib/snmptt) -> clustermon-icinga2-submit -> the
# API: the rising trap makes the passive service clustermon-traps CRITICAL,
# the falling one OK; a real OOM kill on the node (a process of this run's
# over its cgroup's memory limit) makes clusterMonOomKill, which turns it
# CRITICAL naming the process, its cgroup and its job. Part of `make
# check-consoles`. No systemd: the daemon
# runs in the foreground with its directories, port and PKI in $T.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/consoles-lib.sh"

ICINGA2=$(command -v icinga2 || echo /usr/sbin/icinga2)
SNMPTT=$(command -v snmptt || echo /usr/sbin/snmptt)
# Under CI the set-up step installs them: missing there is a failure.
for p in "$ICINGA2" "$SNMPTT" /usr/lib/nagios/plugins/check_snmp /usr/share/icinga2/include/itl "$(command -v curl || echo curl)"; do
	[ -e "$p" ] && continue
	[ "${CI:-}" = true ] && bail "$p is missing (tests/setup-consoles.sh installs it)"
	skip_all "$p is missing: run tests/setup-consoles.sh"
done
plan 22
I=$T/icinga2
mkdir -p "$I/lib/certs" "$I/log" "$I/cache" "$I/spool" "$I/run"
API_PORT=$(free_tcp_port) || bail "no free TCP port for the API"
# Icinga's paths and user, as /etc/default/icinga2 and the unit would set them.
export ICINGA2_USER=root ICINGA2_GROUP=root
IDEFS=(-DConfiguration.DataDir="$I/lib" -DConfiguration.LogDir="$I/log" -DConfiguration.CacheDir="$I/cache"
	-DConfiguration.SpoolDir="$I/spool" -DConfiguration.InitRunDir="$I/run")
icinga() { "$ICINGA2" "$@" "${IDEFS[@]}"; }

# --- the PKI `icinga2 api setup` would make, here by hand in $I: a CA and
# the node's certificate, named localhost (the API's URL must name it).
t0=$SECONDS
{ icinga pki new-ca && icinga pki new-cert --cn localhost --key "$I/lib/certs/localhost.key" \
	--csr "$I/lib/certs/localhost.csr" && icinga pki sign-csr --csr "$I/lib/certs/localhost.csr" \
	--cert "$I/lib/certs/localhost.crt" && cp "$I/lib/ca/ca.crt" "$I/lib/certs/ca.crt"; } >"$I/pki.log" 2>&1 ||
	bail "icinga2 pki failed: $(tail -n 3 "$I/pki.log")"
diag "icinga2 pki made a CA and the node's certificate in $((SECONDS - t0)) s"

# --- traps: snmptrapd -> snmptt -> clustermon-icinga2-submit -> the API.
cat >"$I/submit.conf" <<EOC
ICINGA2_API_URL=https://localhost:$API_PORT
ICINGA2_API_USER=clustermon-traps
ICINGA2_API_PASSWORD='trap pass "1"'
ICINGA2_API_CA=$I/lib/certs/ca.crt
EOC
SUBMIT=$top_srcdir/contrib/icinga2/clustermon-icinga2-submit
TRAP_PORT=$(free_udp_port) || bail "no free UDP port for snmptrapd"
snmptt_setup "ICINGA2_SUBMIT_CONF=$I/submit.conf $SUBMIT"
run_trapd || bail "snmptrapd did not start"
start_master || bail "snmpd did not start"
start_agent_helper
helper=$HAVE_HELPER
mem_interval_threshold 9

# --- Icinga 2: the ITL, contrib's file, the API and one host named as
# snmptt names the trap's agent ($A: the name snmptrapd found for 127.0.0.1).
agent_name=$(getent hosts 127.0.0.1 | awk '{ print $2; exit }')
host=${agent_name:-127.0.0.1}
cat >"$I/icinga2.conf" <<EOC
const PluginDir = "/usr/lib/nagios/plugins"
const NodeName = "localhost"
const ZoneName = NodeName
include <itl>
include <plugins>
include "$top_srcdir/contrib/icinga2/clustermon.conf"
object FileLogger "main" { path = "$I/log/icinga2.log"; severity = "information" }
object CheckerComponent "checker" { }
object Endpoint NodeName { }
object Zone ZoneName { endpoints = [ NodeName ] }
object ApiListener "api" { bind_host = "127.0.0.1"; bind_port = $API_PORT }
object ApiUser "test" { password = "test"; permissions = [ "*" ] }
object ApiUser "clustermon-traps" { password = "trap pass \"1\""; permissions = [ "actions/process-check-result" ] }
object Host "$host" {
	import "clustermon-node"
	address = "127.0.0.1"
	vars.clustermon_port = $PORT
	vars.clustermon_plugin_dir = "$top_builddir/contrib/nagios"
	vars.clustermon_thresholds["mem interval"] = 9
}
EOC
icinga daemon -C -c "$I/icinga2.conf" >"$I/validate.log" 2>&1
ok $? "icinga2 daemon -C accepts contrib's clustermon.conf with a clustermon-node host"
services=$(icinga object list --type Service 2>/dev/null | sed -n "s/^Object '\([^']*\)' of type 'Service':.*/\1/p" | sort | tr '\n' ',')
is "$services" "$host!clustermon cpu,$host!clustermon memory,$host!clustermon runqlat p99,$host!clustermon threshold mem interval,$host!clustermon top process,$host!clustermon-traps," \
	"icinga2 object list: the apply rules gave the host its six services"

t0=$SECONDS
icinga daemon -c "$I/icinga2.conf" >"$T/icinga2.log" 2>&1 &
ICINGA_PID=$!
stop_icinga() { [ -n "${ICINGA_PID:-}" ] && stop_pid "$ICINGA_PID"; ICINGA_PID=; }
trap 'stop_icinga; cleanup' EXIT
trap 'exit 143' TERM INT

# api METHOD PATH [BODY]: the REST API as the test's all-powerful user.
api() {
	curl -sS --cacert "$I/lib/certs/ca.crt" -u test:test -H 'Accept: application/json' \
		-X "$1" "https://localhost:$API_PORT/v1/$2" ${3:+--data-binary "$3"}
}
wait_for 30 api GET status || bail "the Icinga 2 API did not answer within 30 s"
diag "icinga2 daemon answered on its API $((SECONDS - t0)) s after start"

# svc SERVICE: "STATE END|OUTPUT|PERFDATA" of its last check result (STATE
# empty before the first).
svc() {
	api GET "objects/services?service=$(printf '%s' "$host!$1" | sed 's/ /%20/g')&attrs=last_check_result" |
		python3 -c '
import json, sys
r = json.load(sys.stdin)["results"][0]["attrs"]["last_check_result"] or {}
perf = " ".join(r.get("performance_data") or [])
print("%s %s|%s|%s" % (int(r["state"]) if r else "", r.get("execution_end", 0), (r.get("output") or "").replace("\n", " "), perf))'
}
# check_now SERVICE: "Check now" (a forced reschedule), then wait up to 20 s
# for a result newer than the request; prints svc's line.
check_now() {
	local t
	t=$(date +%s.%N)
	api POST actions/reschedule-check "$(printf '{"type":"Service","filter":"host.name==h && service.name==s","filter_vars":{"h":"%s","s":"%s"},"force":true}' "$host" "$1")" >/dev/null
	for _ in $(seq 1 200); do
		set -- "$1" "$(svc "$1")"
		awk -v e="${2#* }" -v t="$t" 'BEGIN { split(e, a, "|"); exit !(a[1] + 0 > t + 0) }' && { echo "$2"; return 0; }
		sleep 0.1
	done
	echo "$2"
	return 1
}
# implied LINE WARN CRIT: the state the Monitoring Plugins ranges imply for
# the first perfdata value of LINE (numbers: alert above; N: alert below).
implied() {
	awk -v line="$1" -v w="$2" -v c="$3" '
	function bad(v, r) { if (r == "") return 0; if (r ~ /:$/) return v < substr(r, 1, length(r) - 1) + 0; return v > r + 0 }
	BEGIN { split(line, f, "|"); p = f[3]; sub(/^[^=]*=/, "", p); v = p + 0
		print bad(v, c) ? 2 : bad(v, w) ? 1 : 0 }'
}
state() { echo "${1%% *}"; }
# within SECONDS COMMAND...: retry until the command succeeds, for SECONDS
# of wall time (wait_for counts tries, and a check takes a while).
within() {
	local end=$((SECONDS + $1)); shift
	until "$@"; do [ "$SECONDS" -lt "$end" ] || return 1; sleep 0.5; done
}

# --- each service against the agent's values.
# The host's first check, forced as "Check now" does (Icinga spreads first
# checks over the interval).
api POST actions/reschedule-check "$(printf '{"type":"Host","filter":"host.name==h","filter_vars":{"h":"%s"},"force":true}' "$host")" >/dev/null
host_checked() { api GET "objects/hosts?attrs=last_check_result" | grep -q '"exit_status":[0-9]'; }
within 20 host_checked
hs=$(api GET "objects/hosts?attrs=state&attrs=last_check_result" | python3 -c '
import json, sys
a = json.load(sys.stdin)["results"][0]["attrs"]
print("%d %s" % (a["state"], (a["last_check_result"] or {}).get("output")))' 2>&1)
is "${hs%% *}" 0 "the host is UP through clustermon-alive (clustermond answers): ${hs#* }"
l=$(check_now "clustermon memory")
is "$(state "$l")" "$(implied "$l" 10: 5:)" "clustermon memory's state is what its value implies (10:, 5:): $l"
l=$(check_now "clustermon cpu")
cpu0=$l
check "clustermon cpu has a result with perfdata: $l" contains "|cpu=[0-9.]*%" "$l"
l=$(check_now "clustermon top process")
is "$(state "$l")" "$(implied "$l" 80 95)" "clustermon top process's state is what its value implies (80, 95): $l"
l=$(check_now "clustermon runqlat p99")
if [ -n "$helper" ]; then
	wait_for 10 sh -c "snmpwalk -v2c -c public $TARGET $clusterMonHistSourceName | grep -q sched.runqlat"
	l=$(check_now "clustermon runqlat p99")
	is "$(state "$l")" "$(implied "$l" 5000000 20000000)" "clustermon runqlat p99's state is what sched.runqlat's p99 implies: $l"
else
	is "$(state "$l")" 3 "clustermon runqlat p99 is UNKNOWN without the helper: $l"
fi
l=$(check_now "clustermon threshold mem interval")
is "$(state "$l")" 0 "clustermon threshold mem interval is OK for the armed row: $l"

# --- one process spinning a thread on every CPU for 60 s at most, at
# nice -19. Other work on the machine decides how much of the CPUs it
# really gets, so the CPU thresholds come from the agent: once it has
# sampled the spinner, the node's busy percent less half the spinner's
# share of the node (its clusterMonProcCpuUtil over the CPUs) is CRITICAL,
# less three quarters WARNING, set on both CPU services through the API.
t0=$SECONDS
[ -x "$top_builddir/tests/system/spinners" ] || bail "tests/system/spinners is not built (make check-consoles builds it)"
nice -n -19 "$top_builddir/tests/system/spinners" "$(nproc)" 60 &
SPIN=$!
spun() { s=$(get "$clusterMonProcCpuUtil.$SPIN") && [ "$s" -gt 0 ] && tot=$(get "$clusterMonCpuTotalUtil.0"); }
wait_for 30 spun || bail "the spinner has no CPU in clusterMonProcTable after 30 s"
read -r CPUWARN CPUCRIT <<EOT
$(awk -v t="$tot" -v s="$s" -v n="$(nproc)" 'BEGIN { sh = s / n
	w = int((t - sh * 3 / 4) / 100); c = int((t - sh / 2) / 100)
	print (w < 1 ? 1 : w), (c < 1 ? 1 : c) }')
EOT
diag "the spinner got $s hundredths of a percent of one CPU with $(nproc) threads, the node $tot: CPU thresholds $CPUWARN, $CPUCRIT"
setvars() {
	api POST objects/services "$(printf '{"filter":"host.name==h && service.name==s","filter_vars":{"h":"%s","s":"%s"},"attrs":{"vars.clustermon_warning":"%s","vars.clustermon_critical":"%s"}}' \
		"$host" "$1" "$2" "$3")" | grep -q '"code":200'
}
setvars "clustermon cpu" "$CPUWARN" "$CPUCRIT" && setvars "clustermon top process" "$CPUWARN" "$CPUCRIT"
ok $? "the API sets the CPU services' thresholds to $CPUWARN, $CPUCRIT"
# judged SERVICE: a check whose state is what its busy percent implies,
# and that percent the agent's clusterMonCpuTotalUtil just before or just
# after it (the value of one sample).
judged() {
	local b a
	b=$(get "$clusterMonCpuTotalUtil.0") || return 1
	l=$(check_now "$1") || return 1
	a=$(get "$clusterMonCpuTotalUtil.0") || return 1
	[ "$(state "$l")" = "$(implied "$l" "$CPUWARN" "$CPUCRIT")" ] &&
		awk -v line="$l" -v b="$b" -v a="$a" 'BEGIN { split(line, f, "|"); p = f[3]; sub(/^[^=]*=/, "", p); v = p + 0
			d1 = v - b / 100; d2 = v - a / 100; exit !(d1 * d1 < 1e-4 || d2 * d2 < 1e-4) }'
}
crit() { judged "$1" && [ "$(state "$l")" = 2 ]; }
within 40 crit "clustermon cpu"; rc=$?
ok $rc "clustermon cpu turns CRITICAL $((SECONDS - t0)) s after a thread spun on every CPU, as the agent's busy percent implies: $l"
within 40 crit "clustermon top process"; rc=$?
ok $rc "clustermon top process turns CRITICAL $((SECONDS - t0)) s after: $l"
# named: the process it names is rank 1 of clusterMonProcTopTable, read
# just before and just after the check (the same sample).
named() {
	local p1 n1 p2 n2
	p1=$(get "$clusterMonProcTopPid.1") && n1=$(get "$clusterMonProcTopName.1") || return 1
	l=$(check_now "clustermon top process") || return 1
	p2=$(get "$clusterMonProcTopPid.1") && n2=$(get "$clusterMonProcTopName.1") || return 1
	n1=${n1#\"} n1=${n1%\"}
	[ "$p1/$n1" = "$p2/${n2//\"/}" ] && [ "$(state "$l")" != 0 ] && case $l in *"top process $n1 (pid $p1) "*) ;; *) false ;; esac
}
within 40 named; rc=$?
ok $rc "it names the agent's rank 1 of clusterMonProcTopTable$(contains "(pid $SPIN)" "$l" && echo ", the spinner"): $l"
kill "$SPIN" 2>/dev/null
wait "$SPIN" 2>/dev/null
# Back: with the spinner gone, the services' states are what the agent's
# busy percent implies, and the top process service no longer names it.
back() { judged "$1" && ! contains "(pid $SPIN)" "$l"; }
t0=$SECONDS
within 60 back "clustermon cpu"; rc=$?
ok $rc "with the spinner gone clustermon cpu's state follows the agent's value after $((SECONDS - t0)) s: $l (before the spinner: $cpu0)"
within 60 back "clustermon top process"; rc=$?
ok $rc "and so does clustermon top process, which no longer names the spinner: $l"

# --- a threshold row on the mem source's interval, crossed by SETs (as in
# consoles-nagios.sh): the threshold service and the trap service follow.
t0=$(date +%s.%N)
set_rw "$IV" u 60000 >>"$T/set.log"
# (The helper's own traps may have set it before: under heavy load it can
# fail and come back, and says so.)
trapcrit() { l=$(svc clustermon-traps); [ "$(state "$l")" = 2 ] && contains "threshold rising" "$l"; }
within 20 trapcrit; rc=$?
t1=$(date +%s.%N)
ok $rc "the rising trap turns clustermon-traps CRITICAL through the API after $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s: $(svc clustermon-traps)"
l=$(check_now "clustermon threshold mem interval")
is "$(state "$l")" 2 "the threshold service is CRITICAL while the row is risen: $l"
set_rw "$IV" u "$IV_ORIG" >>"$T/set.log"
trapok() { l=$(svc clustermon-traps); [ "$(state "$l")" = 0 ] && contains "threshold falling" "$l"; }
within 20 trapok; rc=$?
ok $rc "the falling trap turns it OK again: $(svc clustermon-traps)"

# --- a real OOM kill: clusterMonOomKill -> snmptt's EVENT ->
# clustermon-icinga2-submit -> CRITICAL, naming the process, its cgroup and
# job (the service is OK before it).
if oom_node_kill; then
	is "$OOM_RC" 137 "$HOG (pid $OOM_PID), over its cgroup's memory limit, was OOM-killed (cgroup v$CGV: $OOM_REL)"
	want="OOM kill: $HOG (pid $OOM_PID) in $OOM_REL (slurm job $OOM_JOB)"
	oomcrit() { l=$(svc clustermon-traps); [ "$(state "$l")" = 2 ] && contains "$want" "$l"; }
	within 20 oomcrit; rc=$?
	ok $rc "the OOM kill turns clustermon-traps CRITICAL through the API $(since "$OOM_T0") s after the process started: $(svc clustermon-traps)"
	[ $rc -eq 0 ] || diag "snmptt.log: $(tail -n 2 "$T/snmptt.log" 2>/dev/null); submit: $(tail -n 2 "$T/submit.log" 2>/dev/null)"
else
	oom_skip 2
fi

# --- the handler itself: the text split over arguments (snmptt's EXEC line
# after a varbind ending in a backslash) is joined; a severity word for the
# state, hostile text; an unknown host is refused and changes nothing.
ICINGA2_SUBMIT_CONF=$I/submit.conf "$SUBMIT" "$host" clustermon-traps 2 'CRITICAL: OOM kill: q\' "$clusterMonOomKillCgroup.0" 'cg (pid 4711)' 2>>"$T/submit.log"
l=$(svc clustermon-traps)
is "$(state "$l")|$(echo "$l" | cut -d'|' -f2)" "2|CRITICAL: OOM kill: q\\ $clusterMonOomKillCgroup.0 cg (pid 4711)" \
	"clustermon-icinga2-submit joins a text split over several arguments"
ICINGA2_SUBMIT_CONF=$I/submit.conf "$SUBMIT" "$host" clustermon-traps Warning "$(printf 'a "quoted" \\ line\nand\001 more')" 2>>"$T/submit.log"
l=$(svc clustermon-traps)
is "$(state "$l")|$(echo "$l" | cut -d'|' -f2)" '1|a "quoted" \ line and more' \
	"clustermon-icinga2-submit maps severity Warning to WARNING and passes text safely"
ICINGA2_SUBMIT_CONF=$I/submit.conf "$SUBMIT" no-such-host clustermon-traps 2 "never" 2>>"$T/submit.log"
is "$?/$(state "$(svc clustermon-traps)")" "1/1" "a trap for a host Icinga does not know fails the handler (exit 1) and changes nothing"
stop_icinga
finish
