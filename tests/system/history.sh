#!/bin/bash
# history.sh - clusterMonHistoryCtlTable / clusterMonHistoryTable: buckets
# whose mean agrees with /proc/stat while a pinned loop runs, ten samples
# per one-second bucket, bounded rings, refused SETs, config rows and lines
# refused with file:line, nonVolatile rows surviving a restart.
. "$(dirname "$0")/lib.sh"

plan 25
keep_cpu0_for_load
start_master || bail "snmpd did not start"

bad "a history interval of 5 ms" "history x $clusterMonCpuUtil.1 5 10" "10..3600000"
bad "a history of 0 buckets" "history x $clusterMonCpuUtil.1 100 0" "BUCKETS"
bad "a history of a group, not an instance" "history x $clusterMonCpuTable 100 10" "not an instance"
bad "a threshold without falling" "threshold x $clusterMonMemTotalKB.0 rising=5" "falling=N"
bad "a threshold with falling above rising" "threshold x $clusterMonMemTotalKB.0 rising=5 falling=6" "above rising"
bad "a threshold with a stray word" "threshold x $clusterMonMemTotalKB.0 rising=5 falling=1 sometimes" "not rising=N"

H=$clusterMonHistoryCtlEntry D=$clusterMonHistoryEntry UTIL1=$clusterMonCpuUtil.1
echo "history cpu0 $UTIL1 100 50" >"$T/h.conf"
start_agent -c "$T/h.conf" || bail "clustermond did not register"
is "$(get "$H.6.1")" '"cpu0"' "the config row's owner is its NAME"
is "$(get "$H.7.1")" 5 "and it is readOnly"
is "$(get "$H.5.1")" 50 "50 buckets granted"

# --- the mean follows the kernel's own count of CPU 0's busy time
cpu0() { awk '$1 == "cpu0" { printf "%.0f %.0f\n", $2+$3+$4+$7+$8+$9, $5+$6 }' /proc/stat; }
uptime_ticks() { snmpget -v2c -c public -On -Oqv -Ot "$TARGET" .1.3.6.1.2.1.1.3.0; }
# A 2 s window with CPU 0 busy for about half of it.
read -r b0 i0 <<<"$(cpu0)"; up0=$(uptime_ticks)
sleep 0.5
pid=$(busy 0 1)
sleep 1.5
read -r b1 i1 <<<"$(cpu0)"; up1=$(uptime_ticks)
wait "$pid" 2>/dev/null
kernel=$(( (b1 - b0) * 10000 / (b1 - b0 + i1 - i0) ))
# Buckets that began and ended inside the window.
served=$(paste <(walk "$D.2.1") <(walk "$D.6.1") |
	awk -v a="$up0" -v b="$up1" '$2 >= a && $2 + 10 <= b { s += $4; n++ } END { if (n) printf "%d %d\n", s / n, n }')
read -r mean n <<<"$served"
diag "kernel says $kernel, $n buckets say $mean (hundredths of a percent)"
check "at least 15 of the 20 buckets in the 2 s window are there (${n:-0})" test "${n:-0}" -ge 15
check "their mean is within 15 points of /proc/stat's busy share" \
	test "$(( ${mean:-0} - kernel ))" -le 1500 -a "$(( kernel - ${mean:-0} ))" -le 1500

# --- 1 s buckets get ten samples each
out=$(set_rw "$H.8.2" i 4 "$H.2.2" o "$clusterMonMemFreeKB.0" "$H.3.2" u 1000 "$H.4.2" u 5 "$H.6.2" s me)
check "createAndGo of a 1 s history of clusterMonMemFreeKB" contains "INTEGER: 4" "$out"
out=$(set_rw "$H.8.3" i 4 "$H.2.3" o "$UTIL1" "$H.3.3" u 100 "$H.4.3" u 5 "$H.7.3" i 2)
check "and a volatile 100 ms history of 5 buckets" contains "INTEGER: 4" "$out"
sleep 2.5
samples=$(walk "$D.3.2" | awk '{ print $2 }' | sort -u | tr '\n' ' ')
check "closed 1 s buckets hold 9 to 11 samples ($samples)" \
	sh -c "for s in $samples; do [ \$s -ge 9 ] && [ \$s -le 11 ] || exit 1; done; [ -n '$samples' ]"
# A walk is one GETNEXT per row: a bucket closing during it shows the new
# one besides the five it walked already, so look again until one walk
# fell between two closings.
for _ in 1 2 3 4 5; do n=$(walk "$D.3.3" | wc -l); [ "$n" -eq 5 ] && break; done
is "$n" 5 "the 5-bucket history keeps exactly 5 buckets"
idx=$(walk "$D.3.3" | sed "s/^$D\.3\.3\.\([0-9]*\) .*/\1/" | tr '\n' ' ')
check "its sample indexes ascend by one ($idx)" \
	sh -c "set -- $idx; while [ \$# -gt 1 ]; do [ \$2 -eq \$((\$1 + 1)) ] || exit 1; shift; done"

# --- refused SETs
before=$(walk "$clusterMonHistoryCtlTable")
refused "a variable that does not exist" inconsistentValue "$H.8.4" i 4 "$H.2.4" o "$clusterMonCpuUtil.999"
refused "an interval of 5 ms" wrongValue "$H.3.2" u 5
refused "0 buckets" wrongValue "$H.4.2" u 0
refused "setting BucketsGranted" notWritable "$H.5.2" u 9
refused "setting a history bucket" notWritable "$D.4.2.1" u 5
refused "changing a config row" notWritable "$H.3.1" u 200
is "$(walk "$clusterMonHistoryCtlTable")" "$before" "the control table is unchanged"

# --- persistence
stop_agent
start_agent -c "$T/h.conf" || bail "clustermond did not come back"
is "$(get "$H.2.2")" "$clusterMonMemFreeKB.0" "the nonVolatile history is back after a restart"
lacks "$H.8.3 " "$(walk "$H.8")"; ok $? "the volatile one is gone"
finish
