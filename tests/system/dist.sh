#!/bin/bash
# dist.sh - the distribution tables: each source's count, sum and buckets
# agree with each other and with the sampler, buckets only grow, and the
# percentiles are ordered.
. "$(dirname "$0")/lib.sh"

plan 11
start_master || bail "snmpd did not start"
start_agent || bail "clustermond did not register"
sleep 1
S="$clusterMonHistSourceEntry" B="$clusterMonHistBucketEntry"

names=$(walk "$S.2" | awk '{ print $2 }' | tr '\n' ' ')
is "$names" '"cpu.util" "sample.cost.cpu" "sample.cost.mem" "sample.cost.proc" "tcp.rtt" "sample.cost.tcp" "pcap.pktsize" "pcap.synrtt" "sample.cost.pcap" "sample.cost.probes" "sample.cost.cgroup" ' "distribution sources (sched.runqlat only while the helper runs)"
is "$(get "$S.3.2")" '"us"' "sample.cost.cpu is in microseconds"

# Read the cpu cost distribution and the sampler's count back to back.
count=$(get "$S.4.2"); samples=$(get "$clusterMonSourceSamples.1")
check "sample.cost.cpu counts every cpu sample ($count vs $samples)" \
	test "$samples" -ge "$count" -a $((samples - count)) -le 3

buckets_sum() { walk "$B.4.$1" | awk '{ s += $2 } END { print s + 0 }'; }
# The walks and the GET are separate requests and a mem sample (1 Hz) may
# land between them: the count read between two walks that agree is the
# count of those buckets (a loaded machine may need a few tries).
for _ in $(seq 1 20); do
	mem_buckets=$(buckets_sum 3); mem_count=$(get "$S.4.3")
	[ "$(buckets_sum 3)" = "$mem_buckets" ] && break
done
is "$mem_buckets" "$mem_count" "sample.cost.mem: buckets add up to its count"

is "$(get "$B.2.2.1") $(get "$B.3.2.1")" "0 1" "bucket 1 holds 0..1"
is "$(get "$B.2.2.2") $(get "$B.3.2.2")" "2 3" "bucket 2 holds 2..3"
is "$(get "$B.2.2.11") $(get "$B.3.2.11")" "1024 2047" "bucket 11 holds 1024..2047"

w1=$(walk "$B.4.2"); sleep 0.5; w2=$(walk "$B.4.2")
grow=$(paste <(awk '{ print $2 }' <<<"$w1") <(awk '{ print $2 }' <<<"$w2") | awk '$2 < $1 { bad++ } END { print bad + 0 }')
is "$grow" 0 "no bucket count ever goes down between walks"

p50=$(get "$S.6.2"); p90=$(get "$S.7.2"); p99=$(get "$S.8.2")
check "percentiles are ordered: p50 $p50 <= p90 $p90 <= p99 $p99 us" test "$p50" -le "$p90" -a "$p90" -le "$p99"
check "a bucket index of 0 is noSuchInstance" contains "No Such Instance" "$(get_raw "$B.4.2.0")"
check "a source that does not exist is noSuchInstance" contains "No Such Instance" "$(get_raw "$S.2.99")"
finish
