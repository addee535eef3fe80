#!/bin/bash
# threshold.sh - clusterMonThresholdTable: a busy loop's CPU (its own row
# of clusterMonProcTable, so what else the machine runs cannot move it)
# raises exactly one rising trap through the master to snmptrapd when the
# loop runs, and one falling trap when it is stopped; refused SETs change nothing; config rows are readOnly; nonVolatile
# rows survive a restart of clustermond, volatile ones do not.
. "$(dirname "$0")/lib.sh"

plan 45
# The loop: started stopped, continued and stopped again by the test; ends
# by itself after two minutes whatever happens to the test.
python3 -c 'import time
end = time.time() + 120
while time.time() < end:
    pass' &
LOOP=$!
kill -STOP "$LOOP"
start_trapd || bail "snmptrapd did not start"
start_master || bail "snmpd did not start"
cat >"$T/th.conf" <<EOC
sampleInterval proc 250
threshold memtotal $clusterMonMemTotalKB.0 rising=18446744073709551615 falling=0 delta interval=500
EOC
start_agent -c "$T/th.conf" || bail "clustermond did not register"

TH=$clusterMonThresholdEntry UTIL1=$clusterMonCpuUtil.1 LUTIL=$clusterMonProcCpuUtil.$LOOP RISE=$clusterMonThresholdRising FALL=$clusterMonThresholdFalling

# --- the row from the config file
is "$(get "$TH.12.1")" '"memtotal"' "the config row's owner is its NAME"
is "$(get "$TH.5.1")" '"18446744073709551615"' "its rising level is 2^64-1"
is "$(get "$TH.3.1")" 2 "and it samples deltas"
is "$(get "$TH.10.1")" 5 "the config row is readOnly (StorageType 5)"
is "$(get "$TH.11.1")" 1 "and active"
check "a SET on a readOnly row is notWritable" contains notWritable "$(set_rw "$TH.5.1" s 1)"
check "destroying it is notWritable too" contains notWritable "$(set_rw "$TH.11.1" i 6)"
set_rw "$TH.11.1" i 6 >/dev/null
is "$(get "$TH.11.1")" 1 "the config row is still there"

# --- one rising and one falling trap for one busy period of the loop
# A running loop has at least a tenth of a CPU however loaded the machine
# (1000); a stopped one none (under 200).
quiet() { v=$(snmpget -v2c -c public -On -Oqv "$TARGET" "$LUTIL") && [ "$v" -lt 200 ] 2>/dev/null; }
wait_for 10 quiet || bail "no quiet row for the stopped loop (pid $LOOP): $(get "$LUTIL")"
out=$(set_rw "$TH.11.5" i 4 "$TH.2.5" o "$LUTIL" "$TH.4.5" u 100 "$TH.5.5" s 1000 \
	"$TH.6.5" s 200 "$TH.7.5" i 1 "$TH.12.5" s "test")
check "createAndGo with every column in one request" contains "INTEGER: 4" "$out"
is "$(get "$TH.11.5")" 1 "the new row is active"
is "$(get "$TH.10.5")" 3 "and nonVolatile by default"
sleep 0.5
is "$(traps "$RISE" "$TH.2.5 =")" 0 "no startup trap while the loop is stopped (startup rising)"
kill -CONT "$LOOP"
wait_for 4 sh -c "grep -q '77\\.0\\.1.*11\\.1\\.1\\.2\\.5 =' $T/traps.log"
check "the running loop raised a rising trap" test "$(traps "$RISE" "$TH.2.5 =")" -ge 1
sleep 1
is "$(traps "$RISE" "$TH.2.5 =")" 1 "exactly one rising trap while the value stays high"
is "$(get "$TH.9.5")" 2 "clusterMonThresholdState is risen"
check "clusterMonThresholdValue reads at least 1000 ($(get "$TH.8.5"))" test "$(get "$TH.8.5")" -ge 1000
kill -STOP "$LOOP"
# Falling traps of row 5 from its first rising trap's line on (traps from
# one agent through one master arrive in the order sent).
trap_lines() { grep -nE "4\.1\.0 = OID: ${1//./\\.}([[:space:]]|\$)" "$T/traps.log" | grep -F "$TH.2.5 ="; }
falls_after_rise() {
	local at
	at=$(trap_lines "$RISE" | head -n 1 | cut -d: -f1)
	trap_lines "$FALL" | awk -F: -v at="${at:-0}" '$1 > at { n++ } END { print n + 0 }'
}
fell() { [ "$(falls_after_rise)" -ge 1 ]; }
wait_for 5 fell
rise_then=$(traps "$RISE" "$TH.2.5 =")
sleep 0.5
# Half a second more: a second falling trap would need a rise in between.
falls=$(falls_after_rise)
is "$falls" 1 "exactly one falling trap after the rising one (before the loop: $(( $(traps "$FALL" "$TH.2.5 =") - falls )))"
is "$rise_then" 1 "and no rising trap between the first and the falling one"
line=$(grep "77\.0\.1.*11\.1\.1\.2\.5 =" "$T/traps.log" | head -n 1)
check "the rising trap names the variable" contains "$TH.2.5 = OID: $LUTIL" "$line"
check "and carries the sampled value" contains "$TH.8.5 = Counter64:" "$line"
check "and the rising level" contains "$TH.5.5 = STRING: \"1000\"" "$line"

