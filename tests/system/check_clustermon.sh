#!/bin/bash
# check_clustermon.sh - the Nagios plugin against a live clustermond: OK,
# WARNING and CRITICAL at ranges set around the value snmpget reads, the
# same value in its perfdata, v3 authPriv, UNKNOWN with the subagent stopped
# or the host silent; and contrib/nagios/clustermon.cfg passes `nagios4 -v`.
. "$(dirname "$0")/lib.sh"

plan 20
CHECK="$top_builddir/contrib/nagios/check_clustermon"
write_master_conf
add_reader_v3
start_master || bail "snmpd did not start"
start_agent || bail "clustermond did not register"

run() { out=$("$CHECK" -H 127.0.0.1 -p "$PORT" -t 3 "$@" 2>&1); rc=$?; echo "$out" >>"$T/clients.log"; }
expect() { # expect DESCRIPTION EXIT STATE-WORD ARGS...
	local d=$1 want=$2 word=$3; shift 3
	run "$@"
	[ "$rc" -eq "$want" ] && contains "^CLUSTERMON [A-Z]* $word: " "$out"
	ok $? "$d: exit $rc, $out"
}

# Memory available moves while the test runs (other work on the machine,
# another build's suite beside this one), so each range sits a long way
# from any value it can take (1-100%): the verdicts hold whatever it is.
expect "memory available above both floors" 0 OK -m mem -w "1:" -c "0:"
expect "above the critical floor, below the warning one" 1 WARNING -m mem -w "100:" -c "1:"
expect "below the critical floor" 2 CRITICAL -m mem -w "100:" -c "100:"
expect "an @ range alerts inside" 2 CRITICAL -m mem -c "@1:100"
expect "a ~ range" 0 OK -m mem -w "~:100"
# The perfdata against snmpget's reads just before and after the plugin's:
# it lies between them (0.5 points of slack), on one of five tries.
perf_matches() {
	local t0 a0 got a1
	t0=$(get "$clusterMonMemTotalKB.0") a0=$(get "$clusterMonMemAvailableKB.0")
	run -m mem
	a1=$(get "$clusterMonMemAvailableKB.0")
	got=$(sed -n 's/.*mem_available=\([0-9.]*\)%.*/\1/p' <<<"$out")
	echo "$got% vs $a0..$a1/$t0 kB"
	awk -v g="$got" -v t="$t0" -v a="$a0" -v b="$a1" 'BEGIN {
		lo = (a < b ? a : b) * 100 / t - 0.5; hi = (a < b ? b : a) * 100 / t + 0.5
		exit !(g != "" && g >= lo && g <= hi) }'
}
for _ in 1 2 3 4 5; do perf=$(perf_matches) && break; done
ok $? "its perfdata carries the value snmpget reads ($perf)"
# Two processes of a name nothing else on the machine has, not even this
# test run beside itself (another build's suite at the same time).
name="cmts${T##*.}"
cp "$(command -v sleep)" "$T/$name"
"$T/$name" 60 & s1=$!
"$T/$name" 60 & s2=$!
# The process table is sampled once a second: wait until it holds both.
two_seen() { run -m proc -n "$name" -w 2:2 -c 1:; [ "$rc" -eq 0 ]; }
wait_for 60 two_seen
expect "two processes named $name" 0 OK -m proc -n "$name" -w 2:2 -c 1:
expect "fewer than three is WARNING with -w 3:" 1 WARNING -m proc -n "$name" -w 3: -c 1:
kill "$s1" "$s2"; wait "$s1" "$s2" 2>/dev/null
expect "no process named nosuchdaemon" 2 CRITICAL -m proc -n nosuchdaemon -c 1:

