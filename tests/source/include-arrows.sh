#!/bin/bash
# include-arrows.sh - the layers docs/architecture.md draws, checked on the
# #include lines and everything they bring in: collect/ (OS readers) and
# core/ (pure C) below sources/ and the sampler, below mib/, below main.c,
# conf.c and reload.c; mib/ never reaches into collect/; within mib/, the
# groups stand on the engine (mib/engine/) and the engine includes no group; collect/ and core/
# never see net-snmp or libbpf; image/ (the image's format, which
# clustermond writes and dlmod/ reads) is pure C on common/ and the one
# binary search; dlmod/ links image/ and common/ only; common/ (what
# several binaries compile: clock, numbers, the helper's protocol and map
# layout) includes only itself and the C library, and everything may
# include it; nothing outside kprobe-helper/ includes the helper's own
# headers, and the helper includes nothing of subagent/. A quoted include is
# resolved as the compiler does: the file's own directory, then the -I
# directories of Makefile.am in their order. An arrow is a file and what it
# reaches through any chain of headers: a rule a header breaks is broken by
# every file that includes it. The script first checks itself on a made-up
# tree (test 1).
. "$(dirname "$0")/files.sh"

# Arrows that exist today and are allowed, each with its reason. Listed, not
# hidden: one that no longer occurs fails too, so this list stays true.
EXCEPTIONS='
tests/unit/test_ctf.c -> kprobe-helper/ctf.h
tests/unit/test_ctf.c -> kprobe-helper/tpformat.h
tests/unit/test_policy.c -> kprobe-helper/policy.h
tests/fuzz/fuzz_wire.c -> kprobe-helper/ctf.h
tests/fuzz/fuzz_wire.c -> kprobe-helper/tpformat.h
tests/fuzz/fuzz_ctf.c -> kprobe-helper/ctf.h
tests/fuzz/fuzz_ctf.c -> kprobe-helper/tpformat.h
'
# (The helper's CTF writer and tracefs format parser have their unit test and
# fuzz targets outside kprobe-helper/; its hook policy, a unit test.)

