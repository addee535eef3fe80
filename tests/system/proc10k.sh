#!/bin/bash
# proc10k.sh - the process table at 10,000 processes with clustermond under
# `ulimit -n 4096` (issue 23), fed by clustermon-kprobe and by the scanner
# alone: the table covers every process, clustermond's open fds stay bounded
# (the figure is printed), and a 4-thread process started afterwards has its
# row, its CpuNs growing as its threads' schedstat summed (over 5 s: the
# scanner's samples at 10,000 processes are long).
#
# How soon the new row comes is by design independent of the number of
# processes (issue 35): fed by the helper, a sample takes the processes that
# ran from its rings (about a millisecond); the scanner tries the pids the
# kernel handed out since its last look (sources/procscanner.c, procscan_look_for_new) at
# most every 100 ms during its pass, instead of waiting for the pass. Here
# (`make check`) the row must come within NEW_MS=10000 ms, a bound no load
# seen decides (the worst measured: 1,520 ms fed by the helper and 1,501 ms
# by the scanner, at a load average of 40 on 2 vCPUs, where the helper-fed
# sample took 1 ms: the wait is the machine's, snmpget's and the spinner's
# start). The one-second judgement runs in `make check-timing`
# (tests/system/proc10k-timing.sh sets NEW_MS=1000).
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || skip_all "needs root (BPF programs, 10,000 processes)"
need_helper
# Whether a new process has its row within a second is a judgement of time:
# under ASan a scanner sample over 10,000 processes takes 1.3-1.4 s.
asan_build && skip_all "timing at 10,000 processes: the plain build runs this test"
IDLE=${IDLE:-10000} NEW_MS=${NEW_MS:-10000}
plan 10
PT="$clusterMonProcEntry"
SPINNERS="$top_builddir/tests/system/spinners"

start_idlers "$IDLE" || bail "the $IDLE idle processes did not start"

ulimit -n 4096
procs() { find /proc -maxdepth 1 -name '[0-9]*' | wc -l; }
all_fds() { find "/proc/$AGENT_PID/fd" -mindepth 1 | wc -l; }
count_covers() { [ "$(get "$clusterMonProcCount.0")" -ge "$IDLE" ]; }

# one MODE: the checks with clustermond fed by the helper or the scanner.
one() {
	local socket=$T/no-helper.sock n p fds spin t0 ms d lo hi
	[ "$1" = helper ] && socket=$HELPER_SOCK
	printf 'helperSocket %s\nsampleInterval proc 100\n' "$socket" >"$T/clustermond.conf"
	AGENT_WAIT=60 start_agent -c "$T/clustermond.conf" || bail "clustermond did not register"
	wait_for 60 count_covers
	n=$(get "$clusterMonProcCount.0") p=$(procs)
	check "$1: clusterMonProcCount $n covers the $IDLE idle processes ($p in /proc)" \
		test "$n" -ge "$IDLE" -a "$n" -ge $(( p * 98 / 100 ))
	is "$(get "$CM.2.1.1.8.3")" "\"$1\"" "$1: clusterMonSourceMethod.proc"
	fds=$(all_fds)
	diag "$1: clustermond holds $fds fds with $n processes in its table (ulimit -n $(ulimit -n))"
	check "$1: its fds stay bounded ($fds < 1100)" test "$fds" -lt 1100

	"$SPINNERS" 4 30 &
	spin=$! t0=$(date +%s%N)
	wait_for $(( NEW_MS / 1000 + 2 )) get "$PT.6.$spin"
	ms=$(( ($(date +%s%N) - t0) / 1000000 ))
	check "$1: a 4-thread process started afterwards has its CpuNs row within $NEW_MS ms ($ms ms)" \
		test "$ms" -le "$NEW_MS"
	# Over the times the two served samples can have been taken (lib.sh
	# cpu_growth): the scanner reads every one of the 10,000 processes a
	# sample, about 150-250 ms on 2 CPUs shared with the 4 spinners (more
	# under ASan), which widens the kernel's bracket, not the verdict.
	sleep 0.5
	read -r d lo hi _ < <(cpu_growth "$PT.6.$spin" "$spin" 5)
	diag "$1: the last proc sample took $(get "$CM.2.1.1.4.3") us"
	check "$1: its CpuNs grows as its threads' schedstat summed within 15% ($d ns; the kernel's $lo..$hi)" \
		within 150 "$d" "$lo" "$hi"
	kill "$spin" 2>/dev/null; wait "$spin" 2>/dev/null
	stop_agent
}

start_master || bail "snmpd did not start"
start_helper || bail "clustermon-kprobe did not start: $(cat "$T/kprobe.log")"
one helper
one scanner
kill "$idlers"; wait "$idlers" 2>/dev/null
finish
