#!/bin/bash
# fleet.sh - make check-fleet: four simulated nodes (tests/system/fleet-lib.sh)
# polled by two Prometheus shards (hashmod) and a two-member vmagent
# cluster, both through snmp_exporter into one VictoriaMetrics, with
# contrib/prometheus/rules.yml in vmalert. What VictoriaMetrics holds is
# checked against each node's known workload and the kernel's own counts,
# and four faults are each seen the way docs/fleet.md says.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fleet-lib.sh"

[ "$(id -u)" -eq 0 ] || skip_all "needs root for network namespaces"
need_helper
fleet_need
plan 24
N=4 IV=5
NODES=$(seq 1 $N)
trap 'fleet_down; cleanup' EXIT
# The workloads last until fleet_down ends them: a loaded machine takes far
# longer than the checks' few minutes, and a node whose PID 1 (fleetload)
# ended would take its snmpd and clustermond with it.
fleet_up $N 3600 $IV
ENGINES="prometheus vmagent"

# nodes_of EXPR: the node labels of a query's series, sorted, on one line.
nodes_of() { q "$1" | grep -o 'node=node[0-9]*' | sort | uniq | tr '\n' ' '; }
ALL=$(for i in $NODES; do echo "node=node$i"; done | tr '\n' ' ')
# until_q SECONDS PROMQL WANT: polls once a second until PROMQL's one value is WANT.
until_q() {
	local i
	for i in $(seq 1 "$1"); do [ "$(qv "$2")" = "$3" ] && return 0; sleep 1; done
	return 1
}
# Both vmagent members scraping (one may start well after the other).
until_q 120 'count(count by (member) (up{engine="vmagent"}))' 2
for e in $ENGINES; do
	until_q 120 "count(up{engine=\"$e\"} == 1)" $N
	is "$(nodes_of "up{engine=\"$e\"} == 1")" "$ALL" "$e scrapes every node"
done

# Prometheus's hashmod: md5 of the address, its low 8 bytes mod 2, computed
# here independently of Prometheus.
want_shard() {
	python3 -c 'import hashlib, sys
print(int.from_bytes(hashlib.md5(sys.argv[1].encode()).digest()[8:], "big") % 2)' "$1"
}
shard_nodes() { for i in $NODES; do [ "$(want_shard "$(fleet_addr "$i"):161")" = "$1" ] && echo "node=node$i"; done | tr '\n' ' '; }
SHARD0=$(shard_nodes 0) SHARD1=$(shard_nodes 1)
diag "hashmod: shard 0 polls $SHARD0, shard 1 polls $SHARD1"
is "$(nodes_of 'up{engine="prometheus",shard="0"}')|$(nodes_of 'up{engine="prometheus",shard="1"}')" \
	"$SHARD0|$SHARD1" "each Prometheus shard polls the nodes hashmod gives it"
is "$(q 'count by (node) (up{engine="prometheus"}) > 1')$(q 'count by (node) (up{engine="vmagent"}) > 1')" "" \
	"no node is polled twice by either engine"
# vmagent's members split the targets by a hash over each target's labels,
# and here the split changes from run to run (one CI run in five saw all
# four nodes on member 0; with two members and four nodes that is one run
# in eight): which member polls what is printed, and judged is that they
# share the nodes out, every node polled and none by both.
M0=$(nodes_of 'up{engine="vmagent",member="0"}') M1=$(nodes_of 'up{engine="vmagent",member="1"}')
diag "vmagent: member 0 polls $M0, member 1 polls $M1"
is "$(tr ' ' '\n' <<<"$M0 $M1" | grep . | sort | tr '\n' ' ')" "$ALL" \
	"the vmagent members share the nodes out between them, each node polled by one"

# The workload window: 5% loss on node 4's link, a minute of the kernel's
# CPU count for each node's busy loop.
LOSSY=4
ip netns exec "$(fleet_ns $LOSSY)" nft -f - <<EOF || bail "nft failed"
table inet cmfloss {
	chain in {
		type filter hook input priority 0;
		udp dport 161 numgen random mod 100 < 5 counter drop
	}
}
EOF
# Each read stamped, as the pid lookups take long on a loaded machine.
declare -A BUSY BUSY0 T0
for i in $NODES; do BUSY[$i]=$(fleet_pid "$i" fleetbusy); done
for i in $NODES; do T0[$i]=$(date +%s%N) BUSY0[$i]=$(cpu_ns "${BUSY[$i]}"); done
sleep 62

