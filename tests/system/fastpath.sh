#!/bin/bash
# fastpath.sh - clustermon.so inside snmpd answers clustermond's read-only
# objects from the image clustermond publishes: the same OIDs, types and
# stable values as the AgentX path; SETs, read-create tables and traps still
# reach clustermond; the objects go when clustermond stops or hangs and come
# back with it, without restarting snmpd; no image, however broken, takes
# snmpd down.
. "$(dirname "$0")/lib.sh"

[ -f "$MODULE" ] || bail "no $MODULE (make builds it)"
plan 25
start_trapd || bail "snmptrapd did not start"
add_module
start_master || bail "snmpd did not start with clustermon.so"
# proc pinned: the walks below compare what both paths serve, and a walk
# of everything reads most sections only past what each request asked for,
# which wakes no source; the exit log (without the helper, the process
# scanner's) would have rows in one walk and none in the other.
echo "sampleInterval proc 1000 always" >"$T/fast.conf"
start_agent -c "$T/fast.conf" || bail "clustermond did not register"

# The module's registrations, as snmpd lists them (nsModuleName).
served() {
	snmpwalk -v2c -c public -t 2 -On "$TARGET" .1.3.6.1.4.1.8072.1.2.1.1.4 2>/dev/null |
		grep -c '"clustermon"'
}
registered() { [ "$(served)" -gt 0 ]; }
unregistered() { [ "$(served)" -eq 0 ]; }
check "snmpd loaded clustermon.so and registered the image's subtrees" wait_for 5 registered
is "$(stat -c %a "$IMAGE")" 640 "the image is readable by the owner's group only (0640)"

# --- the same walk through both paths
walk_all() { snmpbulkwalk -v2c -c public -Cr25 -t 5 -r 1 -On -Oe "$TARGET" "$clusterMonObjects" 2>&1; }
# One line per column (table entries cut after the column) and type; an
# empty string prints as "" with no type, so it counts as a STRING.
# clusterMonAgentImageBytes is the one object that differs by design: the
# second walk is taken with no image published.
shape() {
	grep '^\.' | grep -v "^$clusterMonAgentImageBytes\\.0 " | awk -F' = ' '{ n = split($1, s, "."); t = $2; sub(/:.*/, "", t); if (t == "\"\"") t = "STRING"
		oid = $1; if (n > 15 && s[14] == 1) { oid = ""; for (i = 2; i <= 15; i++) oid = oid "." s[i] }
		print oid, t }' | sort -u
}
# Objects whose values do not move between two walks a second apart: names,
# versions, counts, totals, units, and the process row of snmpd itself.
STABLE="^\\$clusterMonObjects\\.(1\\.[1234]\\.0|3\\.1\\.0|4\\.1\\.0|4\\.7\\.0|2\\.1\\.1\\.[23]\\.[0-9]+|9\\.1\\.1\\.[23]\\.[0-9]+|5\\.1\\.1\\.(2|16|17|18)\\.$MASTER_PID) = "
stable() { grep -E "$STABLE"; }
# Connections of our own, so the TCP table has rows in both walks.
"$top_builddir/tests/system/tcpconns" 4 4 0 >"$T/conns" 2>&1 &
conns=$!
wait_for 10 grep -q ready "$T/conns" || bail "tcpconns did not start"
sleep 1.2   # one tcp sample sees them
walk_all >"$T/walk.fast"
# Without publication clustermond's read-only objects are the subagent's again.
echo "snapshotFile none" >"$T/conf/clustermond.local.conf"
kill -HUP "$AGENT_PID"
check "with the image gone the module gives its subtrees back" wait_for 5 unregistered
walk_all >"$T/walk.agentx"
# The module's registrations left snmpd's tree split at their ends (6.9,
# after clusterMonTcpTimeouts, among them): a GETNEXT that crosses one
# reaches clustermond as an AgentX GetNext with an inclusive range, which
# net-snmp's subagent runs as a GET first. A read of a sleeping source
# that waited in that GET was finished as a GET, and the master answered
# "6.9 = No Such Object" (the walk above stopped there).
tcp_idle() { [ "$(get "$clusterMonSourceEntry.9.4")" = 3 ]; }
wait_for "$(slack 10)" tcp_idle || diag "tcp did not go idle"
out=$(snmpgetnext -v2c -c public -t 3 -r 0 -On "$TARGET" "$clusterMonTcpTimeouts.0" 2>&1)
# (Reached past what it asked for, the range is an over-read: its answer is
# the next instance the last sample holds, whichever that is.)
next_instance() { grep -q "^$clusterMonObjects\.[0-9.]* = " <<<"$1" && ! grep -q "No Such" <<<"$1"; }
check "a GETNEXT crossing into a sleeping source's subtree gets the next instance ($out)" \
	next_instance "$out"
