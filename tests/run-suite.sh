#!/bin/bash
# run-suite.sh - the whole test suite on this machine: installs what is
# missing, builds out of tree with -Werror, runs `make check` (unit tests,
# MIB lint, system tests against a private snmpd), runs it again on an
# ASan+UBSan build (--enable-sanitizers), runs `make check-timing` (load.sh's
# judgements of real time) in both builds, `make check-fleet` (the simulated
# fleet), each libFuzzer target for a minute, `make distcheck` (the tarball
# builds, installs and passes the unit tests: configure --disable-system-tests),
# and `make check-consoles` last; prints "time: PHASE SECONDS" for each phase
# and ends with one line "N passed, N failed, N skipped".
#
# Phases that do not need each other run at once (the two builds' make check,
# the fuzzers, the fleet, distcheck): every system test has its own ports,
# directories, namespaces, bpffs pins and sockets. Each phase logs to
# build-logs/PHASE.out, printed whole when the phase ends. check-timing runs
# with nothing else of ours beside it, and the consoles last: they bring
# gawk, which then replaces Debian's default awk (mawk), and everything
# before them must run with the awk a fresh machine has.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
logs=$top/build-logs
pass=0 fail=0 skip=0 t0=$SECONDS

"$top/tests/setup-deps.sh" || { echo "0 passed, 1 failed"; exit 1; }
(cd "$top" && autoreconf -fi >/dev/null 2>&1) || { echo "autoreconf failed"; echo "0 passed, 1 failed"; exit 1; }
rm -rf "$logs" && mkdir -p "$logs"
times="time: setup $((SECONDS - t0))"

# Inside a phase (a subshell): pass, fail and skip count its verdicts.
# count_log LOG: adds an automake test-suite.log's totals to them.
count_log() {
	n() { awk -v k="# $1:" 'index($0, k) == 1 { s += $3 } END { printf "%d\n", s }' "$2"; }
	pass=$((pass + $(n PASS "$1")))
	skip=$((skip + $(n SKIP "$1")))
	fail=$((fail + $(n FAIL "$1") + $(n ERROR "$1") + $(n XPASS "$1")))
	grep -E '^(FAIL|ERROR):' -A40 "$1" | head -n 200 || true
}

# build DIR CONFIGURE-ARGS...: configure and build in DIR, check programs
# too, so that the make check and check-fleet that run there later
# (some at once) have nothing left to build.
build() {
	local dir=$1; shift
	mkdir -p "$dir"
	if (cd "$dir" && "$top/configure" -q "$@" >/dev/null && make -s -j"$(nproc)" >/dev/null &&
		make -s -j"$(nproc)" check TESTS= TEST_SUITE_LOG=build-suite.log >/dev/null); then
		pass=$((pass + 1)); echo "PASS: build in $dir ($*)"
	else
		fail=$((fail + 1)); echo "FAIL: build in $dir ($*)"
	fi
}

# check_in DIR [TARGET]: make TARGET (check, check-timing, check-fleet,
# check-consoles: the same harness) in DIR with a suite log of its own.
# make check runs CHECK_JOBS tests at once: most of a system test's time is
# waiting for samples, and every test keeps to its own ports, sockets,
# namespaces and directories (they already run beside the other build's).
# The other targets judge real time or load the machine: one at a time.
check_in() {
	local dir=$1 target=${2:-check} log=$1/${2:-check}-suite.log jobs=1
	[ "$target" = check ] && jobs=${CHECK_JOBS:-2}
	rm -f "$log"
	if ! [ -f "$dir/Makefile" ]; then
		echo "FAIL: make $target in $dir: not built"; fail=$((fail + 1)); return
	fi
	(cd "$dir" && make -s -j"$jobs" "$target" TEST_SUITE_LOG="${log##*/}" 2>&1) |
		grep -E '^(PASS|FAIL|ERROR|SKIP|XPASS|XFAIL):'
	if [ -s "$log" ]; then count_log "$log"
	else echo "FAIL: make $target in $dir did not run"; fail=$((fail + 1)); fi
}

fuzzers() {
	local verdict rest
	echo "fuzzers: libFuzzer, ${FUZZ_SECONDS:-60} s each"
	while read -r verdict rest; do
		echo "$verdict $rest"
		case $verdict in
		PASS:) pass=$((pass + 1)) ;;
		SKIP:) skip=$((skip + 1)) ;;
		FAIL:) fail=$((fail + 1)) ;;
		esac
	done < <("$top/tests/fuzz/run-fuzzers.sh" "${FUZZ_SECONDS:-60}" 2>&1 | grep -E '^(PASS|FAIL|SKIP):')
}