bad=
for i in $NODES; do
	t1=$(date +%s%N) got=$(cpu_ns "${BUSY[$i]}")
	kern=$(( (got - BUSY0[$i]) * 100 / (t1 - T0[$i]) ))
	nominal=$(fleet_workload "$i" | cut -d' ' -f1)
	for e in $ENGINES; do
		rec=$(qv "cluster:clustermon_proc_cpu_top10:percent{engine=\"$e\",node=\"node$i\",clusterMonProcName=\"fleetbusy\"}")
		rec=$(printf '%.0f' "${rec:-999}")
		diag "node$i fleetbusy: $e records ${rec}% of a CPU, the kernel counted ${kern}%, nominal ${nominal}%"
		# The rule's minute and ours are a scrape and an evaluation apart:
		# 3 points and a quarter of the share between them.
		tol=$((3 + kern / 4))
		[ $((rec - kern)) -le $tol ] && [ $((kern - rec)) -le $tol ] && [ "$rec" -le $((nominal + 2)) ] ||
			bad="$bad node$i/$e"
	done
done
is "$bad" "" "the ten busiest processes hold each busy loop at the share the kernel counted"

want_procs=0 want_est=0
for i in $NODES; do
	w=($(fleet_workload "$i"))
	want_procs=$((want_procs + $(fleet_procs "$i"))) want_est=$((want_est + 2 * w[1]))
done
for e in $ENGINES; do
	is "$(qv "cluster:clustermon_procs:sum{engine=\"$e\"}")|$(qv "cluster:clustermon_tcp_established:sum{engine=\"$e\"}")" \
		"$want_procs|$want_est" "$e: the cluster's processes and established connections are the workloads' sum"
done
# Only node 2 holds more processes (6) than the threshold's rising level.
for e in $ENGINES; do
	is "$(nodes_of "node:clustermon_thresholds_risen:count{engine=\"$e\"}")" "node=node2 " \
		"$e: the nodes whose threshold fired are the ones over it"
done
is "$(nodes_of 'node:clustermon_runqlat_p99:ns{engine="prometheus"} > 0')|$(nodes_of 'node:clustermon_runqlat_p99:ns{engine="vmagent"} > 0')" \
	"$ALL|$ALL" "every node's run-queue p99 comes from the one shared helper"
is "$(q 'cluster:clustermon_tcp_retrans:rate1m >= 0' | cut -d' ' -f1 | tr '\n' ' ')" \
	"engine=prometheus engine=vmagent " "the cluster's retransmit rate is recorded for both engines"
util=$(qv 'cluster:clustermon_cpu_util:percent{engine="prometheus"}')
awk -v u="${util:-x}" 'BEGIN { exit !(u ~ /^[0-9.]+$/ && u >= 0 && u <= 100) }'
ok $? "cluster CPU utilisation is a percentage ($util%)"