kill "$conns"; wait "$conns" 2>/dev/null
n_fast=$(grep -c "^\\$clusterMonObjects" "$T/walk.fast"); n_ax=$(grep -c "^\\$clusterMonObjects" "$T/walk.agentx")
diag "walks: $n_fast varbinds through the module, $n_ax through AgentX"
check "the walk through the module has no error" lacks "Timeout\|No Such\|Error" "$(tail -n 3 "$T/walk.fast")"
is "$(shape <"$T/walk.fast" | md5sum)" "$(shape <"$T/walk.agentx" | md5sum)" \
	"both paths serve the same objects with the same types"
shape <"$T/walk.fast" >"$T/shape.fast"; shape <"$T/walk.agentx" >"$T/shape.agentx"
diff "$T/shape.fast" "$T/shape.agentx" | head -n 10 | sed 's/^/# /'
is "$(stable <"$T/walk.fast" | md5sum)" "$(stable <"$T/walk.agentx" | md5sum)" \
	"and the same values for the objects that do not change ($(stable <"$T/walk.fast" | wc -l) compared)"
check "the stable set holds the process row of snmpd itself" grep -q "5\.1\.1\.2\.$MASTER_PID = " "$T/walk.fast"
echo "snapshotFile $IMAGE" >"$T/conf/clustermond.local.conf"
kill -HUP "$AGENT_PID"
check "after SIGHUP it publishes again and the module serves it" wait_for 5 registered

# --- SETs, read-create rows and traps still go to clustermond
out=$(set_rw "$clusterMonSourceIntervalMs.2" u 2500)
is "$(get "$clusterMonSourceIntervalMs.2")" 2500 "a SET of clusterMonSourceIntervalMs (mem) with the module loaded"
set_rw "$clusterMonSourceIntervalMs.2" u 1000 >/dev/null
check "a SET of an object the module serves is notWritable, as the subagent says" \
	contains notWritable "$(set_rw "$clusterMonCpuCount.0" u 7)"
TH=$clusterMonThresholdEntry
out=$(set_rw "$TH.11.9" i 4 "$TH.2.9" o "$clusterMonCpuCount.0" "$TH.4.9" u 100 "$TH.5.9" s 1 "$TH.6.9" s 0 "$TH.7.9" i 1)
check "createAndGo of a threshold row" contains "INTEGER: 4" "$out"
check "its rising trap reaches snmptrapd through the master" \
	wait_for 5 sh -c "grep -q '77\\.0\\.1.*11\\.1\\.1\\.2\\.9 =' $T/traps.log"
set_rw "$TH.11.9" i 6 >/dev/null
# A group with a read-create table: the module serves the rest of it (the
# histograms), clustermond the table itself, which SETs change.
snmpwalk -v2c -c public -t 2 -On "$TARGET" .1.3.6.1.4.1.8072.1.2.1.1.4 2>/dev/null |
	grep '"clustermon"' >"$T/regs"
check "the module serves clusterMonHistSourceTable" grep -qF "${clusterMonHistSourceEntry%.1}." "$T/regs"
check "but not clusterMonDistTable" test "$(grep -cF "${clusterMonDistEntry%.1}." "$T/regs")" -eq 0

