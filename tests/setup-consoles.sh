#!/bin/sh
# setup-consoles.sh - install the operations consoles `make check-consoles`
# runs clustermon in (only what is missing): Nagios 4 with the standard
# plugins, and snmptt, which traps reach through snmptrapd; Zabbix 6.0's
# server for PostgreSQL and its PHP frontend (served by PHP's own web
# server in the test, so no apache). Net::IP is not
# among snmptt's Debian dependencies but snmptt dies without it when
# ipv6_enable is on, as Debian's snmptt.ini has it.
set -eu
PACKAGES="nagios4-core monitoring-plugins-basic snmptrapd snmptt libnet-ip-perl
postgresql-15 zabbix-server-pgsql zabbix-frontend-php php8.2-cli php8.2-pgsql python3-yaml"
missing=
for p in $PACKAGES; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
	echo "setup-consoles: missing packages:$missing; run as root (sudo)" >&2
	exit 1
fi
echo "setup-consoles: installing$missing"
export DEBIAN_FRONTEND=noninteractive
# Other apt users on the machine: wait for the lock instead of failing.
apt-get -o DPkg::Lock::Timeout=900 update -qq
apt-get -o DPkg::Lock::Timeout=900 install -y -qq --no-install-recommends $missing >/dev/null
