#!/bin/bash
# cluster.sh - the cluster-wide view: three nodes, each a network namespace
# (and UTS namespace, for its own node name) running snmpd and clustermond on
# its own address, and an aggregator snmpd proxying each node's
# CLUSTER-MON-MIB under a context named after it (contrib/cluster). Walks
# through the aggregator's contexts return each node's own clusterMonNodeName
# and values.
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || skip_all "needs root for network namespaces"
plan 9
command -v ip >/dev/null && command -v unshare >/dev/null || bail "ip (iproute2) and unshare (util-linux) are needed"
ID=${T##*.}
NODES="1 2 3"
ns() { echo "cm$ID-n$1"; }
cleanup_cluster() {
	for n in $NODES; do
		[ -f "$T/n$n/snmpd.pid" ] && kill -9 "$(cat "$T/n$n/snmpd.pid")" 2>/dev/null
		[ -f "$T/n$n/clustermond.pid" ] && kill -9 "$(cat "$T/n$n/clustermond.pid")" 2>/dev/null
		ip netns del "$(ns "$n")" 2>/dev/null
		ip link del "cm$ID-h$n" 2>/dev/null
	done
	cleanup
}
trap cleanup_cluster EXIT

# The nodes' links live in this namespace, so their subnets must be this
# run's own: 10.NET.n.0/24 with NET routed nowhere yet, chosen and taken
# under a lock, as another run of this test may start beside it (the plain
# and the sanitizer build's suites run at once).
exec 8>/tmp/clustermon-cluster-net.lock
flock 8
NET=
for x in $(seq 78 250); do ip -4 route show | grep -q "^10\.$x\." || { NET=$x; break; }; done
[ -n "$NET" ] || bail "no free 10.x.0.0/16 for the nodes' links"
for n in $NODES; do
	ip netns add "$(ns "$n")" || bail "ip netns add failed"
	ip link add "cm$ID-h$n" type veth peer name eth0 netns "$(ns "$n")" || bail "veth failed"
	ip addr add "10.$NET.$n.1/24" dev "cm$ID-h$n"
	ip link set "cm$ID-h$n" up
	ip -n "$(ns "$n")" addr add "10.$NET.$n.2/24" dev eth0
	ip -n "$(ns "$n")" link set eth0 up
	ip -n "$(ns "$n")" link set lo up
	mkdir -p "$T/n$n/persist"
	cat >"$T/n$n/snmpd.conf" <<EOC
agentAddress udp:10.$NET.$n.2:161
master agentx
agentXSocket unix:$T/n$n/agentx.sock
rocommunity public 10.$NET.$n.0/24
EOC
	# Its own UTS namespace: clusterMonNodeName is uname's node name.
	ip netns exec "$(ns "$n")" unshare --uts sh -c "
		hostname node$n
		SNMP_PERSISTENT_DIR=$T/n$n/persist $SNMPD -C -c $T/n$n/snmpd.conf -Lf $T/n$n/snmpd.log \
			-p $T/n$n/snmpd.pid -I -smux,mteTrigger,mteTriggerConf
		# Once the master listens: started earlier, clustermond would
		# register only at its next retry.
		for i in \$(seq 1 300); do [ -S $T/n$n/agentx.sock ] && break; sleep 0.1; done
		SNMP_PERSISTENT_DIR=$T/n$n/persist $CLUSTERMOND -x unix:$T/n$n/agentx.sock \
			-Lf $T/n$n/clustermond.log -p $T/n$n/clustermond.pid" 8>&-
done
exec 8>&-   # the routes exist: the next run sees NET taken

# The aggregator: this namespace's snmpd, a v3 user allowed every context.
write_master_conf
"$top_srcdir/contrib/cluster/aggregator-conf.sh" node1=10.$NET.1.2 node2=10.$NET.2.2 \
	node3=10.$NET.3.2 >>"$T/snmpd.conf" || bail "aggregator-conf.sh failed"
cat >>"$T/snmpd.conf" <<EOC
createUser clusterview SHA-256 "cluster-view-pass" AES "cluster-view-pass"
rouser -s usm clusterview priv -V all
view all included .1
group clusterviewers usm clusterview
access clusterviewers "node" usm priv prefix all none none
EOC
start_master || bail "the aggregator's snmpd did not start"
via() { # via CONTEXT OID: the value through the aggregator
	snmpget -v3 -u clusterview -l authPriv -a SHA-256 -A cluster-view-pass -x AES \
		-X cluster-view-pass -n "$1" -t 2 -r 1 -On -Oqv "$TARGET" "$2" 2>&1
}
for n in $NODES; do
	wait_for "$(slack 10)" sh -c "snmpget -v2c -c public -t 1 -r 0 -Oqv 10.$NET.$n.2 $clusterMonNodeName.0 | grep -q node$n"
	is "$(snmpget -v2c -c public -t 1 -r 1 -Oqv 10.$NET.$n.2 "$clusterMonNodeName.0" 2>&1)" "\"node$n\"" \
		"node$n answers on its own address with its own name"
done
for n in $NODES; do
	is "$(via "node$n" "$clusterMonNodeName.0")" "\"node$n\"" "through the aggregator, context node$n is node$n"
done
out=$(snmpwalk -v3 -u clusterview -l authPriv -a SHA-256 -A cluster-view-pass -x AES \
	-X cluster-view-pass -n node2 -On -Oqv "$TARGET" "$clusterMonSourceName" 2>&1)
is "$(tr '\n' ' ' <<<"$out")" '"cpu" "mem" "proc" "tcp" "pcap" "probes" "cgroup" ' \
	"a walk through context node2 returns node2's source table"
# clustermonctl --cluster: one line per node through the aggregator.
out=$("$top_builddir/contrib/clustermonctl" -v 3 -u clusterview -l authPriv -a SHA-256 \
	-A cluster-view-pass -x AES -X cluster-view-pass --cluster node1,node2,node3 \
	"$TARGET" nodes 2>&1)
echo "$out" >>"$T/clients.log"
is "$(awk '{ print $1 }' <<<"$out" | tr '\n' ' ')" "node1 node2 node3 " \
	"clustermonctl --cluster shows each node's own line"
diag "$out"
check "the default context does not proxy anything" contains "No Such Object" \
	"$(snmpget -v2c -c public -On "$TARGET" "$clusterMonNodeName.0" 2>&1)"
finish
