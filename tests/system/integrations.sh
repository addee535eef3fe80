#!/bin/bash
# integrations.sh - contrib's Cacti data queries and template, Zabbix template
# and LibreNMS discovery file are well-formed XML/YAML and name only OIDs and
# objects that CLUSTER-MON-MIB defines (resolved with the MIB itself); the
# Cacti template is also checked against the data queries and the MIB's
# SYNTAX (integrations_check.py says how).
. "$(dirname "$0")/lib.sh"

files=("$top_srcdir"/contrib/cacti/*.xml "$top_srcdir"/contrib/zabbix/*.yaml "$top_srcdir"/contrib/librenms/*.yaml)
# Cacti template exports (<cacti> files) get 3 more tests each.
templates=$(grep -l '^<cacti>' "$top_srcdir"/contrib/cacti/*.xml | wc -l)
plan $(( ${#files[@]} * 2 + templates * 3 ))
/usr/bin/python3 -c 'import yaml' 2>/dev/null || bail "python3-yaml is missing (tests/setup-deps.sh installs it)"
snmptranslate -M "$(mib_dirs)" -m CLUSTER-MON-MIB -Tz >"$T/objects" 2>"$T/translate.log"
grep -q clusterMonCpuUtil "$T/objects" || bail "snmptranslate cannot read CLUSTER-MON-MIB: $(head -n 3 "$T/translate.log")"
/usr/bin/python3 "$(dirname "$0")/integrations_check.py" "$T/objects" 1 "${files[@]}"
[ $? -eq 0 ] || tap_failed=1
tap_n=$(( ${#files[@]} * 2 + templates * 3 ))
finish
