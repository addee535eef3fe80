#!/bin/sh
# aggregator-conf.sh - snmpd.conf lines for a cluster aggregator: one proxy
# per node, each under an SNMP context named after the node, so that
#   snmpwalk -v3 ... -n node2 AGGREGATOR CLUSTER-MON-MIB::clusterMonObjects
# reads node2's clustermond (dproc's /proc/cluster/nodeN, on the SNMP engine
# operators already run).
#
# usage: aggregator-conf.sh [-c COMMUNITY] [-p PORT] NAME=ADDRESS...
#   COMMUNITY  the nodes' read-only v2c community (default public)
#   PORT       the nodes' SNMP port (default 161)
# Prints the proxy lines on standard output; add a v3 user with access to
# every context (see contrib/cluster/README) to the same snmpd.conf.
set -eu
community=public port=161
while getopts c:p: opt; do
	case $opt in
	c) community=$OPTARG ;;
	p) port=$OPTARG ;;
	*) echo "usage: $0 [-c COMMUNITY] [-p PORT] NAME=ADDRESS..." >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || { echo "usage: $0 [-c COMMUNITY] [-p PORT] NAME=ADDRESS..." >&2; exit 2; }
echo "# CLUSTER-MON-MIB of each node under a context of its name (aggregator-conf.sh)"
for node in "$@"; do
	name=${node%%=*} addr=${node#*=}
	case $name in
	""|*[!A-Za-z0-9._-]*) echo "aggregator-conf.sh: bad node name '$name'" >&2; exit 2 ;;
	esac
	[ "$addr" != "$node" ] && [ -n "$addr" ] ||
		{ echo "aggregator-conf.sh: '$node' is not NAME=ADDRESS" >&2; exit 2; }
	echo "proxy -Cn $name -v 2c -c $community udp:$addr:$port .1.3.6.1.4.1.8072.9999.77.1"
done
