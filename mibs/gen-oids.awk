# gen-oids.awk - the numbers of CLUSTER-MON-MIB as a C header.
#
#   awk -f gen-oids.awk mibs/CLUSTER-MON-MIB.txt > subagent/mib/cm-oids.h
#
# For every node the MIB names (OBJECT IDENTIFIER, MODULE-IDENTITY,
# OBJECT-TYPE, NOTIFICATION-TYPE, OBJECT-GROUP, ... assignments):
#   CM_OID_name      its full OID as a comma list: { CM_OID_name, 0 } is an array
#   CM_OID_name_LEN  its number of sub-identifiers
#   CM_ARC_name      its last sub-identifier (a column's or scalar's number)
# The MIB file is the one place the layout is written; the agent, the client
# tools and the tests take their numbers from here. Plain awk rather than
# smidump: awk is already needed by every build (AC_PROG_AWK), libsmi is not.
# Only the assignment forms this MIB uses are read ({ parent number }); any
# other form stops the build with file:line instead of a wrong number.
# tests/mib-oids.sh checks the result against net-snmp's own MIB parser.

BEGIN {
	# Roots imported from other modules: the only numbers not in the file.
	oidof["netSnmpExperimental"] = "1.3.6.1.4.1.8072.9999"
	split("MODULE-IDENTITY OBJECT-TYPE NOTIFICATION-TYPE OBJECT-IDENTITY " \
	      "OBJECT-GROUP NOTIFICATION-GROUP MODULE-COMPLIANCE", m, " ")
	for (k in m)
		macro[m[k]] = 1
	ntok = 0
	instr = 0
}

function fail(line, msg) {
	printf "%s:%d: %s\n", FILENAME, line, msg > "/dev/stderr"
	failed = 1
	exit 1
}

# Tokens of one line, strings and comments left out.
{
	line = $0
	out = ""
	while (line != "") {
		if (instr) {
			q = index(line, "\"")
			if (q == 0)
				break
			line = substr(line, q + 1)
			instr = 0
			continue
		}
		q = index(line, "\"")
		c = index(line, "--")
		if (c && (!q || c < q)) {
			out = out " " substr(line, 1, c - 1)
			break
		}
		if (q) {
			out = out " " substr(line, 1, q - 1) " \"\" "
			line = substr(line, q + 1)
			instr = 1
			continue
		}
		out = out " " line
		line = ""
	}
	gsub(/::=/, " ::= ", out)
	gsub(/[{}(),;]/, " & ", out)
	n = split(out, w, /[ \t]+/)
	for (i = 1; i <= n; i++)
		if (w[i] != "") {
			tok[++ntok] = w[i]
			at[ntok] = FNR
		}
}

# name ... ::= { parent number } starting at token i; returns the next token.
function define(i, kind, j,    name) {
	name = tok[i]
	while (j <= ntok && tok[j] != "::=")
		j++
	if (tok[j + 1] != "{" || tok[j + 2] !~ /^[a-z][A-Za-z0-9-]*$/ ||
	    tok[j + 3] !~ /^[0-9]+$/ || tok[j + 4] != "}")
		fail(at[i], name ": only '::= { parent number }' is understood here")
	if (name in parent)
		fail(at[i], name " is defined twice")
	parent[name] = tok[j + 2]
	arc[name] = tok[j + 3]
	defline[name] = at[i]
	order[++nnodes] = name
	return j + 5
}

# The full OID of name; where is the line that asked for it.
function resolve(name, where, depth) {
	if (name in oidof)
		return oidof[name]
	if (!(name in parent) || depth > 64)
		fail(where, "no OID known for " name)
	oidof[name] = resolve(parent[name], defline[name], depth + 1) "." arc[name]
	return oidof[name]
}

END {
	if (failed)
		exit 1
	for (i = 1; i <= ntok; ) {
		t = tok[i]
		if (t ~ /^[a-z][A-Za-z0-9-]*$/ && (tok[i + 1] in macro))
			i = define(i, tok[i + 1], i + 2)
		else if (t ~ /^[a-z][A-Za-z0-9-]*$/ && tok[i + 1] == "OBJECT" &&
			 tok[i + 2] == "IDENTIFIER" && tok[i + 3] == "::=")
			i = define(i, "OBJECT IDENTIFIER", i + 3)
		else
			i++
	}
	if (nnodes == 0)
		fail(0, "no OID assignments found")
	print "/* Generated from CLUSTER-MON-MIB.txt by mibs/gen-oids.awk: do not edit. */"
	print "#ifndef CLUSTERMON_CM_OIDS_H"
	print "#define CLUSTERMON_CM_OIDS_H"
	for (k = 1; k <= nnodes; k++) {
		name = order[k]
		if (name ~ /-/)
			fail(0, name ": a hyphen cannot be part of a C macro name")
		o = resolve(name, defline[name], 0)
		len = split(o, parts, ".")
		gsub(/\./, ", ", o)
		print ""
		printf "#define CM_OID_%s %s\n", name, o
		printf "#define CM_OID_%s_LEN %d\n", name, len
		printf "#define CM_ARC_%s %s\n", name, arc[name]
	}
	print ""
	print "#endif"
}
