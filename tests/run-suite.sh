#!/bin/bash
# run-suite.sh - the whole test suite on this machine: installs what is
# missing, builds out of tree with -Werror, runs `make check` (unit tests,
# MIB lint, system tests against a private snmpd), runs it again on an
# ASan+UBSan build (--enable-sanitizers), runs each libFuzzer target for a
# minute, checks `make distcheck` (the tarball builds, installs and passes
# the unit tests: configure --disable-system-tests), and ends with one line
# "N passed, N failed, N skipped".
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
pass=0 fail=0 skip=0

"$top/tests/setup-deps.sh" || { echo "0 passed, 1 failed"; exit 1; }
(cd "$top" && autoreconf -fi >/dev/null 2>&1) || { echo "autoreconf failed"; echo "0 passed, 1 failed"; exit 1; }

# check_in DIR CONFIGURE-ARGS...: build in DIR and run make check there.
check_in() {
	local dir=$1 log n; shift
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
	n() { awk -v k="# $1:" 'index($0, k) == 1 { s += $3 } END { print s + 0 }' "$log"; }
	pass=$((pass + $(n PASS)))
	skip=$((skip + $(n SKIP)))
	fail=$((fail + $(n FAIL) + $(n ERROR) + $(n XPASS)))
	grep -E '^(FAIL|ERROR):' -A40 "$log" | head -n 200 || true
}

# --enable-helper: a missing BPF toolchain fails the build, never quietly
# drops the helper and its tests.
check_in "$top/build" --enable-werror --enable-helper
check_in "$top/build-sanitize" --enable-werror --enable-helper --enable-sanitizers

# Operations consoles (make check-consoles): the console packages are
# installed here, so a failed install is a failure, not a skip.
echo "== make check-consoles"
log="$top/build/test-suite.log"
rm -f "$log"   # make check's, already counted
if "$top/tests/setup-consoles.sh" && (cd "$top/build" && make -s check-consoles 2>&1) |
		grep -E '^(PASS|FAIL|ERROR|SKIP|XPASS|XFAIL):' && [ -s "$log" ]; then
	c() { awk -v k="# $1:" 'index($0, k) == 1 { s += $3 } END { print s + 0 }' "$log"; }
	pass=$((pass + $(c PASS))) skip=$((skip + $(c SKIP)))
	fail=$((fail + $(c FAIL) + $(c ERROR) + $(c XPASS)))
	grep -E '^(FAIL|ERROR):' -A40 "$log" | head -n 200 || true
else
	echo "FAIL: make check-consoles did not run"; fail=$((fail + 1))
fi

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
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