resolve() { # FILE INCLUDE: the included file, relative to the top
	local dir
	for dir in "$(dirname "$1")" subagent . kprobe-helper contrib/ctl contrib/nagios contrib/client; do
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

direct() { # "FILE -> TARGET" for every include; <...> kept as written
	local f inc
	for f in $(c_files); do
		sed -n 's/^#[ \t]*include[ \t]*"\([^"]*\)".*/\1/p' "$top/$f" | while read -r inc; do
			echo "$f -> $(resolve "$f" "$inc")"
		done
		sed -n 's/^#[ \t]*include[ \t]*\(<[^>]*>\).*/\1/p' "$top/$f" | sed "s|^|$f -> |"
	done
}

# "FILE -> TARGET VIA" for everything each file reaches: VIA is the chain
# of headers it came through ("-" when the file includes it itself).
reach() {
	awk '
	{ n[$1]++; to[$1, n[$1]] = $3; files[$1] = 1 }
	END {
		for (f in files) {
			delete seen; qn = 0
			for (i = 1; i <= n[f]; i++) { q[++qn] = to[f, i]; via[qn] = "-" }
			for (h = 1; h <= qn; h++) {
				t = q[h]
				if (t in seen) continue
				seen[t] = 1
				print f " -> " t " " via[h]
				for (i = 1; i <= n[t]; i++) {
					q[++qn] = to[t, i]
					via[qn] = (via[h] == "-" ? t : via[h] ">" t)
				}
			}
		}
	}' | sort
}

self_test() { # the rules must catch what only a chain of headers brings in
	local d out
	d=$(mktemp -d) || return 1
	mkdir -p "$d/subagent/mib" "$d/subagent/sources" "$d/subagent/collect"
	echo '#include "../sources/s.h"' >"$d/subagent/mib/m.c"
	echo '#include "../collect/c.h"' >"$d/subagent/sources/s.h"
	echo '#include "a.h"' >"$d/subagent/collect/c.h"
	echo '#include "c.h"' >"$d/subagent/collect/a.h"
	echo '#include <net-snmp/net-snmp-config.h>' >>"$d/subagent/collect/a.h"
	mkdir -p "$d/subagent/runtime"
	echo '#include "../runtime/sampler.h"' >"$d/subagent/sources/t.h"
	: >"$d/subagent/runtime/sampler.h"
	# a snapshot type put back in sources.h, and a source's header reaching
	# another's
	printf 'struct x_snapshot {\n\tstruct snapshot hdr;\n};\n' >"$d/subagent/sources/sources.h"
	echo 'extern const struct source_ops x_source_ops;' >"$d/subagent/sources/x.h"
	printf '#include "x.h"\nextern const struct source_ops y_source_ops;\n' >"$d/subagent/sources/y.h"
	out=$(top_srcdir=$d ARROWS_INNER=1 bash "$0")
	rm -rf "$d"
	printf '%s\n' "$out" | grep -q '^not ok .* - mib/ reaches nothing of collect/' &&
		printf '%s\n' "$out" | grep -qF '#   subagent/mib/m.c -> subagent/collect/c.h (via subagent/sources/s.h)' &&
		printf '%s\n' "$out" | grep -qF '#   subagent/collect/c.h -> <net-snmp/net-snmp-config.h> (via subagent/collect/a.h)' &&
		printf '%s\n' "$out" | grep -qF '#   subagent/sources/t.h -> subagent/runtime/sampler.h' &&
		printf '%s\n' "$out" | grep -q '^not ok .* - no header includes itself' &&
		printf '%s\n' "$out" | grep -qF '#   subagent/collect/a.h -> subagent/collect/a.h' &&
		printf '%s\n' "$out" | grep -qF '#   subagent/sources/sources.h:1: struct x_snapshot {' &&
		printf '%s\n' "$out" | grep -qF '#   subagent/sources/sources.h:2: struct snapshot hdr;' &&
		printf '%s\n' "$out" | grep -qF '#   subagent/sources/y.h -> subagent/sources/x.h'
}

all=$(direct | reach)
n=$(printf '%s\n' "$all" | awk '$4 == "-"' | wc -l) # the include lines themselves

# check N DESCRIPTION FROM BAD [GOOD]: nothing a file matching FROM reaches
# matches BAD (and not GOOD) but the listed exceptions. Extended regular
# expressions; a target is a path from the top or a <header>.
check() {
	local found
	found=$(printf '%s\n' "$all" | awk -v from="$3" -v bad="$4" -v good="${5:-}" '
		{ f = $1; t = $3 }
		f ~ from && t ~ bad && (good == "" || t !~ good) {
			print $1 " -> " $3 ($4 == "-" ? "" : " (via " $4 ")")
		}' |
		awk -v ex="$EXCEPTIONS" 'BEGIN { split(ex, e, "\n"); for (i in e) if (e[i] != "") skip[e[i]] = 1 }
			{ k = $0; sub(/ \(via .*/, "", k) } !(k in skip)')
	if [ -z "$found" ]; then
		echo "ok $1 - $2"
	else
		echo "not ok $1 - $2:"
		printf '%s\n' "$found" | sed 's/^/#   /'
	fi
}

top_layer='^subagent/(main[.]c|conf[.][ch]|reload[.][ch]|privdrop[.][ch])$'
echo "1..21"
if [ -n "${ARROWS_INNER:-}" ]; then
	echo "ok 1 - (the self-test is not run inside itself)"
elif self_test; then
	echo "ok 1 - a made-up tree's forbidden includes two headers down, its circle, its snapshot type in sources.h and its source header including another are reported"
else
	echo "not ok 1 - the checks missed a forbidden include through headers or a circle"
fi
if [ "$n" -gt 500 ]; then echo "ok 2 - $n include lines read"; else echo "not ok 2 - only $n include lines read"; fi
check 3 "mib/ reaches nothing of collect/" '^subagent/mib/' '^subagent/collect/'
check 4 "collect/ reaches no net-snmp or libbpf header, nothing of subagent/ but collect/ and core/" \
	'^subagent/collect/' '^(<net-snmp/|<bpf/|subagent/)' '^subagent/(collect|core)/'
check 5 "core/ reaches only core/, common/ and the C library" \
	'^subagent/core/' '.' '^((subagent/core|common)/.*|<[^/]*>|<sys/[^/]*>)$'
check 6 "dlmod/ reaches image/, common/, core/lowerbound.h, the MIB's numbers and system headers only" \
	'^dlmod/' '.' '^((image|common)/.*|subagent/core/lowerbound[.]h|subagent/mib/cm-oids[.]h|<.*>)$'
check 7 "outside kprobe-helper/ nothing of it is reached (the protocol is in common/)" \
	'^(subagent|dlmod|contrib|tests|common)/' '^kprobe-helper/'
check 8 "every quoted include resolves" '.' '^unresolved:'
check 9 "sources/ and runtime/ (the sampler and its plumbing) reach neither mib/ nor main.c, conf.h, reload.h" \
	'^subagent/(sources|runtime)/' "^subagent/mib/|$top_layer"
# The sampler runs the sources and includes sources.h: they include only
# the contract both share (sources/source_ops.h), never sampler.h.
check 10 "sources/ reach nothing of sampler.h" '^subagent/sources/' '^subagent/runtime/sampler[.]h$'
check 11 "mib/ reaches none of main.c, conf.h, reload.h" '^subagent/mib/' "$top_layer"
# A header that reaches itself is a circle: neither side is the lower one.
circles=$(printf '%s\n' "$all" | awk '$1 == $3 { print $1 " -> " $3 " (via " $4 ")" }')
if [ -z "$circles" ]; then
	echo "ok 12 - no header includes itself through others"
else
	echo "not ok 12 - no header includes itself through others:"
	printf '%s\n' "$circles" | sed 's/^/#   /'
fi

# 13: each listed exception still occurs (else it is lifted: delete it here).
stale=$(printf '%s\n' "$EXCEPTIONS" | grep . |
	grep -vxF -f <(printf '%s\n' "$all" | awk '{ print $1 " -> " $3 }'))
if [ -z "$stale" ]; then
	echo "ok 13 - the $(printf '%s\n' "$EXCEPTIONS" | grep -c .) listed exceptions still occur"
	printf '%s\n' "$EXCEPTIONS" | grep . | sed 's/^/# exception: /'
else
	echo "not ok 13 - listed exceptions that no longer occur (delete them):"
	printf '%s\n' "$stale" | sed 's/^/#   /'
fi
check 14 "common/ reaches only common/ and the C library" \
	'^common/' '.' '^(common/.*|<[^/]*>|<(sys|linux)/[^/]*>)$'
check 15 "kprobe-helper/ reaches nothing of subagent/" '^kprobe-helper/' '^subagent/'
# The subagent's root is the top layer alone; what it stands on has a room.
loose=$(c_files | grep '^subagent/[^/]*$' | grep -Ev "$top_layer")
if [ -z "$loose" ]; then
	echo "ok 16 - subagent/'s root holds the top layer only (main.c, conf, reload, privdrop)"
else
	echo "not ok 16 - files in subagent/'s root below the top layer:"
	printf '%s\n' "$loose" | sed 's/^/#   /'
fi
# The engine is what every group stands on: a group includes it, never the
# reverse (mib.h, the groups' list, included by the engine would be a circle
# in all but name).
check 17 "mib/engine/ reaches nothing of mib/ but itself" \
	'^subagent/mib/engine/' '^subagent/mib/' '^subagent/mib/engine/'
# The image's format is compiled by clustermond and by clustermon.so in
# snmpd: it stands on nothing either has of its own but the inline search.
check 18 "image/ reaches only image/, common/, core/lowerbound.h and the C library" \
	'^image/' '.' '^((image|common)/.*|subagent/core/lowerbound[.]h|<[^/]*>)$'
# What every source and reader shares includes no source's own header: a
# command's rows, a source's views, are where they belong (source_cmd.h,
# probes.h, traces.h, dists.h), included by who uses them.
check 19 "sources/sources.h reaches nothing of sources/ but source_ops.h" \
	'^subagent/sources/sources[.]h$' '^subagent/sources/' '^subagent/sources/source_ops[.]h$'
# sources.h is the (re)load's configuration and nothing else (issue 44): a
# snapshot or row type, a struct that carries a snapshot's header, or a
# source's ops put back in it make it the union of every source's types
# again. They belong in the source's own header, sources/x.h.
found=$(grep -nE 'struct [a-z0-9_]+_(snapshot|row)[[:space:]]*[{]|struct snapshot[[:space:]]+[a-z_]+;|_source_ops;' \
	"$top/subagent/sources/sources.h" 2>/dev/null | sed 's/:[[:space:]]*/: /')
if [ -z "$found" ]; then
	echo "ok 20 - sources/sources.h defines no snapshot or row type and declares no source's ops"
else
	echo "not ok 20 - snapshot types or a source's ops in sources/sources.h (they go in the source's own header):"
	printf '%s\n' "$found" | sed 's|^|#   subagent/sources/sources.h:|'
fi
# A source's own header (one declaring its ops) reaches no other source's:
# a MIB group that includes the header of the source it reads gets that
# source's types and no more. What ties two sources (the tcp source
# finding a socket's owner among the proc source's rows) is in a .c file.
src_h=$(cd "$top" && grep -lE '^extern const struct source_ops [a-z0-9_]+_source_ops;' \
	subagent/sources/*.h 2>/dev/null)
src_re="^($(printf '%s\n' $src_h | sed 's/[.]/[.]/g' | paste -sd'|'))\$"
check 21 "a source's own header reaches no other's ($(printf '%s\n' $src_h | sed 's|.*/||' | paste -sd' '))" \
	"$src_re" "$src_re"
