#!/bin/bash
# defaults.sh - clustermond as installed (every source at its shipped
# default, the image published and clustermon.so loaded in snmpd) on a node
# of 10,000 idle processes, 5,000 loopback connections (10,000 sockets) and
# 500 cgroups (issue 42), per thread, from schedstat:
#   unread   nobody polls (target < 0.2% of a core, with the helper);
#   polled   a poller walks, every 10 s, what contrib's templates poll: the
#            CPU, memory, top, cgroup and distribution tables and the Tcp
#            counters (target < 0.5%), with snmpd's CPU printed beside;
#   scanner  nobody polls, no helper (target < 3%).
# Beside them, in the same invocation on the same node: Debian's
# prometheus-node-exporter at its default collectors scraped every 15 s,
# and `pidstat -p ALL 1` plus `ss -tin` once a second, what an operator
# would run instead. Runs interleaved, the median printed.
. "$(dirname "$0")/../system/lib.sh"
image_on_tmpfs || bail "cannot mount a tmpfs for the image (as /run is)"
[ "$(id -u)" -eq 0 ] || bail "needs root (BPF programs, cgroups, 10,000 processes)"
[ -x "$KPROBE_HELPER" ] || bail "clustermon-kprobe is not built"
[ -f "$MODULE" ] || bail "no $MODULE"
CLUSTERMOND=${BENCH_CLUSTERMOND:-$CLUSTERMOND} KPROBE_HELPER=${BENCH_HELPER:-$KPROBE_HELPER}
IDLE=${IDLE:-10000} CONNS_N=${CONNS_N:-5000} CGROUPS=${CGROUPS:-500}
SECONDS_EACH=${SECONDS_EACH:-30} RUNS=${RUNS:-2} POLL=${POLL:-10}
NODE_EXPORTER=${NODE_EXPORTER:-/usr/bin/prometheus-node-exporter}
PFX="cmdefaults-$$"

V2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
[ -n "$V2" ] || bail "no cgroup2 hierarchy mounted"
cg_cleanup() { rmdir "$V2/$PFX"/g* "$V2/$PFX" 2>/dev/null; }
trap 'cg_cleanup; cleanup' EXIT
mkdir "$V2/$PFX" || bail "cannot create $V2/$PFX"
for i in $(seq 1 "$CGROUPS"); do mkdir "$V2/$PFX/g$i"; done

ALARM=3600 start_idlers "$IDLE" || bail "the $IDLE idle processes did not start"
add_module
start_master >/dev/null || bail "snmpd did not start"
start_helper >/dev/null || bail "clustermon-kprobe did not start"
open_conns "$CONNS_N"
nprocs() { find /proc -maxdepth 1 -name '[0-9]*' 2>/dev/null | wc -l; }
. "$(dirname "$0")/threads.sh"
covers() { [ "$(snmpget -v2c -c public -On -Oqv "$TARGET" "$clusterMonProcCount.0")" -ge "$IDLE" ]; }
pct() { printf '%d.%03d%%' $(( $1 / 1000 )) $(( $1 % 1000 )); }
per_mille_k() { echo $(( $1 * 100000 / $2 )); } # NS WALL: thousandths of a percent

# What the shipped templates poll (contrib/zabbix, cacti, collectd): tables
# walked, scalars got (a walk of a scalar's subtree reads on past it, into
# the next table: the Tcp counters' walk would read the connections).
POLLED="$clusterMonCpu $clusterMonMemory $clusterMonProcTopTable $clusterMonCgroupTopTable
	$clusterMonCgroupTable $clusterMonHistSourceTable $clusterMonSampling"
SCALARS="$clusterMonTcpActiveOpens.0 $clusterMonTcpRetransSegs.0 $clusterMonTcpInErrs.0"
poller() {
	local end=$(( $(date +%s) + $1 ))
	while [ "$(date +%s)" -lt "$end" ]; do
		for o in $POLLED; do snmpbulkwalk -v2c -c public -Cr50 -t 5 "$TARGET" "$o" >/dev/null 2>&1; done
		snmpget -v2c -c public -t 5 "$TARGET" $SCALARS >/dev/null 2>&1
		sleep "$POLL"
	done
}

