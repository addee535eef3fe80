#!/bin/bash
# proc.sh - the process table: a named busy child and an idle one appear with
# the right names and states, the busy one's CPU time grows as the kernel
# counts it, rows of exited processes go, and the filters shrink the table.
. "$(dirname "$0")/lib.sh"

plan 14
PT="$clusterMonProcEntry"
# Names of this run's own: the other build's suite may run this test beside it.
ID=${T##*.} B=cmb${T##*.} I=cmi${T##*.}
ln -s "$(command -v sh)" "$T/$B"
ln -s "$(command -v sleep)" "$T/$I"
"$T/$B" -c 'while :; do :; done' &
busy=$!
(sleep 300; kill "$busy") >/dev/null 2>&1 &   # bounded even if this script dies (not holding the TAP pipe open)
BG_PIDS="${BG_PIDS:-} $!"   # killed by cleanup, whose wait would sit out the 300 s
"$T/$I" 300 &   # killed below; long, as a loaded machine is slow to get there
idle=$!
# Pinned: the utilisation readings below are averaged as windows of one
# interval each. Read every 0.15 s but sampled only when read, the source's
# windows would run from read to read, and under load a slow GET (a long
# window, the child starved) and a quick one (a short window, the child
# running) weigh the same in the mean: 48.5% against a 35.1% share once.
echo "sampleInterval proc 100 always" >"$T/clustermond.conf"
start_master || bail "snmpd did not start"
start_agent -c "$T/clustermond.conf" || bail "clustermond did not register"
# Both rows are there once a sample after their start has been published
# (100 ms here; far longer on a loaded machine: waited for, not slept for).
wait_for 30 sh -c "snmpget -v2c -c public -On -Oqv $TARGET $PT.2.$busy $PT.2.$idle | grep -c cm | grep -qx 2"

is "$(get "$PT.2.$busy")" "\"$B\"" "the busy child's clusterMonProcName"
is "$(get "$PT.2.$idle")" "\"$I\"" "the idle child's clusterMonProcName"
is "$(get "$PT.3.$busy")" 1 "the busy child is running(1)"
is "$(get "$PT.3.$idle")" 2 "the idle child is sleeping(2)"
contains "$I 300" "$(get "$PT.17.$idle")"; ok $? "clusterMonProcCmdline has the arguments"

# Against the kernel's own figure for the child (schedstat's run time), so a
# busy machine sharing the CPU cannot decide the test, over the times the
# two served samples can have been taken (lib.sh fresh_cpu). Utilisation
# is per 100 ms interval, which a shared CPU makes jumpy: the mean of 20
# readings across the window stands for the child's share, within 10 points
# or three standard errors of that mean, whichever is more (a loaded CI
# machine spreads the readings: 71.2 against a 60.7% share once).
t0=$(date +%s%N); read -r kb0 c0 ka0 < <(fresh_cpu "$PT.6.$busy" "$busy")
: >"$T/utils"
for _ in $(seq 1 20); do sleep 0.15; get "$PT.8.$busy" >>"$T/utils"; done
read -r kb1 c1 ka1 < <(fresh_cpu "$PT.6.$busy" "$busy"); t1=$(date +%s%N)
lo=$(( kb1 - ka0 )) hi=$(( ka1 - kb0 )) d=$(( c1 - c0 ))
share=$(( hi * 1000 / (t1 - t0) ))   # the CPU the child had, per mille
check "clusterMonProcCpuNs grows as the kernel's schedstat within 10% ($d ns; the kernel's $lo..$hi; the child had $share per mille of a CPU)" \
	within 100 "$d" "$lo" "$hi"
# The mean and the tolerance, per mille.
read -r util tol n < <(awk '{ s += $1 / 10; q += ($1 / 10) ^ 2; n++ }
	END { m = s / n; v = (q - n * m * m) / (n - 1); if (v < 0) v = 0
		t = 3 * sqrt(v / n); printf "%d %d %d\n", m, (t > 100 ? t : 100), n }' "$T/utils")
diag "the busy child's 20 readings (hundredths): $(tr '\n' ' ' <"$T/utils")"
check "clusterMonProcCpuUtil of the busy child averages $util per mille over $n readings, within $tol of its share of a CPU ($share per mille)" \
	test $(( util - share )) -le "$tol" -a $(( share - util )) -le "$tol" -a "$util" -gt 0 -a "$n" -eq 20
util=$(get "$PT.8.$idle")
check "clusterMonProcCpuUtil of the idle child is $util (< 100)" test "$util" -lt 100
is "$(get "$PT.16.$idle")" "$(id -u)" "clusterMonProcUid is ours"

kill "$idle"; wait "$idle" 2>/dev/null
# Samples are waited for, not slept for: on a loaded machine they come late.
gone() { contains "No Such Instance" "$(get_raw "$1")"; }
wait_for "$(slack 1)" gone "$PT.2.$idle"; ok $? "an exited child's row is gone within two intervals ($(slack 1) s allowed)"

# Filters, by SET and by configuration.
set_rw "$clusterMonProcFilterName.0" s "cm?$ID" >/dev/null
names() { walk "$PT.2" | awk '{ print $2 }' | sort -u | tr '\n' ' '; }
only_busy() { [ "$(names)" = "\"$B\" " ]; }
wait_for 10 only_busy
names=$(names)
is "$names" "\"$B\" " "clusterMonProcFilterName 'cm?$ID' leaves only this run's cm* processes"
# Top N among our own processes only: another busy process on the machine
# must not decide this test.
"$T/$I" 300 &
idle2=$!
count_is() { [ "$(get "$clusterMonProcCount.0")" = "$1" ]; }
wait_for 10 count_is 2   # the second cm* process sampled
set_rw "$clusterMonProcFilterName.0" s "cm?$ID" "$clusterMonProcFilterTopN.0" u 1 >/dev/null
wait_for 10 count_is 1
is "$(get "$clusterMonProcCount.0")" 1 "clusterMonProcFilterTopN 1 leaves one row"
is "$(walk "$PT.2" | awk '{ print $2 }')" "\"$B\"" "and it is the busiest of the matching processes"
kill "$idle2"; wait "$idle2" 2>/dev/null
echo 'procFilter uid=65534' >>"$T/clustermond.conf"
kill -HUP "$AGENT_PID"
wait_for 10 gone "$PT.2.$busy"
check "procFilter uid=65534 (SIGHUP) hides our root-owned children" contains "No Such Instance" "$(get_raw "$PT.2.$busy")"
kill "$busy" 2>/dev/null; wait "$busy" 2>/dev/null
finish
