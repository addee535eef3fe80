# fleet-lib.sh - a simulated fleet of clustermon nodes and the pollers that
# operators scale with (docs/fleet.md); sourced after lib.sh by
# tests/system/fleet.sh (make check-fleet) and tests/bench/fleet.sh.
#
# Namespaces, all named cmf<ID>-*, so runs side by side never meet:
#   cmf<ID>-p     the pollers' network namespace: bridge br0 at 10.77.100.1/24,
#                 VictoriaMetrics, two Prometheus shards, two vmagent
#                 members, vmalert; an snmp_exporter for each Prometheus
#                 (:9117, :9118) and one that both vmagent members reach at
#                 the address vmagent.yml names (:9116; the file says why);
#                 all on 127.0.0.1 of this namespace only
#   cmf<ID>-nI    node I: a network namespace with eth0 (10.77.100.(10+I)) on
#                 the bridge, and its own PID, mount (/proc) and UTS
#                 namespaces: snmpd with clustermon.so, clustermond and the
#                 node's known workload (fleetload) as its PID 1
# One clustermon-kprobe, in the test's own namespace, serves every
# clustermond through its control socket (a path: Unix sockets cross network
# namespaces). The BPF programs load once; each node reads the same maps, so
# its sched.runqlat is the shared kernel's.
#
# The kernel here has no sch_netem, so links get no delay; loss is an
# nftables rule in the node's own namespace dropping that share of the
# SNMP requests it receives (numgen random).

