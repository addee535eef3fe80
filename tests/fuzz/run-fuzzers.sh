#!/bin/bash
# run-fuzzers.sh [SECONDS] - builds each libFuzzer target with clang
# (-fsanitize=fuzzer,address,undefined) and runs it for SECONDS (default 60)
# from the fixture seeds; prints one "PASS:"/"FAIL:"/"SKIP:" line per target
# (SKIP only outside CI: with CI=true a missing libFuzzer is a FAIL).
# FUZZ_TARGETS="set config" runs only those targets.
# A finding leaves its crash file in $FUZZ_OUT (default: a temp dir, kept).
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
secs=${1:-60}
out=${FUZZ_OUT:-$(mktemp -d /tmp/clustermon-fuzz.XXXXXX)}
mkdir -p "$out"
CC=${FUZZ_CC:-clang}
# The MIB's numbers (mib/cm-oids.h), made from the MIB as the build makes them.
mkdir -p "$out/gen/mib"
awk -f "$top/mibs/gen-oids.awk" "$top/mibs/CLUSTER-MON-MIB.txt" >"$out/gen/mib/cm-oids.h" || {
	echo "FAIL: fuzzers: mibs/gen-oids.awk could not make cm-oids.h"
	exit 1
}
flags="-g -O1 -std=c11 -D_GNU_SOURCE -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -I$top/subagent -I$out/gen -I$top -I$top/kprobe-helper"

if ! printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n){(void)d;(void)n;return 0;}\n' |
	$CC $flags -x c - -o "$out/probe" >/dev/null 2>&1; then
	# README promises a minute of each target: in CI (CI=true) a toolchain
	# that cannot link libFuzzer is a set-up failure, not a skip.
	if [ "${CI:-}" = true ]; then
		echo "FAIL: fuzzers: $CC cannot link libFuzzer (Debian: libclang-rt-14-dev, which tests/setup-deps.sh installs)"
		exit 1
	fi
	echo "SKIP: fuzzers: $CC cannot link libFuzzer (Debian: libclang-rt-14-dev)"
	exit 0
fi

# The agent's libraries, built with clang from the lists the build uses
# (libs.am), with coverage for libFuzzer but without its main.
snmp_flags=$(net-snmp-config --cflags 2>/dev/null | tr ' ' '\n' | grep '^-[ID]' | tr '\n' ' ')
lib_flags="${flags/-fsanitize=fuzzer,/-fsanitize=fuzzer-no-link,} $snmp_flags"
list() { # VAR: the C files of that list in libs.am, from the top
	printf 'print:\n\t@echo $(%s)\n' "$1" |
		make -s --no-print-directory -f "$top/libs.am" -f - print | tr ' ' '\n' | grep '\.c$'
}
build_lib() { # NAME VAR [FLAGS...]: $out/lib/libNAME.a
	local name=$1 var=$2 f o objs=()
	shift 2
	mkdir -p "$out/lib/$name"
	for f in $(list "$var"); do
		o="$out/lib/$name/$(echo "${f%.c}" | tr / _).o"
		# shellcheck disable=SC2086
		$CC $lib_flags "$@" -c "$top/$f" -o "$o" || return 1
		objs+=("$o")
	done
	[ ${#objs[@]} -gt 0 ] && ar rcs "$out/lib/lib$name.a" "${objs[@]}"
}
if ! { build_lib common COMMON_SOURCES && build_lib core CORE_SOURCES && build_lib image IMAGE_SOURCES &&
	build_lib probe PROBE_SOURCES &&
	build_lib collect COLLECT_SOURCES && build_lib agent AGENT_SOURCES \
		-DCLUSTERMON_VERSION='"fuzz"'; } >"$out/lib.log" 2>&1; then
	echo "FAIL: fuzzers: the agent's libraries do not build with $CC (see $out/lib.log)"
	exit 1
fi
libs="$out/lib/libagent.a $out/lib/libcollect.a $out/lib/libprobe.a $out/lib/libimage.a $out/lib/libcore.a $out/lib/libcommon.a"
agent_libs="$snmp_flags -lnetsnmpagent -lnetsnmp -lpcap -lpthread"

# target SOURCES...: the fixture seeds of each target, as in its fuzz_seeds[]
declare -A sources seeds
sources[parsers]="$here/fuzz_parsers.c $libs"
seeds[parsers]="proc-basic/proc/stat proc-basic/proc/meminfo proc-basic/proc/vmstat proc-basic/proc/pressure/memory proc-procs/proc/1/stat proc-procs/proc/1/status proc-procs/proc/1/schedstat cgroup-v2/sys/fs/cgroup/system.slice/ssh.service/io.stat cgroup-v1/proc/self/mounts workload/paths"
sources[netlink]="$here/fuzz_netlink.c $libs"
seeds[netlink]="inetdiag/ipv4-established.bin inetdiag/ipv6-established.bin"

# The image clustermon.so reads inside snmpd.
sources[image]="$here/fuzz_image.c $libs"
seeds[image]="image/seed.bin image/demand.bin"

sources[wire]="$here/fuzz_wire.c $libs"
seeds[wire]="wire/requests.txt wire/reply.txt wire/sched_switch.format wire/sys_enter_write.format wire/traces.txt wire/procs.txt wire/dists.txt"

# The helper's CTF writer: a trace session's formats, classes and records.
sources[ctf]="$here/fuzz_ctf.c $libs"
seeds[ctf]="ctf/sched_switch.bin ctf/raw.bin"

sources[config]="$here/fuzz_config.c $libs $agent_libs"
seeds[config]="config/all.conf"

# The quotes around FUZZ_TOP are meant literally: they make the macro a C string.
# shellcheck disable=SC2089
sources[set]="$here/fuzz_set.c -DFUZZ_TOP=\"$top\" $libs $agent_libs"
seeds[set]="set/thresholds.bin set/history.bin set/probes.bin set/scalars.bin set/dists.bin set/traces.bin set/all.bin"

rc=0
for t in ${FUZZ_TARGETS:-parsers netlink wire config set image ctf}; do
	mkdir -p "$out/$t/corpus"
	for s in ${seeds[$t]}; do cp "$top/tests/fixtures/$s" "$out/$t/corpus/$(echo "$s" | tr / _)"; done
	# shellcheck disable=SC2086,SC2090
	if ! $CC $flags ${sources[$t]} -o "$out/$t/fuzz_$t" 2>"$out/$t/build.log"; then
		echo "FAIL: fuzz_$t does not build (see $out/$t/build.log)"
		rc=1
		continue
	fi
	(cd "$out/$t" && ./"fuzz_$t" -max_total_time="$secs" -print_final_stats=1 corpus \
		>"$out/$t/run.log" 2>&1)
	runs=$(awk '/stat::number_of_executed_units/ { print $2 }' "$out/$t/run.log")
	if [ $? -eq 0 ] && ! ls "$out/$t"/crash-* "$out/$t"/leak-* "$out/$t"/timeout-* >/dev/null 2>&1 &&
		grep -q "Done" "$out/$t/run.log"; then
		echo "PASS: fuzz_$t: ${secs} s, ${runs:-?} inputs, no finding"
	else
		echo "FAIL: fuzz_$t: see $out/$t/run.log"
		tail -n 20 "$out/$t/run.log"
		rc=1
	fi
done
[ $rc -eq 0 ] && [ -z "${FUZZ_OUT:-}" ] && rm -rf "$out"
exit $rc
