#!/bin/bash
# include-arrows.sh - the layers docs/architecture.md draws, checked on the
# #include lines: collect/ (OS readers) below core/ (pure C) below sources/
# and mib/; mib/ never reaches into collect/; collect/ and core/ never see
# net-snmp or libbpf; dlmod/ links core/ only; common/ (what several binaries
# compile: clock, numbers, the helper's protocol and map layout) includes only
# itself and the C library, and everything may include it; nothing outside
# kprobe-helper/ includes the helper's own headers, and the helper includes
# nothing of subagent/. A quoted
# include is resolved as the compiler does: the file's own directory, then
# the -I directories of Makefile.am in their order.
. "$(dirname "$0")/files.sh"

# Arrows that exist today and are allowed, each with its reason. Listed, not
# hidden: one that no longer occurs fails too, so this list stays true.
EXCEPTIONS='
tests/unit/test_ctf.c -> kprobe-helper/ctf.h
tests/unit/test_ctf.c -> kprobe-helper/tpformat.h
tests/fuzz/fuzz_wire.c -> kprobe-helper/tpformat.h
'
# (The helper's CTF writer and tracefs format parser have their unit test and
# fuzz target outside kprobe-helper/.)

resolve() { # FILE INCLUDE: the included file, relative to the top
	local dir
	for dir in "$(dirname "$1")" tests/unit subagent . kprobe-helper contrib/ctl contrib/nagios contrib/client; do
		if [ -e "$top/$dir/$2" ]; then
			realpath -m --relative-to="$top" "$top/$dir/$2"
			return
		fi
	done
	case $2 in
	mib/cm-oids.h) echo subagent/mib/cm-oids.h ;;   # generated in the build tree
	*.skel.h) echo "kprobe-helper/$2" ;;            # the BPF skeletons, likewise
	*) echo "unresolved:$2" ;;
	esac
}

arrows() { # "FILE -> TARGET" for every include; <...> kept as written
	local f inc
	for f in $(c_files); do
		sed -n 's/^#[ \t]*include[ \t]*"\([^"]*\)".*/\1/p' "$top/$f" | while read -r inc; do
			echo "$f -> $(resolve "$f" "$inc")"
		done
		sed -n 's/^#[ \t]*include[ \t]*\(<[^>]*>\).*/\1/p' "$top/$f" | sed "s|^|$f -> |"
	done
}
all=$(arrows)
n=$(printf '%s\n' "$all" | grep -c ' -> ')

# check N DESCRIPTION FROM BAD [GOOD]: no arrow from a file matching FROM to a
# target matching BAD (and not GOOD) but the listed exceptions. Extended
# regular expressions; a target is a path from the top or a <header>.
check() {
	local found
	found=$(printf '%s\n' "$all" | awk -v from="$3" -v bad="$4" -v good="${5:-}" '
		{ f = $1; t = $3 }
		f ~ from && t ~ bad && (good == "" || t !~ good)' |
		grep -vxF -f <(printf '%s\n' "$EXCEPTIONS" | grep .))
	if [ -z "$found" ]; then
		echo "ok $1 - $2"
	else
		echo "not ok $1 - $2:"
		printf '%s\n' "$found" | sed 's/^/#   /'
	fi
}

echo "1..10"
if [ "$n" -gt 500 ]; then echo "ok 1 - $n include lines read"; else echo "not ok 1 - only $n include lines read"; fi
check 2 "mib/ includes nothing of collect/" '^subagent/mib/' '^subagent/collect/'
check 3 "collect/ includes no net-snmp or libbpf header, nothing of mib/ or sources/" \
	'^subagent/collect/' '^(<net-snmp/|<bpf/|subagent/(mib|sources)/)'
check 4 "core/ includes only core/, common/ and the C library" \
	'^subagent/core/' '.' '^((subagent/core|common)/.*|<[^/]*>|<sys/[^/]*>)$'
check 5 "dlmod/ includes core/, the MIB's numbers and system headers only" \
	'^dlmod/' '.' '^((subagent/core|common)/.*|subagent/mib/cm-oids\.h|<.*>)$'
check 6 "outside kprobe-helper/ nothing of it is included (the protocol is in common/)" \
	'^(subagent|dlmod|contrib|tests|common)/' '^kprobe-helper/'
check 7 "every quoted include resolves" '.' '^unresolved:'

# 8: each listed exception still occurs (else it is lifted: delete it here).
stale=$(printf '%s\n' "$EXCEPTIONS" | grep . | grep -vxF -f <(printf '%s\n' "$all"))
if [ -z "$stale" ]; then
	echo "ok 8 - the $(printf '%s\n' "$EXCEPTIONS" | grep -c .) listed exceptions still occur"
	printf '%s\n' "$EXCEPTIONS" | grep . | sed 's/^/# exception: /'
else
	echo "not ok 8 - listed exceptions that no longer occur (delete them):"
	printf '%s\n' "$stale" | sed 's/^/#   /'
fi
check 9 "common/ includes only common/ and the C library" \
	'^common/' '.' '^(common/.*|<[^/]*>|<(sys|linux)/[^/]*>)$'
check 10 "kprobe-helper/ includes nothing of subagent/" '^kprobe-helper/' '^subagent/'
