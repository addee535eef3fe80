#!/bin/sh
# setup-consoles.sh [--download] - install the operations consoles `make check-consoles`
# runs clustermon in (only what is missing): Nagios 4 with the standard
# plugins, and snmptt, which traps reach through snmptrapd; Zabbix 6.0's
# server for PostgreSQL and its PHP frontend (served by PHP's own web
# server in the test, so no apache); Cacti 1.2 with MariaDB. Net::IP is not
# among snmptt's Debian dependencies but snmptt dies without it when
# ipv6_enable is on, as Debian's snmptt.ini has it; Cacti's installer
# refuses to run without PHP's intl, which its package does not depend on.
# Icinga 2 with the standard plugins (check_snmp, which the ITL's snmp
# command runs); collectd-core (its snmp plugin uses libsnmp40, which the
# build's libsnmp-dev already brings).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
PACKAGES="nagios4-core monitoring-plugins-basic snmptrapd snmptt libnet-ip-perl
postgresql-15 zabbix-server-pgsql zabbix-frontend-php php8.2-cli php8.2-pgsql python3-yaml
cacti mariadb-server php8.2-intl php8.2-mysql rrdtool
icinga2-bin icinga2-common monitoring-plugins-standard collectd-core"
# Cacti's package would set up its database through dbconfig-common: the test
# makes its own in a private MariaDB, so none is made at install time.
# --download: only fetch them into apt's cache (tests/run-suite.sh does that
# while other phases run, and installs them last).
if [ "${1:-}" = --download ]; then
	DEBIAN_FRONTEND=noninteractive exec apt-get -o DPkg::Lock::Timeout=900 install -y -qq -d \
		--no-install-recommends $PACKAGES >/dev/null
fi
if [ "$(id -u)" -eq 0 ]; then
	echo "cacti cacti/dbconfig-install boolean false" | debconf-set-selections
fi
"$here/install-missing.sh" setup-consoles $PACKAGES
