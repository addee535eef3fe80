#!/bin/bash
# run-suite.sh - the whole test suite on this machine: installs what is
# missing, builds out of tree with -Werror, runs `make check` (unit tests,
# MIB lint, system tests against a private snmpd), runs it again on an
# ASan+UBSan build (--enable-sanitizers), runs `make check-timing` (load.sh's
# judgements of real time) in both builds, `make check-fleet`, runs each libFuzzer target for a
# minute, checks `make distcheck` (the tarball builds, installs and passes
# the unit tests: configure --disable-system-tests), runs `make
# check-consoles` last, and ends with one line "N passed, N failed, N skipped".
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
pass=0 fail=0 skip=0

"$top/tests/setup-deps.sh" || { echo "0 passed, 1 failed"; exit 1; }
(cd "$top" && autoreconf -fi >/dev/null 2>&1) || { echo "autoreconf failed"; echo "0 passed, 1 failed"; exit 1; }

# count_log LOG: adds an automake test-suite.log's totals to ours.
count_log() {
	n() { awk -v k="# $1:" 'index($0, k) == 1 { s += $3 } END { printf "%d\n", s }' "$2"; }
	pass=$((pass + $(n PASS "$1")))
	skip=$((skip + $(n SKIP "$1")))
	fail=$((fail + $(n FAIL "$1") + $(n ERROR "$1") + $(n XPASS "$1")))
	grep -E '^(FAIL|ERROR):' -A40 "$1" | head -n 200 || true
}

# check_in DIR CONFIGURE-ARGS...: build in DIR and run make check there.
check_in() {
	local dir=$1 log; shift
	echo "== make check in $dir ($*)"
	mkdir -p "$dir"
	if ! (cd "$dir" && "$top/configure" -q "$@" >/dev/null && make -s -j"$(nproc)" >/dev/null); then
		echo "FAIL: build in $dir"
		fail=$((fail + 1))
		return
	fi
	(cd "$dir" && make -s check 2>&1) | grep -E '^(PASS|FAIL|ERROR|SKIP|XPASS|XFAIL):'
	log="$dir/test-suite.log"
	if [ ! -s "$log" ]; then fail=$((fail + 1)); return; fi
	count_log "$log"
}

# extra_check DIR TARGET: tests kept out of make check (check-timing,
# check-consoles) through the same harness; their verdicts count the same.
extra_check() {
	local dir=$1 target=$2 log=$1/test-suite.log
	echo "== make $target in $dir"
	rm -f "$log"   # make check's, already counted
	if (cd "$dir" && make -s "$target" 2>&1) |
			grep -E '^(PASS|FAIL|ERROR|SKIP|XPASS|XFAIL):' && [ -s "$log" ]; then
		count_log "$log"
	else
		echo "FAIL: make $target in $dir did not run"; fail=$((fail + 1))
	fi
}

# --enable-helper: a missing BPF toolchain fails the build, never quietly
# drops the helper and its tests.
check_in "$top/build" --enable-werror --enable-helper
check_in "$top/build-sanitize" --enable-werror --enable-helper --enable-sanitizers

# Real-time judgements (make check-timing: load.sh), in both builds, after
# their make check so nothing else of ours runs beside them.
extra_check "$top/build" check-timing
extra_check "$top/build-sanitize" check-timing

# The simulated fleet (tests/system/fleet.sh), counted like the others.
extra_check "$top/build" check-fleet

echo "== fuzzers (libFuzzer, ${FUZZ_SECONDS:-60} s each)"
while read -r verdict rest; do
	echo "$verdict $rest"
	case $verdict in
	PASS:) pass=$((pass + 1)) ;;
	SKIP:) skip=$((skip + 1)) ;;
	FAIL:) fail=$((fail + 1)) ;;
	esac
done < <("$top/tests/fuzz/run-fuzzers.sh" "${FUZZ_SECONDS:-60}" 2>&1 | grep -E '^(PASS|FAIL|SKIP):')

echo "== make distcheck"
if (cd "$top/build" && make -s distcheck >"$top/build/distcheck.log" 2>&1); then
	echo "PASS: make distcheck"; pass=$((pass + 1))
else
	echo "FAIL: make distcheck (see build/distcheck.log)"; tail -n 30 "$top/build/distcheck.log"
	fail=$((fail + 1))
fi

# Operations consoles (make check-consoles): the console packages are
# installed here, so a failed install is a failure, not a skip. Last: they
# bring gawk, which then replaces Debian's default awk (mawk), and
# everything before them must run with the awk a fresh machine has.
if "$top/tests/setup-consoles.sh"; then
	extra_check "$top/build" check-consoles
else
	echo "FAIL: tests/setup-consoles.sh, so make check-consoles did not run"; fail=$((fail + 1))
fi

echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
