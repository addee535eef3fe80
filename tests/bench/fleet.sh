#!/bin/bash
# fleet.sh [N...] - issue 26's figures (docs/fleet.md): the fleet of
# tests/system/fleet-lib.sh at each N (default 8 32), polled by both engines
# (two Prometheus shards, two vmagent members) every $FLEET_INTERVAL s
# (default 10), measured over $FLEET_WINDOW s (60) after $FLEET_IDLE s (30)
# unpolled. For each N, one line of per-node figures:
#   - scrape success ratio and scrape duration p50/p99 (every scrape of
#     the window, both engines, as VictoriaMetrics recorded them);
#   - snmpd's and clustermond's CPU per node per poll: their CPU time
#     (schedstat, all threads) in the polled window minus the same
#     processes' rate in an unpolled window just before (the baseline, run
#     in the same invocation), over the polls recorded;
#   - clustermond's CPU per node per second polled and unpolled (its own
#     sampling: the per-poll difference is within its noise, since the
#     module answers from the image) and its RSS per node; the pollers' CPU
#     per second and per poll;
#   - the ratio of clustermond's CPU polled to unpolled (the fast path
#     answers from the image, so polls should not reach it).
# Light workloads (FLEET_LIGHT=1: no busy loop) leave the CPU to the
# pollers. Every load stops by itself after its window; the machine may be
# shared, so compare lines of one run.
set -u
if [ "${1:-}" != --one ]; then
	for n in "${@:-8 32}"; do
		for m in $n; do bash "$0" --one "$m" || echo "N=$m: the fleet did not come up"; done
	done
	exit 0
fi
N=$2
. "$(dirname "$0")/../system/lib.sh"
. "$(dirname "$0")/../system/fleet-lib.sh"
[ "$(id -u)" -eq 0 ] || bail "needs root for network namespaces"
[ -x "$KPROBE_HELPER" ] || bail "clustermon-kprobe is not built"
export FLEET_LIGHT=1
IV=${FLEET_INTERVAL:-10} IDLE=${FLEET_IDLE:-30} W=${FLEET_WINDOW:-60}
trap 'fleet_down; cleanup' EXIT
# Starting N nodes on a loaded machine takes seconds each: the loads last
# well past that, and the window below refuses to count a node that ended.
fleet_nodes "$N" $((IDLE + W + 300 + 4 * N))

pids_of() { local i; for i in $(seq 1 "$N"); do fleet_pid "$i" "$1"; done; }
SNMPDS=$(pids_of snmpd) AGENTS=$(pids_of clustermond)
sleep 5
s0=$(proc_cpu_ns $SNMPDS) a0=$(proc_cpu_ns $AGENTS)
sleep $IDLE
s1=$(proc_cpu_ns $SNMPDS) a1=$(proc_cpu_ns $AGENTS)

fleet_pollers "$N" "$IV"
wait_for 20 inp curl -sf "$VM/health" || bail "VictoriaMetrics did not start"
POLLERS=$(cat "$T"/prom?.pid "$T"/vmagent?.pid "$T"/exporter?.pid "$T"/vm.pid "$T"/vmalert.pid)
EXPORTERS=$(cat "$T"/exporter?.pid)
sleep $((2 * IV + 5))
s2=$(proc_cpu_ns $SNMPDS) a2=$(proc_cpu_ns $AGENTS) p2=$(proc_cpu_ns $POLLERS) e2=$(proc_cpu_ns $EXPORTERS)
sleep $W
s3=$(proc_cpu_ns $SNMPDS) a3=$(proc_cpu_ns $AGENTS) p3=$(proc_cpu_ns $POLLERS) e3=$(proc_cpu_ns $EXPORTERS) t3=$(date +%s)
for p in $SNMPDS $AGENTS; do [ -d "/proc/$p" ] || bail "N=$N: a node ended before the window did"; done
sleep 3   # the last scrapes reach VictoriaMetrics
prss=$(for p in $POLLERS; do awk '/^VmRSS:/ { print $2 }' "/proc/$p/status"; done |
	awk '{ s += $1 } END { printf "%.0f", s / 1024 }')
samples=$(qv "avg(avg_over_time(scrape_samples_scraped{job=\"clustermon\"}[${W}s]))")
rss=$(for p in $AGENTS; do awk '/^VmRSS:/ { print $2 }' "/proc/$p/status"; done |
	awk '{ s += $1; if ($1 > m) m = $1 } END { printf "%.0f %d", s / NR, m }')

# Every scrape of the window: up and scrape_duration_seconds, raw samples.
inp curl -sf --max-time 30 "$VM/api/v1/query" --data-urlencode "time=$t3" \
	--data-urlencode "query={__name__=~\"up|scrape_duration_seconds\",job=\"clustermon\"}[${W}s]" |
	python3 -c '
import json, sys
ups, durs = [], []
for r in json.load(sys.stdin)["data"]["result"]:
    v = [float(x[1]) for x in r["values"]]
    (ups if r["metric"]["__name__"] == "up" else durs).extend(v)
durs.sort()
q = lambda p: durs[min(len(durs) - 1, int(p * len(durs)))] * 1000 if durs else float("nan")
print(len(ups), sum(ups) / len(ups) if ups else 0, "%.1f %.1f" % (q(0.5), q(0.99)))' >"$T/scrapes" ||
	bail "VictoriaMetrics did not answer"
read -r polls ok_ratio p50 p99 <"$T/scrapes"
[ "$polls" -gt 0 ] || bail "no scrape recorded"

# Per poll, in microseconds of CPU; the baseline rate taken out.
awk -v n="$N" -v polls="$polls" -v idle="$IDLE" -v w="$W" -v iv="$IV" \
	-v s0="$s0" -v s1="$s1" -v s2="$s2" -v s3="$s3" -v a0="$a0" -v a1="$a1" -v a2="$a2" -v a3="$a3" \
	-v p2="$p2" -v p3="$p3" -v e2="$e2" -v e3="$e3" -v prss="$prss" -v samples="${samples:-0}" -v rss="$rss" -v ok="$ok_ratio" -v p50="$p50" -v p99="$p99" 'BEGIN {
	split(rss, r, " ")
	sb = (s1 - s0) / idle; ab = (a1 - a0) / idle     # ns per second, all nodes
	sp = ((s3 - s2) - sb * w) / polls / 1000
	ap = ((a3 - a2) - ab * w) / polls / 1000
	printf "N=%d interval %ds: %d scrapes in %ds, success %.3f, duration p50 %.1f ms p99 %.1f ms; ", n, iv, polls, w, ok, p50, p99
	printf "per node per poll: snmpd %.0f us CPU, clustermond %.0f us CPU (polled %.2f, unpolled %.2f ms CPU/s per node); ", sp, ap, (a3 - a2) / w / n / 1e6, ab / n / 1e6
	printf "clustermond RSS %.1f MB per node (max %.1f); ", r[1] / 1024, r[2] / 1024
	printf "%.0f samples per scrape; pollers %.0f ms CPU/s (%.0f us per poll, of which snmp_exporter %.0f), RSS %d MB in all; ", samples, (p3 - p2) / w / 1e6, (p3 - p2) / polls / 1000, (e3 - e2) / polls / 1000, prss
	printf "clustermond CPU polled/unpolled %.2fx (machine shared)\n", (ab > 0 ? (a3 - a2) / w / ab : 0)
}'
