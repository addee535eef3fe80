#!/bin/bash
# consoles-collectd.sh - contrib/collectd/clustermon.conf in a real collectd
# (Debian's collectd-core 5.12, snmp and csv plugins) polling a live
# clustermond every second: every value it writes agrees with what snmpget
# read of the same object within one interval of the value's timestamp
# (between the least and the most of the readings from one interval before
# to one after), for the per-CPU table, memory, the process count, the CPU
# and resident memory at rank 1 of clusterMonProcTopTable (a spinning
# process to make one busy), TCP opens and established connections, and
# sched.runqlat's p50/p90/p99. Part of `make check-consoles`.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/consoles-lib.sh"

COLLECTD=$(command -v collectd || echo /usr/sbin/collectd)
for p in "$COLLECTD" /usr/lib/collectd/snmp.so /usr/lib/collectd/csv.so /usr/share/collectd/types.db; do
	[ -e "$p" ] && continue
	[ "${CI:-}" = true ] && bail "$p is missing (tests/setup-consoles.sh installs it)"
	skip_all "$p is missing: run tests/setup-consoles.sh"
done
plan 10
C=$T/collectd
mkdir -p "$C/csv"

start_master || bail "snmpd did not start"
# The CPU source samples every second here, not every 100 ms: the sampler
# below reads every 0.3-0.5 s, so a 100 ms sample collectd read (its own
# poll makes one busy) was often one the sampler never saw (collectd 90,
# snmpget 100..100). A second's sample is read at least twice.
start_agent_helper "sampleInterval cpu 1000"
helper=$HAVE_HELPER
[ -z "$helper" ] || wait_for 10 sh -c "snmpwalk -v2c -c public $TARGET $clusterMonHistSourceName | grep -q sched.runqlat" ||
	bail "no sched.runqlat row with the helper running"
rq=$(walk "$clusterMonHistSourceName" | awk '$2 == "\"sched.runqlat\"" { n = split($1, a, "."); print a[n] }')

# Something to measure: a process spinning a thread for 30 s at most, and
# 8 established loopback connections (both ends: 16 rows).
"$top_builddir/tests/system/spinners" 1 30 &
SPIN=$!
"$top_builddir/tests/system/tcpconns" 4 8 0 >"$T/conns.log" 2>&1 &
CONNPID=$!
wait_for 30 grep -q ready "$T/conns.log" || bail "tcpconns did not open its connections"
wait_for 10 get "$clusterMonProcCpuUtil.$SPIN" || bail "the spinner is not in clusterMonProcTable"

# --- collectd: contrib's file with its Host block pointed at this snmpd,
# polled every second, written by the csv plugin as raw values.
sed -e "s|Address \"node7\"|Address \"udp:127.0.0.1:$PORT\"|" -e 's|Interval 10|Interval 1|' \
	-e 's|<Host "node7">|<Host "cmnode">|' "$top_srcdir/contrib/collectd/clustermon.conf" >"$C/clustermon.conf"
cat >"$C/collectd.conf" <<EOC
Hostname "collector"
BaseDir "$C"
PIDFile "$C/collectd.pid"
PluginDir "/usr/lib/collectd"
TypesDB "/usr/share/collectd/types.db"
Interval 1
LoadPlugin logfile
<Plugin logfile>
  LogLevel info
  File "$C/collectd.log"
</Plugin>
LoadPlugin csv
<Plugin csv>
  DataDir "$C/csv"
  StoreRates false
</Plugin>
Include "$C/clustermon.conf"
EOC
"$COLLECTD" -t -C "$C/collectd.conf" >"$C/test.log" 2>&1
ok $? "collectd -t accepts contrib's clustermon.conf: $(tail -n 1 "$C/test.log")"