drops=$(ip netns exec "$(fleet_ns $LOSSY)" nft list ruleset | grep -o 'packets [0-9]*' | awk '{ print $2 }')
diag "node$LOSSY's link dropped ${drops:-no} SNMP requests in the window"
# Every scrape of the lossy node is recorded, as up 1 (retries won) or 0.
lossy_up=$(q "count_over_time(up{node=\"node$LOSSY\"}[60s])" | awk '{ n += $NF } END { printf "%d", n }')
[ "${drops:-0}" -gt 0 ] && [ "$lossy_up" -ge $((2 * 60 / IV - 4)) ]
ok $? "5% loss on node$LOSSY: its ${lossy_up} scrapes are all recorded (up), ${drops:-0} requests dropped"
is "$(q "min_over_time(up{node!=\"node$LOSSY\"}[60s]) < 1")" "" "the loss on node$LOSSY touches no other node"
ip netns exec "$(fleet_ns $LOSSY)" nft delete table inet cmfloss

# Fault: one clustermond stopped for 10 s. The series go absent (stale
# markers), not stale values, within two intervals; nothing else moves.
STOPPED=3
t_stop=$(date +%s)
kill -STOP "$(fleet_pid $STOPPED clustermond)"
sleep 10
kill -CONT "$(fleet_pid $STOPPED clustermond)"
t_cont=$(date +%s)
until_q 30 "count(clusterMonProcCount{node=\"node$STOPPED\"})" 2
sleep $IV
qr "clusterMonProcCount{node=\"node$STOPPED\"}" "$t_stop" "$((t_cont + 2 * IV))" >"$T/stopped.points"
for e in $ENGINES; do
	# The first second, after the stop, with no point: the gap's start.
	gap=$(awk -v e="engine=$e," -v s="$t_stop" 'index($1, e) { have[$2] = 1 }
		END { for (t = s; t <= s + 30; t++) if (!(t in have)) { print t - s; exit } }' "$T/stopped.points")
	diag "$e: node$STOPPED's series went absent ${gap:-never} s after SIGSTOP"
	[ -n "$gap" ] && [ "$gap" -le $((2 * IV + 2)) ]
	ok $? "$e: a stopped clustermond's series go absent within two intervals"
done
is "$(awk '{ print $NF }' "$T/stopped.points" | sort -u | tr '\n' ' ')" "$(fleet_procs $STOPPED) " \
	"no wrong value is recorded for the stopped node"
is "$(q "min_over_time(up{node!=\"node$STOPPED\"}[20s]) < 1")" "" "the other nodes were scraped throughout"

# Fault: node 1's snmpd restarted. clustermond registers again within 3 s
# (a read-create object, which only the subagent serves, answers).
# nsenter -r -w: the restarted snmpd keeps the node's root and working
# directory. Entering a mount namespace otherwise resets both to the
# namespace's real root, and under tests/fresh-root.sh (a chroot) snmpd would
# start from the host's filesystem, with no config and no AgentX master.
R=1
kill -TERM "$(fleet_pid $R snmpd)"
t_r=$(date +%s)
for _ in $(seq 1 50); do fleet_pid $R snmpd | grep -q . || break; sleep 0.1; done
d="$T/n$R"
nsenter -t "$(fleet_pid $R fleetload)" -p -m -n -u -r -w env SNMP_PERSISTENT_DIR="$d/persist" \
	"$SNMPD" -C -c "$d/snmpd.conf" -Lf "$d/snmpd.log" -p "$d/snmpd.pid" -I -smux,mteTrigger,mteTriggerConf
s0=$(date +%s%N)
# snmpd_answers: the restarted master itself answers (sysUpTime is its own).
snmpd_answers() {
	inp snmpget -v2c -c public -t 0.5 -r 0 -On "$(fleet_addr $R)" 1.3.6.1.2.1.1.3.0 | grep -q Timeticks
}
# subagent_answers: the threshold table (read-create: never in the image) answers.
subagent_answers() {
	inp snmpgetnext -v2c -c public -t 0.5 -r 0 -On "$(fleet_addr $R)" "$clusterMonThresholdVariable" |
		grep -q "^$clusterMonThresholdVariable\."
}
back=no
wait_for 10 snmpd_answers && back=yes
is "$back" yes "the restarted snmpd of node$R answers (it found its config: root kept)"
ms=never
wait_for 10 subagent_answers && ms=$(( ($(date +%s%N) - s0) / 1000000 ))
[ "$ms" != never ] && [ "$ms" -le 3000 ]
ok $? "clustermond re-registers with the restarted snmpd in $ms ms (3 s allowed)"
sleep $((3 * IV))
is "$(qr "count(clusterMonTcpConnState{node=\"node$R\"} == 1) by (engine)" "$t_r" "$(date +%s)" |
	awk '{ print $NF }' | sort -u | tr '\n' ' ')" "$(( 2 * $(fleet_workload $R | cut -d' ' -f2) )) " \
	"across the restart node$R's established connections are never recorded wrong"

# Fault: one shard of each engine killed (the vmagent member with more
# nodes, so a gap shows whatever split the hash made). The other keeps its
# half, and the global view shows exactly which nodes have a gap.
if [ "$(wc -w <<<"$M1")" -gt "$(wc -w <<<"$M0")" ]; then VICTIM=1 KEPT=$M0; else VICTIM=0 KEPT=$M1; fi
kill -9 "$(cat "$T/prom1.pid")" "$(cat "$T/vmagent$VICTIM.pid")"
sleep $((3 * IV))
is "$(nodes_of "count_over_time(up{engine=\"prometheus\"}[$((2 * IV))s])")" "$SHARD0" \
	"with Prometheus shard 1 killed, exactly shard 0's nodes are still polled"
is "$(nodes_of "count_over_time(up{engine=\"vmagent\"}[$((2 * IV))s])")" "$KEPT" \
	"with vmagent member $VICTIM killed, exactly the other member's nodes are still polled"
cat "$T"/n*/load.out >>"$T/clustermond.stderr"
finish
