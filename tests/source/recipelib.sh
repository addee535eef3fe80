# recipelib.sh - sourced by recipe.sh and recipe-bpf.sh, which do
# docs/architecture.md's recipes in a copy of the tree: copying the tree,
# the edits a step makes (text in at a pattern, found whatever the line
# numbers are), and leaving each step out in turn. Each script sets $tmp
# (a private directory), $src (the copy), STEPS (its step functions, each
# writing into $src) and verify (0 when the copy with its steps works;
# else it prints what failed).
. "$(dirname "${BASH_SOURCE[0]}")/files.sh"

# Where the group recipe's steps write and what a group includes, relative
# to the top (a move of the tree changes these alone).
MIB=subagent/mib                    # the groups, mib.h, mib.c
GROUP_H=engine/group.h              # the group engine, as a group includes it
MIBFILE=mibs/CLUSTER-MON-MIB.txt
CM_OIDS=subagent/mib/cm-oids.h      # the MIB's numbers, made in the build tree

# The tree as it is (no build trees, no git), into $src.
copy_tree() {
	mkdir -p "$src" &&
		(cd "$top" && find . -mindepth 1 \( -name .git -o -name autom4te.cache \
			-o -type d -exec test -e '{}/config.status' ';' \) -prune \
			-o \( -type f -o -type l \) -print0 | xargs -0 cp -P --parents -t "$src") &&
		chmod -R u+w "$src" && # distcheck's tree is read-only
		if [ -e "$src/config.status" ]; then # built in the tree itself
			(cd "$src" && make -s distclean) >/dev/null 2>&1
		fi
}

# TEXT reaches awk through the environment: -v would take its backslashes
# as escapes (gawk drops a line's continuation backslash; mawk keeps it).
# Each edit fails when TEXT did not go in (its pattern no longer matches).
# in_after FILE PATTERN TEXT: TEXT as lines after the first line matching it.
in_after() {
	pat=$2 text=$3 awk '{ print } !done && $0 ~ ENVIRON["pat"] { print ENVIRON["text"]; done = 1 }' \
		"$src/$1" >"$tmp/edit" && grep -qF -- "$3" "$tmp/edit" && mv "$tmp/edit" "$src/$1"
}
# in_before FILE START PATTERN TEXT: TEXT before the first line matching
# PATTERN at or after the first line matching START (a case before a
# switch's default, a member before an array's closing brace).
in_before() {
	start=$2 pat=$3 text=$4 awk '!on && $0 ~ ENVIRON["start"] { on = 1 }
		on == 1 && $0 ~ ENVIRON["pat"] { print ENVIRON["text"]; on = 2 } { print }' \
		"$src/$1" >"$tmp/edit" && grep -qF -- "$4" "$tmp/edit" && mv "$tmp/edit" "$src/$1"
}
# enum_append FILE ENUM MEMBER: MEMBER last in "enum ENUM { ... };".
enum_append() {
	start="^enum $2 " member=$3 awk '!on && $0 ~ ENVIRON["start"] { on = 1 }
		on == 1 && /};/ { sub(/,? *};/, ", " ENVIRON["member"] " };"); on = 2 } { print }' \
		"$src/$1" >"$tmp/edit" && grep -q -- ", $3 };" "$tmp/edit" && mv "$tmp/edit" "$src/$1"
}
# before_endif FILE TEXT: TEXT before the header's last #endif.
before_endif() {
	text=$2 awk '{ l[NR] = $0 } /^#endif/ { last = NR }
		END { for (i = 1; i <= NR; i++) { if (i == last) print ENVIRON["text"]; print l[i] } }' \
		"$src/$1" >"$tmp/edit" && grep -qF -- "$2" "$tmp/edit" && mv "$tmp/edit" "$src/$1"
}

# write_steps: every step into $src (kept as $tmp/orig before, $tmp/done
# after, and the files they change listed): 1 naming the step that no
# longer applies to the tree.
write_steps() {
	local step
	cp -a "$src" "$tmp/orig" || return 1
	for step in $STEPS; do
		$step || { echo "$step"; return 1; }
	done
	cp -a "$src" "$tmp/done" && step_files
}

# new_copy WHAT: the tree copied into $src and every step written, as TAP
# test 1 (WHAT: the steps' name); 1 when a step no longer applies.
new_copy() {
	local failed
	if copy_tree && failed=$(write_steps); then
		echo "ok 1 - $1 written into a copy of the tree"
	else
		echo "not ok 1 - a recipe step no longer applies to the tree: ${failed:-the copy}"
		return 1
	fi
}

# configure_copy: $src configured in $bld at -O0 (a quick build), its
# output in $log.
configure_copy() {
	(cd "$src" && autoreconf -fi) >"$log" 2>&1 && mkdir -p "$bld" &&
		(cd "$bld" && "$src/configure" -q --enable-werror --disable-system-tests CFLAGS='-O0 -g') \
			>>"$log" 2>&1
}

# unbuild FILE...: these (under $bld) and the libraries removed, so the
# next build makes them from what the Makefile lists now: a test binary it
# no longer names would pass as its last build, and an archive keeps a
# member whose source it no longer lists (whether make re-archives then
# depends on what the step before changed).
unbuild() {
	local f
	for f in "$@"; do rm -f "$bld/$f"; done
	rm -f "$bld"/lib*.a
}

