#!/bin/bash
# flake-hunt.sh [-k K] [--root DIR] [--rev REV] [TEST...] - runs each system
# test K times (default 10) in a fresh minbase Debian 12 root, as CI does,
# and prints a table: test, runs, passes, seconds per run. A test below K/K
# is a flake to fix: a verdict must not depend on luck.
#   --root DIR  a root tests/fresh-root.sh --keep left (set-up already done
#               there is reused); without it, a new root is made and kept
#   --rev REV   the commit to test (default HEAD); the root's clone is moved
#               to it and rebuilt
#   TEST        tests/system/NAME.sh or NAME (default: every system test but
#               the consoles', whose set-up brings gawk into the root)
# Each round runs every test once, one after the other, through `make check
# TESTS=...` (the harness CI uses); a failing run's log is kept under
# build/hunt/ in the root. Run as root (see tests/fresh-root.sh).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
usage() { echo "usage: tests/flake-hunt.sh [-k K] [--root DIR] [--rev REV] [TEST...]"; }

# --inside K TEST...: the part that runs in the root's clone.
if [ "${1:-}" = --inside ]; then
	k=$2; shift 2
	tests/setup-deps.sh >/dev/null || { echo "flake-hunt: tests/setup-deps.sh failed"; exit 1; }
	autoreconf -fi >/dev/null 2>&1 && mkdir -p build && cd build &&
		{ [ -f Makefile ] || ../configure -q --enable-werror --enable-helper; } &&
		make -s -j"$(nproc)" >/dev/null && make -s -j"$(nproc)" check TESTS= TEST_SUITE_LOG=hunt-build.log >/dev/null ||
		{ echo "flake-hunt: the build failed"; exit 1; }
	mkdir -p hunt
	declare -A runs passes secs
	for r in $(seq 1 "$k"); do
		for t in "$@"; do
			s=$SECONDS
			make -s check TESTS="$t" TEST_SUITE_LOG=hunt-suite.log >/dev/null 2>&1
			n=$(basename "$t" .sh)
			runs[$n]=$(( ${runs[$n]:-0} + 1 )) secs[$n]=$(( ${secs[$n]:-0} + SECONDS - s ))
			if grep -q '^:global-test-result: PASS' "$t.trs" 2>/dev/null; then
				passes[$n]=$(( ${passes[$n]:-0} + 1 ))
			else
				passes[$n]=${passes[$n]:-0}
				cp "$t.log" "hunt/$n.round$r.log" 2>/dev/null
				echo "flake-hunt: round $r: $n failed (build/hunt/$n.round$r.log)"
			fi
		done
		echo "flake-hunt: round $r of $k done at $(date -u +%H:%M:%S)"
	done
	printf '%-22s %5s %7s %9s\n' test runs passes "s/run"
	for t in "$@"; do
		n=$(basename "$t" .sh)
		printf '%-22s %5d %7d %9d\n' "$n" "${runs[$n]}" "${passes[$n]}" $(( secs[$n] / runs[$n] ))
	done
	exit 0
fi

k=10 root= rev=HEAD tests=()
while [ $# -gt 0 ]; do
	case $1 in
	-k) k=${2:?-k needs a number}; shift ;;
	--root) root=${2:?--root needs a directory}; shift ;;
	--rev) rev=${2:?--rev needs a commit}; shift ;;
	-h|--help) usage; exit 0 ;;
	-*) usage >&2; exit 2 ;;
	*) t=${1#tests/system/}; tests+=("tests/system/${t%.sh}.sh") ;;
	esac
	shift
done
case $k in ''|*[!0-9]*) usage >&2; exit 2 ;; esac
if [ ${#tests[@]} -eq 0 ]; then
	for t in "$top"/tests/system/*.sh; do
		case ${t##*/} in lib.sh|*-lib.sh|consoles-*) continue ;; esac
		tests+=("tests/system/${t##*/}")
	done
fi
for t in "${tests[@]}"; do [ -f "$top/$t" ] || { echo "flake-hunt: no $t" >&2; exit 2; }; done
commit=$(git -C "$top" rev-parse --verify "$rev^{commit}") || exit 2

if [ -z "$root" ]; then
	# A new root, kept: fresh-root.sh prints where.
	"$top/tests/fresh-root.sh" --keep --rev "$commit" -- true 2>"$top/.flake-hunt.err"
	root=$(sed -n 's/.*--root \([^ ]*\) -- bash.*/\1/p' "$top/.flake-hunt.err")
	rm -f "$top/.flake-hunt.err"
	[ -d "$root/root/clustermon" ] || { echo "flake-hunt: tests/fresh-root.sh --keep made no root" >&2; exit 1; }
fi
clone=$root/root/clustermon
[ -d "$clone/.git" ] || { echo "flake-hunt: $root is not a root tests/fresh-root.sh --keep left" >&2; exit 2; }
git -C "$top" push -q --force "$clone" "$commit:refs/heads/flake-hunt" &&
	git -C "$clone" checkout -q --detach "$commit" || { echo "flake-hunt: cannot move $clone to $commit" >&2; exit 1; }
echo "flake-hunt: $k rounds of ${#tests[@]} tests in $root at $(git -C "$top" log -1 --format='%h %s' "$commit")"
# The tests' own set-up, taken from the commit under test.
exec "$top/tests/fresh-root.sh" --root "$root" -- "exec tests/flake-hunt.sh --inside $k ${tests[*]}"
