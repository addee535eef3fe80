#!/bin/bash
# prometheus.sh - contrib/prometheus: Debian's prometheus-snmp-generator
# turns generator.yml into the snmp.yml we ship (with --fail-on-parse-errors,
# MIBs from this tree), and prometheus-snmp-exporter scraping a live
# clustermond through snmpd returns our metrics with the values snmpget
# reads, hundredths of a percent scaled to percent.
. "$(dirname "$0")/lib.sh"

plan 7
GEN=$(command -v prometheus-snmp-generator) || bail "prometheus-snmp-generator is missing (Debian: prometheus-snmp-exporter)"
EXPORTER=$(command -v prometheus-snmp-exporter) || bail "prometheus-snmp-exporter is missing"
prom="$top_srcdir/contrib/prometheus"

# The MIBs the generator may see: ours and its imports, nothing broken.
mkdir -p "$T/mibs" "$T/gen"
cp "$top_srcdir/mibs/CLUSTER-MON-MIB.txt" "$T/mibs/"
for m in SNMPv2-SMI SNMPv2-TC SNMPv2-CONF SNMPv2-MIB NET-SNMP-MIB INET-ADDRESS-MIB HCNUM-TC; do
	f=$(find /usr/share/snmp/mibs /usr/share/mibs "$top_srcdir/tests/mibs" -name "$m" -o -name "$m.txt" 2>/dev/null | head -n 1)
	[ -n "$f" ] && cp "$f" "$T/mibs/$m.txt"
done
cp "$prom/generator.yml" "$T/gen/"
out=$(cd "$T/gen" && MIBDIRS="$T/mibs" "$GEN" --fail-on-parse-errors generate 2>&1)
ok $? "the generator accepts generator.yml with --fail-on-parse-errors"
[ -f "$T/gen/snmp.yml" ] || diag "$out"
diff -u "$prom/snmp.yml" "$T/gen/snmp.yml" >"$T/snmp.yml.diff" 2>&1
ok $? "contrib/prometheus/snmp.yml is what it generates (regenerate it if this fails)"
[ -s "$T/snmp.yml.diff" ] && diag "$(head -n 20 "$T/snmp.yml.diff")"

start_master || bail "snmpd did not start"
# CPU 0 kept busy and sampled once a second: its utilisation sits near
# 100% (10000 hundredths) for both the scrape and the GET.
printf 'sampleInterval cpu 1000\n' >"$T/prom.conf"
start_agent -c "$T/prom.conf" || bail "clustermond did not register"
loop=$(busy 0 20)
sleep 2.5
WEB=$(( $(free_udp_port) ))
"$EXPORTER" --config.file="$prom/snmp.yml" --web.listen-address="127.0.0.1:$WEB" \
	>"$T/exporter.log" 2>&1 &
EXPORTER_PID=$!
scrape() {
	python3 -c 'import sys, urllib.request
print(urllib.request.urlopen(sys.argv[1], timeout=20).read().decode())' \
		"http://127.0.0.1:$WEB/snmp?module=clustermon&target=127.0.0.1:$PORT"
}
wait_for 5 scrape
metrics=$(scrape)
kill "$EXPORTER_PID"; wait "$EXPORTER_PID" 2>/dev/null
metric() { awk -v m="$1" '$1 == m { print $2 }' <<<"$metrics"; }
sci() { awk -v v="$1" 'BEGIN { printf "%.2f\n", v }'; }

is "$(sci "$(metric clusterMonMemTotalKB)")" "$(sci "$(get "$clusterMonMemTotalKB.0")")" \
	"clusterMonMemTotalKB as snmpget reads it"
is "$(metric clusterMonCpuCount)" "$(get "$clusterMonCpuCount.0")" "clusterMonCpuCount"
raw=$(get "$clusterMonCpuUtil.1")
kill "$loop" 2>/dev/null
pct=$(metric 'clusterMonCpuUtilPercent{clusterMonCpuIndex="1"}')
awk -v p="$pct" -v r="$raw" 'BEGIN { d = p - r / 100; exit !(r > 9000 && d < 2 && d > -2) }'
ok $? "clusterMonCpuUtilPercent is clusterMonCpuUtil in percent ($pct% for $raw hundredths)"
contains 'clusterMonSourceSamples{clusterMonSourceName="cpu"}' "$metrics"
ok $? "source rows are labelled by name"
contains 'clusterMonNodeName{clusterMonNodeName="'"$(uname -n)"'"}' "$metrics"
ok $? "the node name is a label"
finish
