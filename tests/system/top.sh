#!/bin/bash
# top.sh - clusterMonProcTopTable and clusterMonCgroupTopTable against
# pidstat over the same seconds: ten loops of different duty cycles
# (tests/system/duty) rank in pidstat's order wherever pidstat's own
# second-to-second spread tells them apart; rank 1 is the busiest process
# pidstat saw; ranks are ordered; a loop that exits is gone by the first
# sample that started after its exit; topRows bounds the table and a bad
# topRows line names file:line. Two cgroups holding loops of 50% and 5%
# rank in the cgroup top table as the kernel's CPU counters order them.
. "$(dirname "$0")/lib.sh"

command -v pidstat >/dev/null || missing_all "pidstat is missing (apt-get install sysstat)"
DUTY="$top_builddir/tests/system/duty"
[ -x "$DUTY" ] || bail "no $DUTY: make check builds it"
plan 8
W=8                      # seconds pidstat and the agent are compared over
PTOP=$clusterMonProcTopTable.1 CTOP=$clusterMonCgroupTopTable.1

# --- a bad topRows line is refused with its file and line
bad "topRows 0" "topRows 0" "topRows: expected a number of rows from 1 to 1000"

# --- cgroups for the cgroup top table (v2 where it has cpu, else v1 cpu,cpuacct)
V2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
V1_ACCT=$(awk '$3 == "cgroup" && $4 ~ /(^|,)cpuacct(,|$)/ { print $2; exit }' /proc/self/mounts)
CGROOT=
if [ "$(id -u)" = 0 ]; then
	if [ -n "$V1_ACCT" ]; then CGROOT=$V1_ACCT
	elif [ -n "$V2" ]; then CGROOT=$V2; fi
fi
LOOPS=() CGS=()
top_cleanup() {
	kill "${LOOPS[@]}" 2>/dev/null
	wait "${LOOPS[@]}" 2>/dev/null
	for d in "${CGS[@]}"; do rmdir "$d" 2>/dev/null; done
}
trap 'top_cleanup; cleanup' EXIT

printf 'sampleInterval proc 1000 always\nsampleInterval cgroup 1000 always\ntopRows 40\ncgroupMatch cmtop-%s-*\n' "$$" >"$T/top.conf"
start_master || bail "snmpd did not start"
start_agent -c "$T/top.conf" || bail "clustermond did not register"

# Ten loops at 3, 6, ..., 30 % of a CPU: 165 % in all, under the two CPUs
# the suite asks for.
for d in 3 6 9 12 15 18 21 24 27 30; do
	"$DUTY" "$d" 120 & LOOPS+=($!)
done
LOOP10=$(IFS=,; echo "${LOOPS[*]:0:10}")

# top_rows: "RANK PID UTIL" lines of the process top table now.
top_rows() {
	walk "$PTOP" | awk -v p="$PTOP." '
		index($1, p) == 1 { s = substr($1, length(p) + 1); split(s, o, ".")
			if (o[1] == 2) pid[o[2]] = $2; if (o[1] == 4) u[o[2]] = $2 }
		END { for (r in pid) print r, pid[r], u[r] }' | sort -n
}
# Wait until every loop has been sampled twice, then take a first look:
# the pids that may be the busiest (our loops and whatever else ranks).
wait_for 10 sh -c "[ \$(snmpget -v2c -c public -Oqv $TARGET $clusterMonSourceSamples.3) -ge 3 ]"
sleep 1
first=$(top_rows)
is "$(wc -l <<<"$first")" 40 "topRows 40: the table has 40 rows"
PIDS=$(awk '{ print $2 }' <<<"$first" | tr '\n' ',')$LOOP10

# W seconds of pidstat on those pids and W polls of the table.
LC_ALL=C pidstat -h -u -p "$PIDS" 1 "$W" >"$T/pidstat.out" 2>&1 &
PIDSTAT=$!
for i in $(seq 1 "$W"); do
	sleep 1
	top_rows | sed "s/^/$i /" >>"$T/polls"
