#!/bin/bash
# circles.sh - no two translation units call into each other, directly or
# round a longer loop. Layers (include-arrows.sh) are about headers; this is
# about what the linker sees: a file that calls a function of a second file
# which calls back into the first has no lower side, so neither can be
# understood, tested or moved alone. Read from the built objects' symbols
# (nm): an arrow A -> B is a symbol A's object leaves undefined and B's
# object defines. A file is named by its object's directory and the source
# name the compiler recorded (its FILE symbol), so a file compiled twice, for
# two binaries, is one file. Objects under tests/ are left out (a test may
# stand in for what it tests), and so are the BPF objects (never linked). A
# symbol that several files define (main, a name two binaries each have) is
# resolved to the definer whose path shares the most with the caller's. The
# script first checks itself on made-up objects (test 1).
. "$(dirname "$0")/files.sh"

build=${top_builddir:-$top}

# "FILE D|U SYMBOL" for every global symbol of the objects below $1.
symbols() {
	local o file
	(cd "$1" && find . \( -name .git -o -name tests \) -prune -o -type f -name '*.o' \
		! -name '*.bpf.o' -print) | sed 's|^\./||' | sort | while read -r o; do
		file=$(readelf -sW "$1/$o" | awk '$4 == "FILE" { print $8; exit }')
		[ -n "$file" ] || file=$(basename "$o" .o).c
		case $o in */*) file="$(dirname "$o")/$file" ;; esac
		nm -P "$1/$o" | awk -v f="$file" '
			$2 ~ /^[TDBRVWGSCi]$/ { print f, "D", $1 }
			$2 ~ /^[Uw]$/ { print f, "U", $1 }'
	done | sort -u
}

# "FROM TO SYMBOL" for each symbol FROM uses and TO defines.
arrows() {
	awk '
	function common(a, b,   i) {
		for (i = 1; i <= length(a) && substr(a, i, 1) == substr(b, i, 1); i++);
		return i
	}
	$2 == "D" { nd[$3]++; def[$3, nd[$3]] = $1; next }
	{ use[++nu] = $1; sym[nu] = $3 }
	END {
		for (i = 1; i <= nu; i++) {
			s = sym[i]; best = ""; bl = -1
			for (k = 1; k <= nd[s]; k++) {
				l = common(use[i], def[s, k])
				if (l > bl) { bl = l; best = def[s, k] }
			}
			if (best != "" && best != use[i]) print use[i], best, s
		}
	}' | sort -u
}

# The loops: each set of files that reach one another, one line a set,
# then "#   A -> B: SYMBOLS" for the arrows inside it.
loops() {
	awk '
	{ k = $1 SUBSEP $2; if (!(k in syms)) { n[$1]++; to[$1, n[$1]] = $2 }
	  syms[k] = syms[k] " " $3; files[$1] = files[$2] = 1 }
	END {
		for (f in files) {
			delete seen; qn = 0; q[++qn] = f
			for (h = 1; h <= qn; h++)
				for (i = 1; i <= n[q[h]]; i++)
					if (!((t = to[q[h], i]) in seen)) { seen[t] = 1; q[++qn] = t; reach[f, t] = 1 }
		}
		for (f in files) {
			if (f in done || !((f, f) in reach)) continue
			set = f; done[f] = 1
			for (g in files)
				if (g != f && ((f, g) in reach) && ((g, f) in reach)) { set = set " " g; done[g] = 1 }
			print "loop: " set
			m = split(set, members, " ")
			for (a = 1; a <= m; a++)
				for (b = 1; b <= m; b++)
					if ((members[a], members[b]) in syms)
						print "#   " members[a] " -> " members[b] ":" syms[members[a], members[b]]
		}
	}'
}

self_test() { # a pair calling each other and a loop of three, not a chain
	local d out cc=${CC:-cc}
	d=$(mktemp -d) || return 1
	mkdir -p "$d/x"
	printf 'int b1(void);\nint a1(void) { return b1(); }\nint a2(void) { return 2; }\n' >"$d/x/a.c"
	printf 'int a2(void);\nint b1(void) { return a2(); }\n' >"$d/x/b.c"
	printf 'int a1(void);\nint c1(void) { return a1(); }\n' >"$d/x/c.c"
	printf 'int q1(void);\nint p1(void) { return q1(); }\n' >"$d/x/p.c"
	printf 'int r1(void);\nint q1(void) { return r1(); }\n' >"$d/x/q.c"
	printf 'int p1(void);\nint r1(void) { return p1(); }\n' >"$d/x/r.c"
	for f in a b c p q r; do
		$cc -c -o "$d/x/$f.o" "$d/x/$f.c" || { rm -rf "$d"; return 1; }
	done
	out=$(symbols "$d" | arrows | loops)
	rm -rf "$d"
	[ "$(printf '%s\n' "$out" | grep -c '^loop: ')" = 2 ] &&
		printf '%s\n' "$out" | grep -qxE 'loop: x/(a[.]c x/b[.]c|b[.]c x/a[.]c)' &&
		printf '%s\n' "$out" | grep -qxF '#   x/a.c -> x/b.c: b1' &&
		printf '%s\n' "$out" | grep -qxF '#   x/b.c -> x/a.c: a2' &&
		printf '%s\n' "$out" | grep -qxF '#   x/r.c -> x/p.c: p1' &&
		! printf '%s\n' "$out" | grep -q 'c[.]c'
}

echo "1..3"
if self_test; then
	echo "ok 1 - made-up objects: a pair calling each other and a loop of three are reported, a chain is not"
else
	echo "not ok 1 - the check missed a made-up pair or loop, or reported a chain"
fi
all=$(symbols "$build")
nfiles=$(printf '%s\n' "$all" | awk '{ print $1 }' | sort -u | grep -c .)
if [ "$nfiles" -gt 100 ]; then
	echo "ok 2 - the symbols of $nfiles built files read (in $build)"
else
	echo "not ok 2 - only $nfiles built files found in $build (build first)"
fi
found=$(printf '%s\n' "$all" | arrows | loops)
if [ -z "$found" ]; then
	echo "ok 3 - no two files call into each other, directly or round a loop"
else
	echo "not ok 3 - files that call into each other:"
	printf '%s\n' "$found" | sed 's/^loop: /#  /'
fi
