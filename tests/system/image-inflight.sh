#!/bin/bash
# image-inflight.sh - clustermon.so's registrations change while a GETBULK
# that is partly its own waits in snmpd for clustermond's AgentX answer.
# snmpd keeps, for every varbind of such a request, the subtree that last
# had it and the end of that subtree's range, and goes on from them when
# the answer comes; unregistering frees the module's subtrees and rejoins
# the subagent's, freeing their ends. The module must not change its
# registrations while a request waits. snmpd runs under valgrind when there
# is one (a read of freed memory is reported), else with glibc filling
# freed memory.
. "$(dirname "$0")/lib.sh"

[ -f "$MODULE" ] || bail "no $MODULE (make builds it)"
plan 6
add_module
echo "agentXTimeout 20" >>"$T/snmpd.conf"
VG_LOG=
if command -v valgrind >/dev/null 2>&1; then
	VG_LOG="$T/snmpd.valgrind"
	printf '#!/bin/sh\nexec valgrind -q --log-file=%s %s "$@"\n' "$VG_LOG" "$SNMPD" >"$T/snmpd-vg"
	chmod +x "$T/snmpd-vg"
	SNMPD="$T/snmpd-vg"
fi
GLIBC_TUNABLES=glibc.malloc.tcache_count=0 MALLOC_PERTURB_=165 \
	start_master || bail "snmpd did not start with clustermon.so"
start_agent || bail "clustermond did not register"
size=$(stat -c %s "$IMAGE")
alive() { kill -0 "$1" 2>/dev/null; }
cpu_row() {
	snmpgetnext -v2c -c public -t 2 -r 0 -On "$TARGET" "$clusterMonCpuTable" 2>/dev/null |
		grep -q "^$clusterMonCpuTable\\.1\\.[0-9]*\\.1 = "
}
check "the module serves clusterMonCpuTable" wait_for 10 cpu_row

# A GETBULK: clusterMonObjects.1 goes to clustermond first (the subtree
# before the module's first one), clusterMonCpuTable to the module, which
# answers what it has and leaves the rest of the repetitions to snmpd.
# With clustermond stopped the request waits in snmpd while the image
# turns to garbage and the module's checks (one a second) see it.
kill -STOP "$AGENT_PID"
snmpbulkget -v2c -c public -t 25 -r 0 -Cn0 -Cr40 -On "$TARGET" \
	"$CM.1" "$clusterMonCpuTable" >"$T/bulk.out" 2>&1 &
bulk=$!
sleep 1
head -c "$size" /dev/urandom >"$IMAGE"
sleep 3
kill -CONT "$AGENT_PID"
wait "$bulk"
check "snmpd is alive" alive "$MASTER_PID"
alive "$MASTER_PID" || bail "snmpd died: $(tail -n 1 "$T/snmpd.log")"
check "the GETBULK is answered" grep -q "^$clusterMonCpuTable\\.1\\." "$T/bulk.out"
check "clustermond is alive" alive "$AGENT_PID"
check "after the garbage the module serves clusterMonCpuTable again" wait_for 10 cpu_row
if [ -n "$VG_LOG" ]; then
	! grep -q "Invalid \(read\|write\)" "$VG_LOG"; ok $? "snmpd read no freed memory (valgrind)"
	grep -q "Invalid" "$VG_LOG" && diag "$(head -n 40 "$VG_LOG")"
else
	skip "no valgrind: snmpd's reads of freed memory go unseen"
fi
finish