done
wait "$PIDSTAT"

# pidstat: "PID MEAN SD N" per pid (%CPU column found by its header).
awk '/^#/ { for (i = 1; i <= NF; i++) { if ($i == "%CPU") c = i - 1; if ($i == "PID") p = i - 1 } next }
	c && NF > c { v = $c; s[$p] += v; q[$p] += v * v; n[$p]++ }
	END { for (k in n) { m = s[k] / n[k]; var = q[k] / n[k] - m * m; if (var < 0) var = 0
		printf "%s %.3f %.3f %d\n", k, m, sqrt(var), n[k] } }' "$T/pidstat.out" | sort -k1,1 >"$T/peer"
# agent: "PID MEAN" over the polls, in percent (a poll without the pid counts 0).
awk -v w="$W" '{ s[$3] += $4 / 100 } END { for (k in s) printf "%s %.3f\n", k, s[k] / w }' \
	"$T/polls" | sort -k1,1 >"$T/agent"
diag "pid pidstat-mean pidstat-sd agent-mean for the ten loops:"
join "$T/peer" "$T/agent" | awk -v l=",$LOOP10," 'index(l, "," $1 ",")' | sed 's/^/#   /'

# Order: a pair of loops is told apart when the gap between pidstat's means
# exceeds 3 standard errors of that gap plus 1 % (pidstat counts clock ticks,
# 1 % of a second each); the agent must order every such pair as pidstat.
read -r pairs wrong rho < <(join "$T/peer" "$T/agent" | awk -v l=",$LOOP10," '
	index(l, "," $1 ",") { k++; m[k] = $2; sd[k] = $3; n[k] = $4; a[k] = $5 }
	END { for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) {
		se = sqrt(sd[i]^2 / n[i] + sd[j]^2 / n[j])
		if ((m[i] - m[j])^2 > (3 * se + 1)^2) { p++; if ((m[i] - m[j]) * (a[i] - a[j]) <= 0) w++ } }
		p += 0; w += 0
		for (i = 1; i <= k; i++) { rp = 1; ra = 1
			for (j = 1; j <= k; j++) { if (m[j] > m[i]) rp++; if (a[j] > a[i]) ra++ }
			d2 += (rp - ra)^2 }
		rho = 0; if (k > 1) rho = 1 - 6 * d2 / (k * (k * k - 1))
		printf "%d %d %.3f\n", p, w, rho }')
diag "pairs told apart by pidstat: $pairs of 45; ordered otherwise by the agent: $wrong; Spearman rho $rho"
ok $(( pairs < 20 || wrong > 0 )) "the ten loops rank in pidstat's order ($pairs pairs resolved, $wrong swapped)"

# Rank 1 at every poll has the most CPU of its poll, and ranks never rise.
check "CpuUtil never rises with the rank in any poll" awk '
	$1 != poll { poll = $1; last = -1 } last >= 0 && $4 > last { bad = 1 } { last = $4 }
	END { exit bad }' "$T/polls"