# distcheck: in a build directory of its own, so it need not wait for
# check-plain's `make check` in build/ and runs beside its tail.
distcheck() {
	mkdir -p "$top/build-dist"
	if (cd "$top/build-dist" && "$top/configure" -q --enable-werror --enable-helper &&
		make -s distcheck) >"$logs/distcheck.log" 2>&1; then
		echo "PASS: make distcheck"; pass=$((pass + 1))
	else
		echo "FAIL: make distcheck (see build-logs/distcheck.log)"; tail -n 30 "$logs/distcheck.log"
		fail=$((fail + 1))
	fi
}

# consoles_fetch: the console packages downloaded beside the other phases, so
# the last phase only installs them (no verdict: that phase counts the install).
consoles_fetch() { "$top/tests/setup-consoles.sh" --download || echo "consoles-fetch: download failed"; }

# Operations consoles: the console packages are installed here, so a failed
# install is a failure, not a skip.
consoles() {
	if "$top/tests/setup-consoles.sh"; then
		check_in "$top/build" check-consoles
	else
		echo "FAIL: tests/setup-consoles.sh, so make check-consoles did not run"; fail=$((fail + 1))
	fi
}

# The phases: NAME, the phases it waits for, what it runs. --enable-helper:
# a missing BPF toolchain fails the build, never quietly drops the helper and
# its tests. Every phase in "timing" waits for all before it and runs alone;
# consoles wait for everything.
PHASES=(
	"build-plain|-|build $top/build --enable-werror --enable-helper"
	"build-sanitize|-|build $top/build-sanitize --enable-werror --enable-helper --enable-sanitizers"
	"fuzzers|-|fuzzers"
	"consoles-fetch|-|consoles_fetch"
	"check-plain|build-plain|check_in $top/build"
	"check-sanitize|build-sanitize|check_in $top/build-sanitize"
	"fleet|build-plain|check_in $top/build check-fleet"
	"distcheck|check-sanitize|distcheck"
	"timing-plain|*|check_in $top/build check-timing"
	"timing-sanitize|*|check_in $top/build-sanitize check-timing"
	"consoles|*|consoles"
)

declare -A state pid_of   # state: waiting, running, done
for p in "${PHASES[@]}"; do state[${p%%|*}]=waiting; done

# ready I: phase I's prerequisites are done ("*": every phase listed before it).
ready() {
	local i=$1 deps d j
	deps=${PHASES[$i]#*|}; deps=${deps%%|*}
	if [ "$deps" = "*" ]; then
		for ((j = 0; j < i; j++)); do [ "${state[${PHASES[$j]%%|*}]}" = done ] || return 1; done
		return 0
	fi
	[ "$deps" = - ] && return 0
	for d in ${deps//,/ }; do [ "${state[$d]}" = done ] || return 1; done
}

# start I: phase I in the background; its verdicts and counts to build-logs.
start() {
	local i=$1 name=${PHASES[$1]%%|*} body=${PHASES[$1]##*|}
	state[$name]=running
	(
		pass=0 fail=0 skip=0 s=$SECONDS
		echo "== $name"
		$body
		echo "$pass $fail $skip $((SECONDS - s))" >"$logs/$name.counts"
	) >"$logs/$name.out" 2>&1 </dev/null &
	pid_of[$!]=$name
}

# A phase that waits for all before it ("*") starts only when nothing runs.
while :; do
	running=0
	for n in "${state[@]}"; do [ "$n" = running ] && running=$((running + 1)); done
	for i in "${!PHASES[@]}"; do
		name=${PHASES[$i]%%|*} deps=${PHASES[$i]#*|}; deps=${deps%%|*}
		[ "${state[$name]}" = waiting ] && ready "$i" || continue
		[ "$deps" = "*" ] && [ "$running" -gt 0 ] && continue
		start "$i"; running=$((running + 1))
		[ "$deps" = "*" ] && break
	done
	[ "$running" -eq 0 ] && break
	wait -n -p ended
	name=${pid_of[$ended]}
	state[$name]=done
	cat "$logs/$name.out"
	if read -r p f s secs 2>/dev/null <"$logs/$name.counts"; then
		pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
	else
		echo "FAIL: phase $name ended without its counts"; fail=$((fail + 1)) secs=?
	fi
	times="$times
time: $name $secs"
done

echo "$times"
echo "time: total $((SECONDS - t0))"
# The failures again, last: a reader who sees only the end of a long log
# still learns which checks failed.
grep -h -E '^(FAIL|ERROR):' "$logs"/*.out 2>/dev/null | awk '!seen[$0]++' | head -n 30 |
	sed 's/^/failed: /'
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