# one MODE: clustermond with the helper's socket (or none), the cgroups to
# follow and the image; sets PM, PMK, PMS (clustermond, helper, snmpd in
# thousandths of a percent of a core), THREADS, METHOD.
one() {
	local sock=$HELPER_SOCK c0 k0 s0 t0 c1 k1 s1 t1 th0 th1 pp=
	[ "$1" = scanner ] && sock=$T/no-helper.sock
	printf 'helperSocket %s\ncgroupMatch %s/*\nsnapshotFile %s\n' "$sock" "$PFX" "$IMAGE" >"$T/bench.conf"
	AGENT_WAIT=60 start_agent -c "$T/bench.conf" >/dev/null || bail "clustermond did not register"
	wait_for 90 covers
	METHOD=$(get "$CM.2.1.1.8.3")
	sleep 8   # past the first passes and the holds of the reads above
	[ "$1" = polled ] && { poller "$SECONDS_EACH" & pp=$!; }
	th0=$(threads "$AGENT_PID") c0=$(cpu_ns "$AGENT_PID") k0=$(cpu_ns "$HELPER_PID")
	s0=$(cpu_ns "$MASTER_PID") t0=$(date +%s%N)
	sleep "$SECONDS_EACH"
	c1=$(cpu_ns "$AGENT_PID") k1=$(cpu_ns "$HELPER_PID") s1=$(cpu_ns "$MASTER_PID")
	t1=$(date +%s%N) th1=$(threads "$AGENT_PID")
	[ -n "$pp" ] && { kill "$pp" 2>/dev/null; wait "$pp" 2>/dev/null; }
	THREADS=$(per_thread "$th0" "$th1" $((t1 - t0)))
	PM=$(per_mille_k $((c1 - c0)) $((t1 - t0))) PMK=$(per_mille_k $((k1 - k0)) $((t1 - t0)))
	PMS=$(per_mille_k $((s1 - s0)) $((t1 - t0)))
	[ "$1" = scanner ] && PMK=0
	stop_agent
}

# The peers: CPU of what runs over SECONDS_EACH (children's rusage).
children_cpu() { # COMMAND...: its and its children's CPU in ns
	python3 -c 'import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
r = resource.getrusage(resource.RUSAGE_CHILDREN); print(int((r.ru_utime + r.ru_stime) * 1e9))' "$@"
}
node_exporter() {
	local port ns0 ns1 t0 t1 pid scrapes=0
	[ -x "$NODE_EXPORTER" ] || { echo "node_exporter: not installed (apt install prometheus-node-exporter)"; return; }
	port=$(free_tcp_port)
	"$NODE_EXPORTER" --web.listen-address="127.0.0.1:$port" >/dev/null 2>&1 & pid=$!
	wait_for 10 curl -sf -o /dev/null "http://127.0.0.1:$port/metrics" || { kill "$pid"; return; }
	ns0=$(cpu_ns "$pid") t0=$(date +%s%N)
	for _ in $(seq 1 $((SECONDS_EACH / 15))); do
		curl -sf -o /dev/null "http://127.0.0.1:$port/metrics" && scrapes=$((scrapes + 1)); sleep 15
	done
	ns1=$(cpu_ns "$pid") t1=$(date +%s%N)
	kill "$pid"; wait "$pid" 2>/dev/null
	NE=$(per_mille_k $((ns1 - ns0)) $((t1 - t0)))
	echo "node_exporter (defaults, scraped every 15 s, $scrapes scrapes): $(pct "$NE") of a core, $(( (ns1 - ns0) / (scrapes > 0 ? scrapes : 1) / 1000000 )) ms a scrape"
}
pidstat_ss() {
	local t0 t1 ns
	t0=$(date +%s%N)
	ns=$(children_cpu bash -c "pidstat -p ALL 1 $SECONDS_EACH & for i in \$(seq $SECONDS_EACH); do ss -tin; sleep 1; done; wait")
	t1=$(date +%s%N)
	PS=$(per_mille_k "$ns" $((t1 - t0)))
	echo "pidstat -p ALL 1 + ss -tin every second: $(pct "$PS") of a core"
}

echo "== defaults: $IDLE idle processes ($(nprocs) in /proc), $(ss -tH | wc -l) TCP sockets, $CGROUPS cgroups; image published, clustermon.so loaded; ${SECONDS_EACH} s each, $RUNS runs"
declare -A got
for r in $(seq 1 "$RUNS"); do
	for mode in ${MODES:-unread polled scanner}; do
		one "$mode"
		printf 'run %s %-7s (%s): clustermond %s + clustermon-kprobe %s = %s of a core; snmpd %s\n' \
			"$r" "$mode" "$METHOD" "$(pct "$PM")" "$(pct "$PMK")" "$(pct $((PM + PMK)))" "$(pct "$PMS")"
		printf '      threads:%s\n' "$THREADS"
		got[$mode]+="$((PM + PMK)) " got[$mode.snmpd]+="$PMS "
	done
done
node_exporter
pidstat_ss
med() { printf '%s\n' $@ | sort -n | sed -n "$(( ($(wc -w <<<"$*") + 1) / 2 ))p"; }
u=$(med ${got[unread]:-0}) p=$(med ${got[polled]:-0}) s=$(med ${got[scanner]:-0})
echo "defaults: unread $(pct "$u") (target < 0.2%); polled every ${POLL} s $(pct "$p") (target < 0.5%), snmpd $(pct "$(med ${got[polled.snmpd]:-0})") (unread $(pct "$(med ${got[unread.snmpd]:-0})")); the scanner unread $(pct "$s") (target < 3%)"
kill "${CONNS[@]}" 2>/dev/null; wait "${CONNS[@]}" 2>/dev/null
kill "$idlers"; wait "$idlers" 2>/dev/null