# --- refused SETs leave the table as it was
# Everything but clusterMonThresholdValue, which moves with the CPU.
table() { walk "$TH" | grep -v "^$TH\.8\."; }
before=$(table)
refused "falling above rising" inconsistentValue "$TH.11.6" i 4 "$TH.2.6" o "$UTIL1" "$TH.5.6" s 10 "$TH.6.6" s 20
refused "a variable that does not exist" inconsistentValue "$TH.11.6" i 4 "$TH.2.6" o "$clusterMonCpuUtil.9999" "$TH.5.6" s 10 "$TH.6.6" s 5
refused "a variable that is not numeric" inconsistentValue "$TH.11.6" i 4 "$TH.2.6" o "$clusterMonNodeName.0" "$TH.5.6" s 10 "$TH.6.6" s 5
refused "a variable outside clustermond" inconsistentValue "$TH.11.6" i 4 "$TH.2.6" o .1.3.6.1.2.1.1.3.0 "$TH.5.6" s 10 "$TH.6.6" s 5
refused "createAndGo without the levels" inconsistentValue "$TH.11.6" i 4 "$TH.2.6" o "$UTIL1"
refused "createAndGo on an existing row" inconsistentValue "$TH.11.5" i 4
refused "raising falling above rising on a live row" inconsistentValue "$TH.6.5" s 9000
refused "RowStatus notReady" wrongValue "$TH.11.6" i 3
refused "StorageType readOnly" wrongValue "$TH.10.5" i 5
refused "a level with letters" wrongValue "$TH.5.5" s 12ab
refused "a level of 21 digits" wrongLength "$TH.5.5" s 123456789012345678901
refused "an interval of 5 ms" wrongValue "$TH.4.5" u 5
refused "an interval of 99 ms (the floor is 100, issue 40)" wrongValue "$TH.4.5" u 99
refused "an INTEGER interval" wrongType "$TH.4.5" i 100
refused "index 0" noCreation "$TH.11.0" i 4
refused "index 65536" noCreation "$TH.11.65536" i 4
refused "setting clusterMonThresholdValue" notWritable "$TH.8.5" x 00
refused "a column of a row that does not exist" noCreation "$TH.5.77" s 10
is "$(table)" "$before" "after all of them the table reads the same"

# --- persistence across a restart
set_rw "$TH.11.7" i 5 "$TH.2.7" o "$UTIL1" "$TH.5.7" s 9500 "$TH.6.7" s 10 "$TH.10.7" i 2 >/dev/null
set_rw "$TH.11.7" i 1 >/dev/null
is "$(get "$TH.11.7")" 1 "a volatile row went active after createAndWait"
stop_agent
start_agent -c "$T/th.conf" || bail "clustermond did not come back"
is "$(get "$TH.11.5")" 1 "the nonVolatile row is back and active after a restart"
is "$(get "$TH.5.5")" '"1000"' "with its rising level"
is "$(get "$TH.12.5")" '"test"' "and its owner"
lacks "$TH.11.7 " "$(walk "$TH.11")"; ok $? "the volatile row is gone"
kill -9 "$LOOP" 2>/dev/null
finish
