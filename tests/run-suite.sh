#!/bin/bash
# run-suite.sh - the whole test suite on this machine: installs what is
# missing, builds out of tree with -Werror, runs `make check` (unit tests,
# MIB lint, system tests against a private snmpd), and ends with one line
# "N passed, N failed, N skipped".
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
build="$top/build"
log="$build/suite.log"

"$top/tests/setup-deps.sh" || { echo "0 passed, 1 failed"; exit 1; }
mkdir -p "$build"
(
	set -e
	cd "$top" && autoreconf -fi >/dev/null 2>&1
	cd "$build" && "$top/configure" -q --enable-werror >/dev/null
	make -s -j"$(nproc)" >/dev/null
) || { echo "build failed"; echo "0 passed, 1 failed"; exit 1; }

cd "$build" && make -s check VERBOSE=1 2>&1 | tee "$log" | grep -E '^(PASS|FAIL|ERROR|SKIP|XPASS|XFAIL):'
sum() { awk -v k="# $1:" 'index($0, k) == 1 { n += $3 } END { print n + 0 }' "$build/test-suite.log"; }
pass=$(sum PASS); skip=$(sum SKIP); fail=$(( $(sum FAIL) + $(sum ERROR) + $(sum XPASS) ))
if [ ! -s "$build/test-suite.log" ]; then
	fail=$((fail + 1))
fi
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