# --- staleness: a hung clustermond, a killed one, and its return
# Reads keep the cpu source sampling, and its section with the module.
cpu_by_module() {
	get "$clusterMonCpuCount.0" >/dev/null &&
		snmpwalk -v2c -c public -t 2 -On "$TARGET" .1.3.6.1.4.1.8072.1.2.1.1.4 2>/dev/null |
		grep '"clustermon"' | grep -qF "${clusterMonCpuCount#.}."
}
wait_for 5 cpu_by_module || diag "the module does not serve clusterMonCpuCount"
kill -STOP "$AGENT_PID"
out=$(snmpget -v2c -c public -t 2 -r 0 -On -Oqv "$TARGET" "$clusterMonCpuCount.0" 2>&1)
check "the module answers from the image while it is fresh" test "$out" -ge 1
sleep 2.5
out=$(snmpget -v2c -c public -t 3 -r 0 -On -Oqv "$TARGET" "$clusterMonCpuCount.0" 2>&1)
lacks_value() { ! grep -qE '^[0-9]+$' <<<"$1"; }
check "two intervals after clustermond hung nothing is served as current ($out)" lacks_value "$out"
kill -CONT "$AGENT_PID"
check "it serves again when clustermond resumes" wait_for 5 get "$clusterMonCpuCount.0"
# Served by the module when killed, not about to be: a section offered in
# the image's last second would be registered while the image is fresh.
wait_for 5 cpu_by_module || diag "the module does not serve clusterMonCpuCount"
kill -9 "$AGENT_PID"; wait "$AGENT_PID" 2>/dev/null; AGENT_PID=
t0=$(date +%s%N)
gone_ms=never
wait_for $(( $(slack 2500) / 1000 + 1 )) sh -c "! snmpget -v2c -c public -t 1 -r 0 -On -Oqv $TARGET $clusterMonCpuCount.0 | grep -qE '^[0-9]+$'" &&
	gone_ms=$(( ($(date +%s%N) - t0) / 1000000 ))
check "clustermond killed: its objects are gone within two intervals (${gone_ms} ms; $(slack 2500) ms allowed)" \
	test "$gone_ms" != never -a "$gone_ms" -le "$(slack 2500)"
sleep 1
check "and stay gone" lacks_value "$(snmpget -v2c -c public -t 1 -r 0 -On -Oqv "$TARGET" "$clusterMonCpuCount.0" 2>&1)"
start_agent || bail "clustermond did not restart"
check "a new clustermond is served again without restarting snmpd" wait_for 5 registered

# --- images that are garbage, cut short or rewritten under snmpd
cp "$IMAGE" "$T/good.image"
stop_agent
alive() { kill -0 "$MASTER_PID" && snmpget -v2c -c public -t 2 -r 1 "$TARGET" .1.3.6.1.2.1.1.3.0; }
put() { cat >"$IMAGE.new" && mv "$IMAGE.new" "$IMAGE"; }
# under_beat SECONDS BYTES: walks while image_corrupt.py keeps the image
# fresh (so the module reads it) and rewrites BYTES random bytes a round.
under_beat() {
	local corrupter walks=0
	sleep 1.2   # the module's next check maps the new file
	python3 "$top_srcdir/tests/system/image_corrupt.py" "$IMAGE" "$1" "$2" >"$T/corrupt.log" 2>&1 &
	corrupter=$!
	while kill -0 "$corrupter" 2>/dev/null; do walk_all >/dev/null; walks=$((walks + 1)); done
	wait "$corrupter"
	diag "$(cat "$T/corrupt.log"), $walks walks meanwhile"
}
head -c 300000 /dev/urandom | put
sleep 1.5; walk_all >/dev/null
check "a garbage image: snmpd still answers" alive
head -c 6000 "$T/good.image" | put
sleep 1.5; walk_all >/dev/null
check "an image cut short inside its header: snmpd still answers" alive
head -c $(( $(stat -c %s "$T/good.image") / 3 )) "$T/good.image" | put
under_beat 2 0
check "an image cut short inside its sections, kept fresh: snmpd still answers" alive
put <"$T/good.image"
under_beat 6 64
check "an image rewritten at random while walks read it: snmpd still answers" alive
finish