# Rank 1 is the busiest: in each poll, the best-ranked pid among those
# pidstat watched; the one most often there is, by pidstat, within the
# told-apart margin of the busiest pid pidstat saw in every second (a
# compiler or another suite's loop that ran for two of the eight seconds
# has a high mean over those two, and ranks first only while it lives).
r1=$(awk 'NR == FNR { w[$1] = 1; next } $1 != poll { poll = $1; done = 0 }
	!done && ($3 in w) { c[$3]++; done = 1 }
	END { for (p in c) if (c[p] > best) { best = c[p]; b = p } print b }' "$T/peer" "$T/polls")
read -r m1 max top < <(awk -v r="$r1" -v w="$W" '$4 >= w { if ($2 > max) { max = $2; sd = $3; n = $4; t = $1 } }
	$1 == r { m = $2; s1 = $3; n1 = $4 }
	END { if (!n1 || !n) { print "none 0 none"; exit }
		printf "%.3f %.3f %s\n", m, max - 3 * sqrt(sd^2 / n + s1^2 / n1) - 1, t }' "$T/peer")
diag "rank 1 was pid $r1 ($m1 % by pidstat; the busiest of the whole window, pid $top, less the margin: $max %)"
ok "$(awk -v a="$m1" -v b="$max" 'BEGIN { print !(a != "none" && a + 0 >= b + 0) }')" "rank 1 is the busiest process pidstat saw"

# --- a loop that exits leaves the table by the first sample that began after
VICTIM=${LOOPS[9]}
kill "$VICTIM"; wait "$VICTIM" 2>/dev/null
s0=$(get "$clusterMonSourceSamples.3")
wait_for 10 sh -c "[ \$(snmpget -v2c -c public -Oqv $TARGET $clusterMonSourceSamples.3) -ge $((s0 + 2)) ]"
lacks " $VICTIM " "$(top_rows | sed 's/$/ /')"; ok $? "the exited loop (pid $VICTIM) is gone from the table"
lacks "^$VICTIM " "$(walk "$clusterMonProcPid" | sed 's/.*\.//')"; ok $? "and from clusterMonProcTable"

# --- the cgroup top table: the loops above end, and two cgroups get one
# loop each, at 50 % and 5 %, ranked as the kernel's own CPU counters order
# them over the same samples.
kill "${LOOPS[@]}" 2>/dev/null; wait "${LOOPS[@]}" 2>/dev/null
LOOPS=()
kernel_ns() { # DIR
	if [ -f "$1/cpuacct.usage" ]; then cat "$1/cpuacct.usage"
	else echo $(( $(awk '$1 == "usage_usec" { print $2 }' "$1/cpu.stat") * 1000 )); fi
}
if [ -n "$CGROOT" ]; then
	for n in busy calm; do
		mkdir -p "$CGROOT/cmtop-$$-$n" && CGS+=("$CGROOT/cmtop-$$-$n")
	done
	bash -c 'echo $$ >"$1/cgroup.procs" && exec "$2" 50 60' _ "$CGROOT/cmtop-$$-busy" "$DUTY" & LOOPS+=($!)
	bash -c 'echo $$ >"$1/cgroup.procs" && exec "$2" 5 60' _ "$CGROOT/cmtop-$$-calm" "$DUTY" & LOOPS+=($!)
	wait_for 10 sh -c "snmpwalk -v2c -c public -On $TARGET $CTOP.3 | grep -q cmtop-$$-calm"
	s=$(get "$clusterMonSourceSamples.7")
	wait_for 10 sh -c "[ \$(snmpget -v2c -c public -Oqv $TARGET $clusterMonSourceSamples.7) -ge $((s + 1)) ]"
	b0=$(kernel_ns "$CGROOT/cmtop-$$-busy") c0=$(kernel_ns "$CGROOT/cmtop-$$-calm")
	wait_for 10 sh -c "[ \$(snmpget -v2c -c public -Oqv $TARGET $clusterMonSourceSamples.7) -ge $((s + 3)) ]"
	order=$(walk "$CTOP.3" | awk '{ print $2 }' | tr -d '"' | grep "cmtop-$$" | tr '\n' ' ')
	b1=$(kernel_ns "$CGROOT/cmtop-$$-busy") c1=$(kernel_ns "$CGROOT/cmtop-$$-calm")
	diag "kernel CPU ns over those samples: busy $((b1 - b0)), calm $((c1 - c0))"
	if [ $((b1 - b0)) -gt $((c1 - c0)) ]; then want="cmtop-$$-busy cmtop-$$-calm "
	else want="cmtop-$$-calm cmtop-$$-busy "; fi
	is "$order" "$want" "the cgroups rank as the kernel's CPU counters order them"
	walk "$CTOP" | grep -A0 "" | sed 's/^/#   /' | head -n 10
else
	skip "creating cgroups needs root and a cgroup hierarchy"
fi
finish
