#!/bin/bash
# image-churn.sh - the process table read two ways while processes come
# and go, hundreds of times a second on a quiet machine (issue 30): through AgentX (the master
# clustermond is attached to) and through clustermon.so in a second snmpd
# that reads only clustermond's image, which is written by change while
# they read. Each churned process runs as "cmchurn-RUN-K" (argv[0], K unique),
# and the churner logs every pid with its K, so a row whose index and
# command line belong to different processes, or to no process that ever
# had that pid, is caught; the two readers agree on the command line and
# start time of every churned pid both saw; both walks complete, in order.
. "$(dirname "$0")/lib.sh"

[ -f "$MODULE" ] || bail "no $MODULE (make builds it)"
plan 7
CHURN_S=12 LOOPS=4   # four loops of about 100 processes a second, for 12 s at most
start_master || bail "snmpd did not start"
printf 'sampleInterval proc 10 always\n' >"$T/clustermond.conf"
AGENT_WAIT=30 start_agent -c "$T/clustermond.conf" || bail "clustermond did not register"
wait_for 10 test -s "$IMAGE" || bail "clustermond published no image"

# The second snmpd: the module only, on a port of its own.
PORT2=$(free_udp_port) || bail "no free UDP port"
TARGET2="127.0.0.1:$PORT2"
cat >"$T/snmpd2.conf" <<EOC
agentAddress udp:$TARGET2
rocommunity public 127.0.0.1
dlmod clustermon $MODULE
clustermonSnapshot $IMAGE
EOC
"$SNMPD" -f -C -c "$T/snmpd2.conf" -LF 0-4 "$T/snmpd2.log" -p "$T/snmpd2.pid" \
	-I -smux,mteTrigger,mteTriggerConf &
M2=$!
trap 'kill -9 $M2 2>/dev/null; cleanup' EXIT
module_rows() { snmpgetnext -v2c -c public -t 2 -r 1 -On "$TARGET2" "$clusterMonProcEntry.17" 2>/dev/null |
	grep -q "^$clusterMonProcEntry\\.17\\."; }
check "the second snmpd serves the process table from the image" wait_for 10 module_rows

# The churner: stops by itself after CHURN_S s, each child after 0.3 s;
# it logs each child's pid and K before the child can be sampled. The
# prefix is this run's: CI runs the plain and sanitizer suites side by side,
# and the other suite's churners are in the same process table.
CH="cmchurn-${T##*.}-"
churners=()
for l in $(seq 1 "$LOOPS"); do
	timeout "$CHURN_S" bash -c "while :; do k=$l\$RANDOM\$RANDOM; (exec -a $CH\$k sleep 0.3) & echo \"\$! \$k\"; sleep 0.005; done" \
		>"$T/churn.$l" 2>/dev/null &
	churners+=($!)
done
sleep 1
# walk_proc TARGET FILE: the command line and start time columns, a walk
# each, raw into FILE.raw; "pid column value" lines into FILE.
walk_proc() {
	local col
	for col in 17 18; do
		snmpbulkwalk -v2c -c public -Cr50 -t 5 -r 1 -On -Oq "$1" "$clusterMonProcEntry.$col" 2>&1
	done >"$2.raw"
	sed -n "s/^\\$clusterMonProcEntry\\.\\([0-9]*\\)\\.\\([0-9]*\\) /\\2 \\1 /p" "$2.raw" |
		tr -d '"' >"$2"
}
for round in 1 2 3; do
	walk_proc "$TARGET" "$T/ax.$round" & ax=$!
	walk_proc "$TARGET2" "$T/mod.$round"
	wait "$ax"
done
wait "${churners[@]}" 2>/dev/null
cat "$T"/churn.[0-9]* >"$T/churn.log"
started=$(wc -l <"$T/churn.log")
# The rate is the machine's to decide (about 90 a second with the load
# average at 38, several hundred on a quiet one): printed, not judged.
diag "the churners started $started processes in $CHURN_S s ($(( started / CHURN_S )) a second)"
check "processes churned while both walked" test "$started" -gt "$CHURN_S"
# mismatched LOG WALK: churned rows (a command line $CH K) whose pid is
# not the pid K ran as; then the number of churned rows seen.
mismatched() {
	awk -v ch="$CH" 'NR == FNR { pid_of[$2] = $1; next }
	     $2 == 17 && index($3, ch) == 1 { k = substr($3, length(ch) + 1); n++; if (pid_of[k] != $1) bad++ }
	     END { print bad + 0, n + 0 }' "$1" "$2"
}
bad=0 seen_ax=0 seen_mod=0 errors=0
for round in 1 2 3; do
	read -r b n <<<"$(mismatched "$T/churn.log" "$T/ax.$round")"; bad=$((bad + b)) seen_ax=$((seen_ax + n))
	read -r b n <<<"$(mismatched "$T/churn.log" "$T/mod.$round")"; bad=$((bad + b)) seen_mod=$((seen_mod + n))
	# (a command line may hold newlines: only the tools' own complaints count)
	errors=$((errors + $(grep -hE '^Timeout|^Error|OID not increasing' "$T/ax.$round.raw" "$T/mod.$round.raw" | tee -a "$T/errors" | wc -l)))
done
check "both readers saw churned rows (AgentX $seen_ax, module $seen_mod over 3 rounds)" \
	test "$seen_ax" -gt 0 -a "$seen_mod" -gt 0
is "$errors" 0 "every walk completed in order, through both paths"
head -n 5 "$T/errors" 2>/dev/null | sed 's/^/# /'
is "$bad" 0 "every churned row's command line belongs to the process its index names"
# agree A B: cells of pids both walks saw as churned (each walk reads its
# command line column first) whose command line or start time differ
# between them; then how many were compared.
agree() {
	awk -v ch="$CH" 'NR == FNR { v[$1 " " $2] = $3; next }
	     $2 == 17 && index($3, ch) == 1 { mine[$1] = 1 }
	     mine[$1] && index(v[$1 " 17"], ch) == 1 && ($1 " " $2) in v {
		n++; if (v[$1 " " $2] != $3) bad++ }
	     END { print bad + 0, n + 0 }' "$1" "$2"
}
diff_n=0 compared=0
for round in 1 2 3; do
	read -r b n <<<"$(agree "$T/ax.$round" "$T/mod.$round")"; diff_n=$((diff_n + b)) compared=$((compared + n))
done
diag "cells of churned rows compared between the readers: $compared"
is "$diff_n" 0 "the two readers agree on the command line and start time of rows both saw"
check "the second snmpd is alive" kill -0 "$M2"
kill -9 "$M2" 2>/dev/null; wait "$M2" 2>/dev/null
finish
