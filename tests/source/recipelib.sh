# recipelib.sh - sourced by recipe.sh and recipe-bpf.sh, which do
# docs/architecture.md's recipes in a copy of the tree: copying the tree,
# the edits a step makes (text in at a pattern, found whatever the line
# numbers are), and leaving each step out in turn. Each script sets $tmp
# (a private directory), $src (the copy), STEPS (its step functions, each
# writing into $src) and verify (0 when the copy with its steps works;
# else it prints what failed).
. "$(dirname "${BASH_SOURCE[0]}")/files.sh"

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

# tree_without STEP: into $tmp/alt, the tree with every step but STEP.
tree_without() {
	local step
	rm -rf "$tmp/alt" && cp -a "$tmp/orig" "$tmp/alt" || return 1
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

# leave_out_each [STEP...]: each step of STEPS but those named left out in
# turn, the copy built and verified without it; a "# without" line for
# each that fails, and $unneeded naming those that change nothing. $log
# gets the builds' output.
leave_out_each() {
	local step
	unneeded=
	for step in $STEPS; do
		case " $* " in *" $step "*) continue ;; esac
		tree_without "$step" && set_tree "$tmp/alt" || { unneeded="$unneeded $step(set-up)"; continue; }
		echo "=== without $step" >>"$log"
		if why=$(verify); then
			unneeded="$unneeded $step"
		else
			echo "# without $step: $why fails"
		fi
		set_tree "$tmp/done"
	done
}
