#!/bin/bash
# image-file.sh - whatever another process does to the image file while
# snmpd reads it through clustermon.so (cut it in place, grow it, replace
# it, remove it, overwrite part of it, fill it with garbage), with random
# GETNEXT and GETBULK requests in flight from several clients and
# clustermond killed and restarted between rounds: snmpd answers
# sysUpTime.0 within a second throughout and never dies, clustermond never
# dies, and after each restart the module serves clusterMonCpuTable again.
. "$(dirname "$0")/lib.sh"

[ -f "$MODULE" ] || bail "no $MODULE (make builds it)"
OPS="truncate grow replace unlink partial garbage"
plan $(( 3 * 6 + 4 ))
# This test reads clusterMonCpuTable through the module: cpu pinned to its
# timer, so its section is always offered (demand.sh tests the other way).
echo "sampleInterval cpu 100 always" >>"$T/conf/clustermond.local.conf"
add_module
start_master || bail "snmpd did not start with clustermon.so"
start_agent || bail "clustermond did not register"

# The module's registration of clusterMonCpuTable, as snmpd lists it
# (nsModuleName, indexed by context, OID and priority).
cpu_table_by_module() {
	snmpwalk -v2c -c public -t 2 -r 1 -On "$TARGET" .1.3.6.1.4.1.8072.1.2.1.1.4 2>/dev/null |
		grep -q "\\.${#cpu_arcs[@]}$clusterMonCpuTable\\.[0-9]* = STRING: \"clustermon\""
}
IFS=. read -r -a cpu_arcs <<<"${clusterMonCpuTable#.}"
# ... and a row of it answered.
cpu_table_served() {
	cpu_table_by_module &&
		snmpgetnext -v2c -c public -t 1 -r 0 -On "$TARGET" "$clusterMonCpuTable" 2>/dev/null |
		grep -q "^$clusterMonCpuTable\\.1\\.[0-9]*\\.1 = "
}
check "the module serves clusterMonCpuTable" wait_for 5 cpu_table_served

# --- load: a sysUpTime.0 watcher and random requests in and around clusterMonObjects
# watch: one GET of sysUpTime.0 at a time, 1 s timeout, no retry; a line
# per answer with its time in ms, "FAIL" for none.
watch() {
	local t0
	while [ ! -e "$T/stop" ]; do
		t0=$(date +%s%N)
		if snmpget -v2c -c public -t 1 -r 0 "$TARGET" .1.3.6.1.2.1.1.3.0 >/dev/null 2>&1; then
			echo "$(( ($(date +%s%N) - t0) / 1000000 ))"
		else
			echo FAIL
		fi
		sleep 0.05
	done >"$T/watch.out"
}
# An OID in or around clusterMonObjects: a group, a table's column and row,
# numbers at the edges, and names just outside the subtree.
around=("$CM" "${CM%.*}" "${CM%.*}.2" "${CM%.*.*}.76" "$clusterMonCpuTable"
	"$clusterMonProcTable" "$clusterMonTcpConnTable")
random_oid() {
	local o=${around[RANDOM % ${#around[@]}]} n=$((RANDOM % 5))
	for _ in $(seq 1 "$n"); do
		case $((RANDOM % 4)) in
		0) o="$o.0" ;; 1) o="$o.4294967295" ;; 2) o="$o.$((RANDOM % 25))" ;; *) o="$o.1" ;;
		esac
	done
	echo "$o"
}
client() {
	local oids
	while [ ! -e "$T/stop" ]; do
		oids=$(for _ in $(seq 1 $((1 + RANDOM % 4))); do random_oid; done)
		# shellcheck disable=SC2086
		if [ $((RANDOM % 3)) -eq 0 ]; then
			snmpgetnext -v2c -c public -t 2 -r 0 "$TARGET" $oids
		else
			snmpbulkget -v2c -c public -t 2 -r 0 -Cn$((RANDOM % 4)) \
				-Cr$(( (RANDOM * 32768 + RANDOM) % 3001 )) "$TARGET" $oids
		fi >/dev/null 2>&1
	done
}
# The load stops with the test, however it ends.
trap 'touch "$T/stop"; cleanup' EXIT
watch &
load=($!)
for _ in 1 2 3; do client & load+=($!); done

# --- the rounds
size=$(stat -c %s "$IMAGE")
do_op() {
	case $1 in
	truncate) truncate -s 4096 "$IMAGE" ;;
	grow) truncate -s $(( size * 2 )) "$IMAGE" ;;
	replace) head -c "$size" /dev/urandom >"$T/other" && mv "$T/other" "$IMAGE" ;;
	unlink) rm -f "$IMAGE" ;;
	partial) dd if=/dev/urandom of="$IMAGE" bs=4096 seek=1 count=8 conv=notrunc status=none ;;
	garbage) head -c "$size" /dev/urandom >"$IMAGE" ;;
	esac
}
alive() { kill -0 "$1" 2>/dev/null; }
for op in $OPS; do
	do_op "$op"
	sleep 2   # requests in flight, the module's and clustermond's checks
	agent_pid=$AGENT_PID
	check "$op: snmpd is alive" alive "$MASTER_PID"
	check "$op: clustermond is alive" alive "$agent_pid"
	alive "$MASTER_PID" || bail "snmpd died at '$op': $(tail -n 1 "$T/snmpd.log")"
	cat "$T/clustermond.log" >>"$T/agents.log"   # the next start empties it
	kill -9 "$agent_pid" 2>/dev/null; wait "$agent_pid" 2>/dev/null; AGENT_PID=
	start_agent || diag "$op: clustermond did not restart"
	check "$op: after a restart the module serves clusterMonCpuTable again" \
		wait_for 5 cpu_table_served
done

touch "$T/stop"
wait "${load[@]}" 2>/dev/null
answers=$(grep -c . "$T/watch.out")
fails=$(grep -c FAIL "$T/watch.out")
slowest=$(grep -v FAIL "$T/watch.out" | sort -n | tail -n 1)
diag "sysUpTime.0: $answers tries, $fails without an answer within 1 s, slowest ${slowest:-?} ms"
check "snmpd answered sysUpTime.0 within 1 s throughout ($answers tries)" \
	test "$answers" -gt 50 -a "$fails" -eq 0
check "snmpd never died" alive "$MASTER_PID"
check "clustermond logged what it did about its file" \
	grep -q 'changed by another process' "$T/agents.log"
finish