FLEETLOAD="$top_builddir/tests/system/fleetload"
FLEET_SNMPYML="$top_srcdir/contrib/prometheus/snmp.yml"
FLEET_RULES="$top_srcdir/contrib/prometheus/rules.yml"
FID=${T##*.}
FP="cmf$FID-p"
VM=http://127.0.0.1:8428
FLEET_PIDS=()
fleet_ns() { echo "cmf$FID-n$1"; }
fleet_addr() { echo "10.77.100.$((10 + $1))"; }
inp() { ip netns exec "$FP" "$@"; }

# fleet_need: every tool the fleet runs, as missing_all wants (CI fails).
fleet_need() {
	local t
	for t in prometheus vmagent vmalert victoria-metrics prometheus-snmp-exporter nft curl; do
		command -v "$t" >/dev/null || missing_all "$t is missing (tests/setup-deps.sh installs it)"
	done
	[ -x "$FLEETLOAD" ] || bail "$FLEETLOAD is not built"
}

# fleet_workload I: "PERCENT CONNS SLEEPERS" of node I, what the checks
# expect; FLEET_LIGHT=1 (the benchmark's large N) keeps the CPU for the
# pollers: no busy loop, two connections, one sleeper.
fleet_workload() {
	if [ "${FLEET_LIGHT:-0}" = 1 ]; then echo "0 2 1"; return; fi
	echo "$((5 + 5 * ($1 % 4))) $((2 * $1)) $(($1 % 3))"
}
# Processes in node I's PID namespace: fleetload, fleetbusy, the sleepers,
# snmpd and clustermond.
fleet_procs() { local w; w=($(fleet_workload "$1")); echo $((4 + w[2])); }

fleet_net() {
	ip netns add "$FP" || bail "ip netns add failed"
	inp ip link set lo up
	inp ip link add br0 type bridge
	inp ip addr add 10.77.100.1/24 dev br0
	inp ip link set br0 up
}

# fleet_node I SECONDS: node I's namespaces, its snmpd, clustermond and load.
fleet_node() {
	local i=$1 ns d a
	ns=$(fleet_ns "$i") d="$T/n$i" a=$(fleet_addr "$i")
	mkdir -p "$d/conf" "$d/persist"
	ip netns add "$ns" || bail "ip netns add $ns failed"
	inp ip link add "n$i" type veth peer name eth0 netns "$ns" || bail "veth failed"
	inp ip link set "n$i" master br0 up
	ip -n "$ns" addr add "$a/24" dev eth0
	ip -n "$ns" link set eth0 up
	ip -n "$ns" link set lo up
	cat >"$d/snmpd.conf" <<EOC
agentAddress udp:$a:161
master agentx
agentXSocket unix:$d/agentx.sock
rocommunity public 10.77.100.0/24
dlmod clustermon $MODULE
clustermonSnapshot $d/image
EOC
	# Node 2 onwards holds more processes than its rising level: its
	# threshold fires (node:clustermon_thresholds_risen:count).
	cat >"$d/conf/clustermond.conf" <<EOC
snapshotFile $d/image
helperSocket $HELPER_SOCK
sampleInterval cpu 1000
sampleInterval proc 1000
sampleInterval tcp 1000
threshold procs $clusterMonProcCount.0 rising=6 falling=5 interval=1000
EOC
	ip netns exec "$ns" setpriv --pdeathsig KILL unshare --pid --fork --mount-proc --uts --kill-child \
		env SNMP_PERSISTENT_DIR="$d/persist" SNMPCONFPATH="$d/conf:$d/persist" \
		sh -c "hostname node$i
			$SNMPD -C -c $d/snmpd.conf -Lf $d/snmpd.log -p $d/snmpd.pid -I -smux,mteTrigger,mteTriggerConf
			$CLUSTERMOND -x unix:$d/agentx.sock -Lf $d/clustermond.log -p $d/clustermond.pid
			exec $FLEETLOAD $(fleet_workload "$i") $2" >"$d/load.out" 2>&1 &
	echo $! >"$d/unshare.pid"
}

# fleet_pid I NAME: the host pid of NAME (snmpd, clustermond, fleetload,
# fleetbusy) in node I.
fleet_pid() {
	local init
	init=$(ps -o pid= --ppid "$(cat "$T/n$1/unshare.pid")" | tr -d ' ')
	[ -n "$init" ] || return 1
	if [ "$2" = fleetload ]; then echo "$init"; return; fi
	ps -o pid=,comm= --ppid "$init" | awk -v c="$2" '$2 == c { print $1; exit }'
}

fleet_targets() { # fleet_targets N: file_sd JSON, one entry per node
	local i sep=
	printf '['
	for i in $(seq 1 "$1"); do
		printf '%s{"targets":["%s:161"],"labels":{"node":"node%s"}}' "$sep" "$(fleet_addr "$i")" "$i"
		sep=,
	done
	printf ']\n'
}

# bg NAME COMMAND...: a poller in the pollers' namespace, logged to $T/NAME.log;
# like each node, it is killed when the script that started it ends, however.
bg() {
	local n=$1; shift
	ip netns exec "$FP" setpriv --pdeathsig KILL "$@" >"$T/$n.log" 2>&1 &
	FLEET_PIDS+=($!)
	echo $! >"$T/$n.pid"
}

# fleet_shipped FILE FROM TO...: a shipped config with its example values
# replaced; bails when one is not there, so the test runs what we ship.
fleet_shipped() {
	local f=$1 out; shift
	out=$(cat "$f")
	while [ $# -ge 2 ]; do
		grep -qF -- "$1" <<<"$out" || bail "$f no longer holds '$1'"
		out=${out//"$1"/"$2"}
		shift 2
	done
	echo "$out"
}

# fleet_pollers N INTERVAL: VictoriaMetrics, the two engines and vmalert.
fleet_pollers() {
	local n=$1 iv=$2 s
	fleet_targets "$n" >"$T/targets.json"
	bg vm victoria-metrics -httpListenAddr=127.0.0.1:8428 -storageDataPath="$T/vm" \
		-retentionPeriod=1d -search.latencyOffset=0s -search.disableCache \
		-memory.allowedPercent=5 -loggerLevel=ERROR
	for s in 0 1 2; do
		bg "exporter$s" prometheus-snmp-exporter --config.file="$FLEET_SNMPYML" \
			--web.listen-address="127.0.0.1:$((9116 + s))" --log.level=warn
	done
	for s in 0 1; do
		fleet_shipped "$top_srcdir/contrib/prometheus/prometheus-shard.yml" \
			'scrape_interval: 30s' "scrape_interval: ${iv}s" \
			'scrape_timeout: 20s' "scrape_timeout: ${iv}s" \
			'evaluation_interval: 30s' "evaluation_interval: ${iv}s" \
			'shard: "0"' "shard: \"$s\"" 'regex: "0"' "regex: \"$s\"" \
			/etc/prometheus/clustermon-targets.json "$T/targets.json" \
			127.0.0.1:9116 "127.0.0.1:$((9117 + s))" \
			'- url: http://127.0.0.1:8428/api/v1/write' \
			"- url: $VM/api/v1/write
    queue_config: {batch_send_deadline: 1s}" >"$T/prom$s.yml"
		bg "prom$s" prometheus --config.file="$T/prom$s.yml" --storage.tsdb.path="$T/prom$s" \
			--web.listen-address="127.0.0.1:$((9090 + s))" --storage.tsdb.retention.time=1h \
			--log.level=warn
	done
	for s in 0 1; do
		fleet_shipped "$top_srcdir/contrib/victoriametrics/vmagent.yml" \
			'scrape_interval: 30s' "scrape_interval: ${iv}s" \
			'scrape_timeout: 20s' "scrape_timeout: ${iv}s" \
			/etc/victoriametrics/clustermon-targets.json "$T/targets.json" >"$T/vmagent$s.yml"
		bg "vmagent$s" vmagent -promscrape.config="$T/vmagent$s.yml" \
			-promscrape.cluster.membersCount=2 -promscrape.cluster.memberNum="$s" \
			-remoteWrite.url="$VM/api/v1/write" -remoteWrite.label=engine=vmagent \
			-remoteWrite.label=member="$s" -remoteWrite.tmpDataPath="$T/vmagent$s.q" \
			-remoteWrite.flushInterval=1s -httpListenAddr="127.0.0.1:$((8430 + s))" \
			-loggerLevel=ERROR
	done
	bg vmalert vmalert -rule="$FLEET_RULES" -datasource.url="$VM" -remoteWrite.url="$VM" \
		-evaluationInterval="${iv}s" -httpListenAddr=127.0.0.1:8880 -loggerLevel=ERROR
}

# fleet_nodes N SECONDS: the helper and N nodes whose load lasts SECONDS.
fleet_nodes() {
	local i
	start_helper || bail "clustermon-kprobe did not start"
	fleet_net
	for i in $(seq 1 "$1"); do fleet_node "$i" "$2"; done
	for i in $(seq 1 "$1"); do
		wait_for 30 inp snmpget -v2c -c public -t 1 -r 0 "$(fleet_addr "$i")" "$clusterMonProcCount.0" ||
			bail "node$i does not answer"
	done
}

# fleet_up N SECONDS INTERVAL: the nodes, and the pollers scraping every
# INTERVAL seconds.
fleet_up() {
	fleet_nodes "$1" "$2"
	fleet_pollers "$1" "$3"
	wait_for 20 inp curl -sf "$VM/health" || bail "VictoriaMetrics did not start"
}

# Bash reports each killed job on stderr: not news here.
fleet_down() {
	{
		local p d
		for p in "${FLEET_PIDS[@]}"; do kill -9 "$p"; done
		for d in "$T"/n*/unshare.pid; do
			[ -f "$d" ] && kill -9 "$(cat "$d")"
		done
		for p in "${FLEET_PIDS[@]}"; do wait "$p"; done
		for d in "$T"/n*/unshare.pid; do
			[ -f "$d" ] && wait "$(cat "$d")"
		done
		for d in $(ip netns list | awk -v p="cmf$FID-" 'index($1, p) == 1 { print $1 }'); do
			ip netns del "$d"
		done
	} 2>/dev/null
}

# q PROMQL: an instant query to VictoriaMetrics, one line per series:
# "LABEL=VALUE,... VALUE" with the labels sorted.
q() {
	inp curl -sf --max-time 10 "$VM/api/v1/query" --data-urlencode "query=$1" |
		python3 -c '
import json, sys
for r in json.load(sys.stdin)["data"]["result"]:
    m = r["metric"]
    print(",".join("%s=%s" % (k, m[k]) for k in sorted(m) if k != "__name__"), r["value"][1])'
}
# qv PROMQL: the value of a query that yields one series (empty if not one).
qv() { local out; out=$(q "$1"); [ "$(wc -l <<<"$out")" -eq 1 ] && awk '{ print $NF }' <<<"$out"; }
# qr PROMQL START END: a range query at 1 s steps, one line per point:
# "LABELS UNIX-TIME VALUE".
qr() {
	inp curl -sf --max-time 20 "$VM/api/v1/query_range" --data-urlencode "query=$1" \
		--data-urlencode "start=$2" --data-urlencode "end=$3" --data-urlencode step=1s |
		python3 -c '
import json, sys
for r in json.load(sys.stdin)["data"]["result"]:
    m = r["metric"]
    k = ",".join("%s=%s" % (k, m[k]) for k in sorted(m) if k != "__name__")
    for t, v in r["values"]:
        print(k, int(float(t)), v)'
}
# cpu_ns PID: the task's CPU time so far (schedstat), the kernel's count.
cpu_ns() { cut -d' ' -f1 "/proc/$1/schedstat"; }
# proc_cpu_ns PID...: CPU time of every thread of these processes, summed.
proc_cpu_ns() {
	local p t s=0
	for p in "$@"; do
		for t in /proc/"$p"/task/*/schedstat; do
			read -r v _ <"$t" 2>/dev/null && s=$((s + v))
		done
	done
	echo "$s"
}