# tree_without STEP: into $tmp/alt, the files the steps write (step_files)
# as every step but STEP leaves them (only those: set_tree reads no more,
# and a whole copy of the tree each time cost seconds).
tree_without() {
	local step f have=()
	rm -rf "$tmp/alt" && mkdir "$tmp/alt" || return 1
	while read -r f; do
		[ ! -e "$tmp/orig/$f" ] || have+=("$f")
	done <"$tmp/files"
	sed 's|/[^/]*$||' "$tmp/files" | sort -u | (cd "$tmp/alt" && xargs mkdir -p) &&
		(cd "$tmp/orig" && cp -p --parents "${have[@]}" "$tmp/alt") || return 1
	for step in $STEPS; do
		[ "$step" = "$1" ] || src=$tmp/alt $step || return 1
	done
}

# The files the steps write: what differs between the tree and the copy
# with every step (nothing the build generates).
step_files() {
	(cd "$tmp/done" && find . -type f) | while read -r f; do
		cmp -s "$tmp/done/$f" "$tmp/orig/$f" 2>/dev/null || echo "$f"
	done >"$tmp/files"
}

# set_tree DIR: those files in $src made DIR's (copied, so newer than what
# was built and make sees them; removed where DIR lacks them).
set_tree() {
	local f
	while read -r f; do
		if [ ! -e "$1/$f" ]; then
			rm -f "$src/$f"
		elif ! cmp -s "$1/$f" "$src/$f"; then
			cp "$1/$f" "$src/$f"
		fi
	done <"$tmp/files"
}

# leave_out_each [STEP...]: each step of STEPS (in the order of OMIT_ORDER
# when set) but those named left out in turn, the copy built and verified
# without it; a "# without" line for each that fails, and $unneeded naming
# those that change nothing. $log gets the builds' output.
leave_out_each() {
	local step
	unneeded=
	for step in ${OMIT_ORDER:-$STEPS}; do
		case " $* " in *" $step "*) continue ;; esac
		tree_without "$step" && set_tree "$tmp/alt" || { unneeded="$unneeded $step(set-up)"; continue; }
		echo "=== without $step (at ${SECONDS}s)" >>"$log"
		if why=$(verify); then
			unneeded="$unneeded $step"
		else
			echo "# without $step: $why fails"
		fi
		set_tree "$tmp/done"
	done
}

# ---- "Adding a MIB group", for a throwaway source x serving one scalar

# group_objects ARC X COLUMN SYNTAX: clusterMonX at clusterMonObjects ARC,
# its scalar clusterMonXCOLUMN of SYNTAX, in the MIB (the build makes
# cm-oids.h from it).
group_objects() {
	arc=$1 name=clusterMon$2 col=clusterMon$2$3 syntax=$4 awk '/^END$/ {
		print ENVIRON["name"] " OBJECT IDENTIFIER ::= { clusterMonObjects " ENVIRON["arc"] " }\n"
		print ENVIRON["col"] " OBJECT-TYPE\n    SYNTAX      " ENVIRON["syntax"]
		print "    MAX-ACCESS  read-only\n    STATUS      current"
		print "    DESCRIPTION \"A throwaway source'"'"'s value.\"\n    ::= { " ENVIRON["name"] " 1 }\n" }
		{ print }' "$src/$MIBFILE" >"$tmp/edit" && mv "$tmp/edit" "$src/$MIBFILE"
}

# group_file x X COLUMN FIELD ASN-TYPE SOURCE_X: the group $MIB/x.c serving
# struct x_snapshot's FIELD (sources/x.h's, the one source header it
# includes) as clusterMonXCOLUMN, listed in libs.am.
group_file() {
	cat >"$src/$MIB/$1.c" <<EOF
/* SPDX-License-Identifier: BSD-2-Clause */
/* $1.c - a throwaway group (tests/source/recipelib.sh). */
#include "$GROUP_H"
#include "mib.h"

#include "../sources/$1.h"

static const oid ${1}_oid[] = { CM_OID_clusterMon$2 };

static int get_$4(void *view, struct mib_value *v)
{
	const struct ${1}_snapshot *s = view;

	return s == NULL ? MIB_ABSENT : mib_u64(v, $5, s->$4);
}

static const struct mib_object ${1}_objects[] = {
	{ .arc = CM_ARC_clusterMon$2$3, .get = get_$4 },
};

static const struct mib_group ${1}_group = {
	.name = "clusterMon$2", .base = ${1}_oid, .base_len = OID_LENGTH(${1}_oid),
	.objects = ${1}_objects, .nobjects = 1, .source = $6,
};

int mib_${1}_register(void)
{
	return mib_group_register(&${1}_group);
}
EOF
	in_after libs.am '^AGENT_SOURCES = ' "	$MIB/$1.c \\"
}

# group_register x: mib_x_register declared in mib.h, called in
# mib_register_all()'s chain.
group_register() {
	before_endif "$MIB/mib.h" "int mib_$1_register(void);" &&
		sed -i "s/mib_system_register() != 0 ||/mib_system_register() != 0 || mib_$1_register() != 0 ||/" \
			"$src/$MIB/mib.c" &&
		grep -q "mib_$1_register" "$src/$MIB/mib.c"
}

# scalar_registered NAME: 0 when the agent built in $bld registers the
# scalar NAME (tests/system/oidlayout, its numbers from cm-oids.h).
scalar_registered() {
	local want
	want=$(sed -n "s/^#define CM_OID_$1 \(.*\)\$/\1/p" "$bld/$CM_OIDS" | tr -d ' ' | tr ',' '.')
	[ -n "$want" ] && "$bld/tests/system/oidlayout" 2>>"$log" | grep -qxF "scalar .$want ro"
}
