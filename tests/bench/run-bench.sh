#!/bin/bash
# run-bench.sh - the benchmarks of tests/bench, each printing its ratio
# against a baseline measured in the same run. Not part of `make check`.
# Run from the build directory after `make bench-programs` (or `make bench`).
. "$(dirname "$0")/../system/lib.sh"

echo "== sample cost (kept-open pread vs open+read+close), unpinned"
"$top_builddir/tests/bench/bench_sample"
echo "== sample cost, pinned to CPU 0"
taskset -c 0 "$top_builddir/tests/bench/bench_sample"

start_master >/dev/null || bail "snmpd did not start"
start_agent >/dev/null || bail "clustermond did not register"
echo "== GET latency through the master, unpinned (client, snmpd, clustermond float)"
"$top_builddir/tests/bench/bench_get" "$TARGET" 2000
echo "== GET latency, all pinned to CPU 0 (no cross-CPU wake-ups)"
taskset -pc 0 "$MASTER_PID" >/dev/null
taskset -apc 0 "$AGENT_PID" >/dev/null
taskset -c 0 "$top_builddir/tests/bench/bench_get" "$TARGET" 2000