# --- snmpget's side: every 0.2 s, "TIME OID VALUE" lines of every object
# collectd reads, and the count of established rows, while collectd polls.
OBJS=(cpu1 "$clusterMonCpuUtil.1" 0.01 cpu2 "$clusterMonCpuUtil.2" 0.01
	mem_total "$clusterMonMemTotalKB.0" 1024 mem_available "$clusterMonMemAvailableKB.0" 1024
	mem_free "$clusterMonMemFreeKB.0" 1024 mem_cached "$clusterMonMemCachedKB.0" 1024
	procs "$clusterMonProcCount.0" 1 top1_cpu "$clusterMonProcTopCpuUtil.1" 0.01
	top1_rss "$clusterMonProcTopRssKB.1" 1024
	active_opens "$clusterMonTcpActiveOpens.0" 1 passive_opens "$clusterMonTcpPassiveOpens.0" 1)
[ -n "$rq" ] && OBJS+=(p50 "$clusterMonHistSourceP50.$rq" 1e-9 p90 "$clusterMonHistSourceP90.$rq" 1e-9
	p99 "$clusterMonHistSourceP99.$rq" 1e-9)
oids=() i=0
while [ $i -lt ${#OBJS[@]} ]; do oids+=("${OBJS[$((i + 1))]}"); i=$((i + 3)); done
sample() {
	while :; do
		t=$(date +%s.%N)
		snmpget -v2c -c public -t 1 -r 0 -On -Oq -Oe -OU -Ot "$TARGET" "${oids[@]}" 2>/dev/null | sed "s/^/$t /"
		echo "$t established $(walk "$clusterMonTcpConnState" | awk '$2 == 1 { n++ } END { print n + 0 }')"
		sleep 0.2
	done
}
sample >"$T/samples" &
SAMPLER=$!
# collectd starts once snmpget has read for longer than an interval (1 s):
# a read may be served a sample up to an interval old (more while the
# sampler thread runs late), and snmpget must have seen every sample
# collectd can be served, its first poll's included.
read_for() { local t0; t0=$(awk 'NR == 1 { print $1 }' "$T/samples" 2>/dev/null)
	[ -n "$t0" ] && awk -v t0="$t0" -v now="$(date +%s.%N)" 'BEGIN { exit !(now - t0 >= 1.5) }'; }
wait_for 30 read_for || bail "snmpget read nothing for 30 s"
"$COLLECTD" -f -C "$C/collectd.conf" >>"$C/test.log" 2>&1 &
CD=$!
# Four polls of everything (the first of a counter also lands in the file).
latest() { find "$C/csv" -name "$1-*" -type f 2>/dev/null | head -n 1; }
polled() { local f; f=$(latest "latency-p99"); [ -z "$rq" ] || { [ -n "$f" ] && [ "$(wc -l <"$f")" -ge 5 ]; } &&
	f=$(latest "memory-total") && [ -n "$f" ] && [ "$(wc -l <"$f")" -ge 5 ]; }
t0=$SECONDS
wait_for 30 polled; rc=$?
ok $rc "collectd wrote four polls of memory$([ -n "$rq" ] && echo " and sched.runqlat") in $((SECONDS - t0)) s"
sleep 1.2   # the readings one interval after the last poll
stop_pid "$CD"
kill "$SAMPLER" 2>/dev/null; wait "$SAMPLER" 2>/dev/null
kill "$SPIN" "$CONNPID" 2>/dev/null; wait "$SPIN" "$CONNPID" 2>/dev/null

# agree NAME FILE SCALE: each value of the csv file lies between the least
# and the most snmpget read of NAME's OID from 1 s before its time to 1 s
# after (times SCALE; a relative slack of 1e-6 for the csv's 6 decimals).
# Values without a reading on each side in that window (the sampler falls
# behind on a loaded machine) are not judged, but every object needs one
# judged value at least; prints "checked out-of-range" and the first
# disagreement.
agree() {
	awk -F'[ ,]' -v oid="$2" -v s="$4" -v name="$1" '
		NR == FNR { if ($2 == oid && $3 ~ /^-?[0-9.]+$/) { n++; st[n] = $1; sv[n] = $3 * s } next }
		$1 == "epoch" { next }
		{ t = $1; v = $2; lo = ""; hi = ""; before = after = 0
		  for (i = 1; i <= n; i++) if (st[i] >= t - 1 && st[i] <= t + 1) {
			if (st[i] <= t) before = 1; else after = 1
			if (lo == "" || sv[i] < lo) lo = sv[i]; if (hi == "" || sv[i] > hi) hi = sv[i] }
		  if (!before || !after) next
		  checked++
		  e = (hi > 0 ? hi : -hi) * 1e-6 + 1e-6
		  if (v < lo - e || v > hi + e) { bad++; if (!first) first = sprintf("%s at %s: collectd %s, snmpget %s..%s", name, t, v, lo, hi) } }
		END { printf "%d %d %s\n", checked, bad, first }' "$T/samples" "$3"
}
# check_obj NAME FILE-PATTERN: agree for the object NAME of OBJS.
total=0 outside=0 report=
check_obj() {
	local i=0 f r
	while [ $i -lt ${#OBJS[@]} ]; do
		if [ "${OBJS[$i]}" = "$1" ]; then
			f=$(find "$C/csv/cmnode" -path "*/$2-*" -type f | head -n 1)
			[ -n "$f" ] || { outside=$((outside + 1)); report="$report; no file $2"; return; }
			r=$(agree "$1" "${OBJS[$((i + 1))]}" "$f" "${OBJS[$((i + 2))]}")
			set -- $r
			total=$((total + $1)) outside=$((outside + $2))
			[ "$1" -gt 0 ] || report="$report; $1 values of $f checked"
			[ "$2" -eq 0 ] || report="$report; ${r#* * }"
			return
		fi
		i=$((i + 3))
	done
}
check_obj cpu1 clustermon-cpu/percent-1
[ "$(nproc)" -ge 2 ] && check_obj cpu2 clustermon-cpu/percent-2
ok $(( outside > 0 || total < 2 )) "per-CPU utilisation (percent) agrees ($total values${report})"
total=0 outside=0 report=
for m in total available free cached; do check_obj "mem_$m" "clustermon-memory/memory-$m"; done
ok $(( outside > 0 || total < 4 )) "memory total, available, free and cached (bytes) agree ($total values${report})"
total=0 outside=0 report=
check_obj procs clustermon-processes/count
check_obj top1_cpu "clustermon-proc_top_cpu/percent-1"
check_obj top1_rss "clustermon-proc_top_rss/memory-1"
ok $(( outside > 0 || total < 3 )) "the process count and rank 1's CPU and resident memory agree ($total values${report})"
# One file a rank: as many as the top table has rows (the rank is the
# index; snmpget of clusterMonProcTopPid.R says which process holds it).
ranks=$(walk "$clusterMonProcTopPid" | grep -c "^$clusterMonProcTopPid\.")
files=$(find "$C/csv/cmnode/clustermon-proc_top_cpu" -name 'percent-*' -type f | sed 's/.*percent-\([0-9]*\)-.*/\1/' | sort -un | tr '\n' ' ')
is "$files" "$(seq 1 "$ranks" | tr '\n' ' ')" "collectd wrote one CPU file a rank, 1 to $ranks (clusterMonProcTopTable's rows)"
total=0 outside=0 report=
check_obj active_opens clustermon-tcp/connections-active_opens
check_obj passive_opens clustermon-tcp/connections-passive_opens
ok $(( outside > 0 || total < 2 )) "TCP active and passive opens agree ($total values${report})"
# Established connections: collectd counts rows, so compare with the count
# of the walks (at least tcpconns's 16).
f=$(find "$C/csv/cmnode" -path "*/clustermon-tcp/tcp_connections-established-*" -type f | head -n 1)
r=$(agree established established "$f" 1)
set -- $r
ok $(( $2 > 0 || $1 < 1 )) "established connections counted by collectd agree with walks of clusterMonTcpConnState ($1 values, $2 outside: ${r#* * })"
if [ -n "$rq" ]; then
	total=0 outside=0 report=
	for p in p50 p90 p99; do check_obj $p "clustermon-sched.runqlat/latency-$p"; done
	ok $(( outside > 0 || total < 3 )) "sched.runqlat's p50, p90 and p99 (seconds) agree ($total values${report})"
else
	skip "sched.runqlat needs clustermon-kprobe (root)"
fi
check "collectd logged no error$(grep -i -m 1 'error\|failed' "$C/collectd.log" | sed 's/^/: /')" \
	lacks "error\|failed" "$(cat "$C/collectd.log")"
finish
