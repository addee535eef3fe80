#!/bin/bash
# getall.sh - every instance a walk of clusterMonObjects returns answers a
# GET, in every table the agent serves: once through AgentX alone, once
# with the fast path (clustermon.so) answering, and once against the
# cgroup-v1 fixture, whose v1-only cgroups have indexes of 2^31 and more
# (net-snmp's AgentX parser sign-extends such sub-identifiers; their rows
# were walked but every GET said noSuchInstance). On a hybrid machine two
# real v1-only cgroups are made as well. Values may change between the
# walk and the GETs; only existence is judged. A row that is gone from a
# second walk of its column (a process that exited) vanished in between,
# which is counted apart and is no failure.
. "$(dirname "$0")/lib.sh"

command -v snmpget >/dev/null || missing_all "snmpget (package snmp) is missing"
plan 8
BATCH=60

# getall LABEL: walks everything, GETs each instance BATCH at a time;
# prints "INSTANCES VANISHED FAILED HIGH" (HIGH: distinct row indexes of
# 2^31 or more; a GETNEXT that skipped such rows shows as too few) and the
# failures into $T/getall-LABEL.
getall() {
	local label=$1 w oids failed=() o col vanished=0 high
	w=$(walk "$CM") || { echo "0 0 walk-failed 0"; return; }
	mapfile -t oids < <(awk '$1 ~ /^\./ { print $1 }' <<<"$w")
	high=$(printf '%s\n' "${oids[@]}" | awk -F. '$NF + 0 >= 2147483648 && !seen[$NF]++ { n++ } END { print n + 0 }')
	for ((i = 0; i < ${#oids[@]}; i += BATCH)); do
		while read -r o; do failed+=("$o"); done < <(
			snmpget -v2c -c public -t 2 -r 1 -On "$TARGET" "${oids[@]:i:BATCH}" 2>&1 |
				awk '/No Such|No more variables/ { print $1 } /^Timeout/ { print "timeout" }')
	done
	: >"$T/getall-$label"
	# A failed instance's column is walked again, once per column (other
	# work's connections and processes come and go): a row gone from it
	# vanished, one still there must answer a GET now. Past 60 columns (an
	# agent gone, a master that stopped answering) the rest count as
	# failures without a recheck, so the test ends in seconds.
	declare -A cols=()
	for o in "${failed[@]}"; do
		col=${o%.*}
		if [ "$o" = timeout ] || { [ -z "${cols[$col]+x}" ] && [ ${#cols[@]} -ge 60 ]; }; then
			echo "$o" >>"$T/getall-$label"; continue
		fi
		[ -n "${cols[$col]+x}" ] || { walk "$col" | awk '{ print $1 }' >"$T/rewalk.${#cols[@]}"; cols[$col]=$T/rewalk.${#cols[@]}; }
		if ! grep -qxF -- "$o" "${cols[$col]}"; then
			vanished=$((vanished + 1))
			echo "$col" >>"$T/vanished-$label"
		elif ! get "$o" >/dev/null 2>&1; then
			echo "$o" >>"$T/getall-$label"
		fi
	done
	echo "${#oids[@]} $vanished $(wc -l <"$T/getall-$label") $high"
}

judge() { # judge LABEL "INSTANCES VANISHED FAILED HIGH" [NEED-HIGH]
	local n v f h
	read -r n v f h <<<"$2"
	diag "$1: $n instances walked, $v vanished before their GET, $f failed, $h distinct indexes >= 2^31"
	ok $(( f != 0 )) "$1: every instance walked answers a GET ($f failed)"
	sed 's/^/#   /' "$T/getall-$1" 2>/dev/null | head -n 20
	[ -s "$T/vanished-$1" ] && diag "$1: columns rows vanished from: $(sort "$T/vanished-$1" | uniq -c | sort -rn | head -n 5 | tr '\n' ' ')"
	# At most a few rows may vanish (processes that exited): a walk that
	# loses most of its rows is no pass.
	ok $(( n == 0 || v * 10 > n )) "$1: the walk returned rows ($n) and few vanished ($v)"
	[ -z "${3:-}" ] || ok $(( h < ${3} )) "$1: the walk had $h rows with indexes of 2^31 or more (want >= $3)"
}

# --- the live machine, AgentX alone; on a hybrid machine two v1-only cgroups
V1_CPU=$(awk '$3 == "cgroup" && $4 ~ /(^|,)cpu(,|$)/ { print $2; exit }' /proc/self/mounts)
MADE=() SLEEPERS=()
trap 'kill "${SLEEPERS[@]}" 2>/dev/null; for d in "${MADE[@]}"; do rmdir "$d" 2>/dev/null; done; cleanup' EXIT
if [ "$(id -u)" = 0 ] && [ -n "$V1_CPU" ]; then
	for n in a b; do mkdir -p "$V1_CPU/cmget-$$-$n" && MADE+=("$V1_CPU/cmget-$$-$n"); done
fi
# The process table bounded to three sleepers of this test (a shared
# machine may run thousands of processes, twenty columns each): a filter by
# name keeps their rows in, where top=N would move rows in and out. The
# name is this run's: another getall.sh (the other suite in CI) has its own
# sleepers, which come and go between this one's walk and its GETs.
sleeper="cmget${T##*.}"
cp "$(command -v sleep)" "$T/$sleeper"
for _ in 1 2 3; do "$T/$sleeper" 600 & SLEEPERS+=($!); done
# The test's own connections, the only ones its tcp table serves: the
# other suite's tests open and close hundreds beside it (CI 17: 2,789 of the
# fixture walk's instances were connections gone before their GET).
CPORT=$(free_port t)
"$top_builddir/tests/system/tcpconns" 4 3 0 "$CPORT" >"$T/conns.own" 2>&1 &
BG_PIDS="${BG_PIDS:-} $!"
wait_for 30 grep -q ready "$T/conns.own" || bail "tcpconns did not open its connections"
printf 'cgroupMatch cmget-%s-*\ncgroupMatch system.slice/*\nsampleInterval cgroup 500\nprocFilter name=%s\ntcpFilter port=%s\n' \
	"$$" "$sleeper" "$CPORT" >"$T/live.conf"
start_master || bail "snmpd did not start"
start_agent -c "$T/live.conf" || bail "clustermond did not register"
wait_for 5 get "$clusterMonCgroupCount.0" >/dev/null
if [ ${#MADE[@]} -gt 0 ]; then
	wait_for 5 sh -c "snmpwalk -v2c -c public -On $TARGET $clusterMonCgroupPath | grep -c cmget-$$ | grep -qx 2"
	r=$(getall live)
	judge live "$r" 2
else
	r=$(getall live)
	judge live "$r"
	skip "no v1 cpu hierarchy here (pure v2): the fixture below has the v1-only rows"
fi
stop_agent
stop_master

# --- the same with the fast path answering from the image
add_module
start_master || bail "snmpd with clustermon.so did not start"
start_agent -c "$T/live.conf" || bail "clustermond did not register"
wait_for 5 get "$clusterMonCgroupCount.0" >/dev/null
judge fastpath "$(getall fastpath)"
stop_agent
stop_master

# --- the v1 fixture: v1-only cgroups (index >= 2^31) on any machine
rm -f "$T/snmpd.conf"
start_master || bail "snmpd did not start again"
# The fixture's cgroups and mounts, with proc-basic's kernel statistics
# (clustermond refuses a root without them).
mkdir -p "$T/root"
cp -R "$top_srcdir/tests/fixtures/cgroup-v1/." "$top_srcdir/tests/fixtures/proc-basic/." "$T/root/"
printf 'cgroupMatch **\ntcpFilter port=%s\n' "$CPORT" >"$T/fix.conf"
start_agent -R "$T/root" -c "$T/fix.conf" ||
	bail "clustermond did not register on the fixture"
wait_for 5 sh -c "snmpwalk -v2c -c public -On $TARGET $clusterMonCgroupPath | grep -q step_0"
judge fixture "$(getall fixture)" 1
finish