# cputop: OK says the CPU only; CRITICAL (any busy CPU is above 0) names
# the busiest process, rank 1 of clusterMonProcTopTable.
# A busy loop of the test's own: over a sampling interval an idle machine
# may be 0.00% busy, which -c 0 rightly calls OK.
cp "$(command -v sh)" "$T/cmtbusy"
"$T/cmtbusy" -c 'while :; do :; done' & busy=$!
(sleep 120; kill "$busy") >/dev/null 2>&1 &
BG_PIDS="${BG_PIDS:-} $!"   # killed by cleanup, whose wait would sit out the 120 s
busy_seen() { [ "$(get "$clusterMonCpuTotalUtil.0")" -gt 0 ] 2>/dev/null; }
wait_for 10 busy_seen
expect "cputop within its range" 0 OK -m cputop -w 100 -c 100
expect "cputop CRITICAL" 2 CRITICAL -m cputop -c 0
contains "top process .* (pid [0-9]*) [0-9.]*% of a CPU |" "$out"
ok $? "and names the top process: $out"
kill "$busy"; wait "$busy" 2>/dev/null
expect "a histogram percentile" 0 OK -m hist -n cpu.util -q 90 -w 0:100000
expect "CPU utilisation over v3 authPriv" 0 OK -P 3 -U cmadmin -L authPriv -a SHA-256 \
	-A cm-auth-passphrase -x AES -X cm-priv-passphrase -m cpu -w 100 -c 100
expect "a malformed range" 3 UNKNOWN -m cpu -w 20:10
expect "a probe that does not exist" 3 UNKNOWN -m probe -n 99 -s 1
stop_agent
expect "with clustermond stopped" 3 UNKNOWN -m cpu
contains "not registered" "$out"; ok $? "and says the subagent is not registered"
stop_master
expect "with the host silent" 3 UNKNOWN -m cpu

# The object definitions, checked by the real Nagios core.
if ! command -v nagios4 >/dev/null && [ ! -x /usr/sbin/nagios4 ]; then
	missing "nagios4 is missing (Debian: nagios4-core)"
else
	mkdir -p "$T/nagios"
	cat >"$T/nagios/nagios.cfg" <<EOC
log_file=$T/nagios/nagios.log
cfg_file=$T/nagios/minimal.cfg
cfg_file=$top_srcdir/contrib/nagios/clustermon.cfg
resource_file=$T/nagios/resource.cfg
status_file=$T/nagios/status.dat
temp_file=$T/nagios/nagios.tmp
lock_file=$T/nagios/nagios.lock
check_result_path=$T/nagios
nagios_user=root
nagios_group=root
illegal_macro_output_chars=\`~\$&|'"<>
EOC
	echo "\$USER1\$=$top_builddir/contrib/nagios" >"$T/nagios/resource.cfg"
	cat >"$T/nagios/minimal.cfg" <<'EOC'
define timeperiod {
    timeperiod_name 24x7
    alias           always
    monday          00:00-24:00
    tuesday         00:00-24:00
    wednesday       00:00-24:00
    thursday        00:00-24:00
    friday          00:00-24:00
    saturday        00:00-24:00
    sunday          00:00-24:00
}
define command {
    command_name    do-nothing
    command_line    /bin/true
}
define contact {
    contact_name                  nobody
    host_notifications_enabled    0
    service_notifications_enabled 0
    host_notification_period      24x7
    service_notification_period   24x7
    host_notification_options     n
    service_notification_options  n
    host_notification_commands    do-nothing
    service_notification_commands do-nothing
}
define service {
    name                  generic-service
    register              0
    check_period          24x7
    notification_period   24x7
    contacts              nobody
    max_check_attempts    3
    check_interval        5
    retry_interval        1
}
define host {
    host_name             node1
    address               127.0.0.1
    hostgroups            clustermon-nodes
    check_command         do-nothing
    check_period          24x7
    notification_period   24x7
    contacts              nobody
    max_check_attempts    3
}
EOC
	out=$(PATH=$PATH:/usr/sbin nagios4 -v "$T/nagios/nagios.cfg" 2>&1)
	rc=$?
	[ $rc -eq 0 ] && contains "Total Errors:   0" "$out"
	ok $? "contrib/nagios/clustermon.cfg passes nagios4 -v (exit $rc)"
	[ $rc -eq 0 ] || diag "$(grep -i error <<<"$out")"
fi
finish
