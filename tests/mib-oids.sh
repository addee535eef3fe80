#!/bin/bash
# mib-oids.sh - one layout for CLUSTER-MON-MIB: the header the build generates
# from the MIB (subagent/mib/cm-oids.h, mibs/gen-oids.awk), the objects the
# agent's groups register (tests/system/oidlayout) and net-snmp's own parse
# of the MIB file (snmptranslate -Tp) name the same numbers. A column moved
# in the MIB but not in the code, or the other way round, fails here.
. "$(dirname "$0")/system/lib.sh"

command -v snmptranslate >/dev/null || missing_all "snmptranslate not installed (apt-get install snmp)"
HEADER="$top_builddir/subagent/mib/cm-oids.h"
LAYOUT="$top_builddir/tests/system/oidlayout"
[ -f "$HEADER" ] && [ -x "$LAYOUT" ] || missing_all "build first: no $HEADER or $LAYOUT"
echo "1..5"
dirs=$(mib_dirs)
translate() { snmptranslate -M "$dirs" -m CLUSTER-MON-MIB "$@" 2>/dev/null; }

# net-snmp's tree under clusterMonMIB as "name oid kind access": kind is
# scalar, column (an accessible leaf under an entry with an INDEX) or node.
root=$(translate -On CLUSTER-MON-MIB::clusterMonMIB)
translate -Tp -OS CLUSTER-MON-MIB::clusterMonMIB | awk -v root="$root" '
	/\+--/ {
		depth = (index($0, "+--") - 1) / 3
		if (!match($0, /[A-Za-z][A-Za-z0-9-]*\([0-9]+\)$/)) next
		node = substr($0, RSTART, RLENGTH)
		name = substr(node, 1, index(node, "(") - 1)
		num = substr(node, index(node, "(") + 1); sub(/\)/, "", num)
		oid[depth] = depth == 0 ? root : oid[depth - 1] "." num
		entry[depth] = 0
		access = ""
		if (match($0, /\+-- [-CRWN][-CRWN][-CRWN][-CRWN] /)) access = substr($0, RSTART + 4, 4)
		kind = access == "" ? "node" : (depth > 0 && entry[depth - 1]) ? "column" : "scalar"
		a = access == "-R--" ? "ro" : access == "-RW-" ? "rw" : access == "CR--" ? "rc" : "na"
		print name, oid[depth], kind, a
		last = depth
		next
	}
	/Index:/ { entry[last] = 1 }' >"$T/mib"

# 1: net-snmp read the MIB at all (else every comparison below is empty).
[ -n "$root" ] && [ "$(wc -l <"$T/mib")" -gt 200 ]
ok $? "net-snmp parses CLUSTER-MON-MIB: $(wc -l <"$T/mib") nodes under ${root:-nothing}"

# 2: the generated header names every node with net-snmp's number, no more.
sed -n 's/^#define CM_OID_\([A-Za-z0-9]*\) \(.*\)/\1 .\2/p' "$HEADER" | grep -v '_LEN ' |
	sed 's/, /./g' | sort >"$T/header"
awk '{ print $1, $2 }' "$T/mib" | sort >"$T/mib.names"
d=$(diff "$T/mib.names" "$T/header"); rc=$?
[ $rc -eq 0 ] || printf '< net-snmp, > cm-oids.h\n%s\n' "$d" | head -20 | sed 's/^/# /'
ok $rc "cm-oids.h gives each of the MIB's $(wc -l <"$T/header") nodes net-snmp's OID"

# 3: what the groups register is what the MIB defines, kind and access:
# read-create tables (*) accept a read-only or read-create column. Objects
# no request reaches (not-accessible index columns, accessible-for-notify
# varbinds such as clusterMonOomKillPid) are nothing an agent serves.
"$LAYOUT" | sort >"$T/code"
awk '($3 == "scalar" || $3 == "column") && $4 != "na" { print $3, $2, $4 }' "$T/mib" |
	sort >"$T/mib.objects"
d=$(join -j 2 -a 1 -a 2 -e - -o 0,1.1,1.3,2.1,2.3 <(sort -k2,2 "$T/mib.objects") \
	<(sort -k2,2 "$T/code") | awk '
	$2 != $4 || ($5 != $3 && !($5 == "*" && ($3 == "ro" || $3 == "rc"))) {
		print "MIB", $2, $1, $3, "/ agent", $4, $5
	}')
[ -z "$d" ] || printf '%s\n' "$d" | head -20 | sed 's/^/# /'
ok "$([ -z "$d" ]; echo $?)" \
	"the agent serves exactly the MIB's $(wc -l <"$T/mib.objects") scalars and columns, with its access"

# 4: no client or agent source writes the MIB's root as numbers any more.
bare=$(ls "$top_srcdir"/subagent/*.c "$top_srcdir"/subagent/mib/*.[ch] "$top_srcdir"/subagent/mib/engine/*.[ch] "$top_srcdir"/contrib/*/*.c \
	"$top_srcdir"/dlmod/*.c | grep -v '/cm-oids\.h$' | xargs grep -l '8072, *9999\|9999, *77')
[ -z "$bare" ] || echo "# bare OIDs in: $bare"
ok "$([ -z "$bare" ]; echo $?)" "agent, dlmod and client tools take their OIDs from cm-oids.h"

# 5: lib.sh's names for the shell tests are the header's.
is "$clusterMonCpuUtil" "$(translate -On CLUSTER-MON-MIB::clusterMonCpuUtil)" \
	"the system tests' \$clusterMonCpuUtil is net-snmp's clusterMonCpuUtil"
exit $(( tap_failed > 0 ))
