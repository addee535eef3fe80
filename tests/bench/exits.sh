#!/bin/bash
# exits.sh - what the exit log costs (issue 43): clustermond and
# clustermon-kprobe CPU while 1,000 processes a second start and exit
# (tests/system/exiters, 2-20 ms each) against the same agent with no churn
# and no poller, in the same invocation (target: the churn adds < 0.5% of a
# core). Per thread, from schedstat; modes interleaved, medians printed.
#
# Set up as installed: the image published and clustermon.so loaded in
# snmpd, the exit log at its defaults. Two pollers, each every 5 s:
# - churn: a log poller in nlmLogTable's way (RFC 3014), the way the MIB
#   says to read the table and tests/system/exits.sh reads it: it remembers
#   the last index it read and GETBULKs (50 rows a request) from there, so
#   each entry is read at most once (the default cap of 2,000 keeps fewer
#   than 5 s of 1,000 exits a second). This is the figure against the target.
# - rewalk: the whole Pid column walked with GETNEXT at every poll (what
#   clustermonctl `exits` did before it read from the newest index): it
#   re-reads up to 2,000 rows each time. Printed for comparison.
# snmpd's CPU is printed apart: what it serves from the image is the
# reader's cost, not the exits'. So is the kernel's: the helper's BPF
# programs run in the exiting processes, not in the helper, so their time
# (bpf_stats, enabled for the run) is not in the agent's figure.
. "$(dirname "$0")/../system/lib.sh"
image_on_tmpfs || bail "cannot mount a tmpfs for the image (as /run is)"
[ "$(id -u)" -eq 0 ] || bail "needs root (BPF programs)"
[ -x "$KPROBE_HELPER" ] || bail "clustermon-kprobe is not built"
[ -f "$MODULE" ] || bail "dlmod/clustermon.so is not built"
EXITERS="$top_builddir/tests/system/exiters"
[ -x "$EXITERS" ] || bail "tests/system/exiters is not built"
RATE=${RATE:-1000} SECONDS_EACH=${SECONDS_EACH:-20} RUNS=${RUNS:-2}
MODES=${MODES:-"quiet churn rewalk"}
. "$(dirname "$0")/threads.sh"
pct() { # thousandths of a percent, signed
	local n=$1 s=
	[ "$n" -lt 0 ] && n=$((-n)) s=-
	printf '%s%d.%03d%%' "$s" $((n / 1000)) $((n % 1000))
}

# bpf_stats for the run, as it was after (it costs every BPF program on
# the machine a clock read or two while on).
STATS_WAS=$(sysctl -n kernel.bpf_stats_enabled 2>/dev/null || echo 0)
sysctl -q -w kernel.bpf_stats_enabled=1 2>/dev/null || STATS_WAS=
trap '[ -n "$STATS_WAS" ] && sysctl -q -w kernel.bpf_stats_enabled="$STATS_WAS"; cleanup' EXIT

add_module
start_master >/dev/null || bail "snmpd did not start"
start_helper >/dev/null || bail "clustermon-kprobe did not start"
printf 'helperSocket %s\nsnapshotFile %s\n' "$HELPER_SOCK" "$IMAGE" >"$T/bench.conf"
AGENT_WAIT=60 start_agent -c "$T/bench.conf" >/dev/null || bail "clustermond did not register"
sleep 5

# The helper's programs by id (from its fds: other helpers run on the
# machine), and "NAME RUN_NS" for each of them.
helper_progs() {
	grep -h '^prog_id:' /proc/"$HELPER_PID"/fdinfo/* 2>/dev/null | awk '{ print $2 }' | sort -un
}
bpf_ns() {
	local id
	for id in $PROGS; do
		bpftool prog show id "$id" 2>/dev/null |
			awk -v id="$id" '{ for (i = 1; i < NF; i++) if ($i == "name") n = $(i + 1);
				else if ($i == "run_time_ns") t = $(i + 1) }
				END { if (n != "") printf "%s %s\n", n, t + 0 }'
	done
}
PROGS=$(helper_progs)
[ -n "$PROGS" ] || echo "(no BPF programs found among clustermon-kprobe's descriptors: no kernel figure)"

PID_COL=$clusterMonProcExitPid
# One poll of the log from the last index read ($T/last), 50 rows a
# request, until the Pid column ends.
poll_log() {
	local last out
	last=$(cat "$T/last" 2>/dev/null || echo 0)
	while :; do
		out=$(snmpbulkget -v2c -c public -t 2 -r 1 -On -Oq -Cr50 "$TARGET" "$PID_COL.$last" 2>/dev/null |
			awk -v col="$PID_COL." 'index($1, col) == 1 { print substr($1, length(col) + 1) }')
		[ -n "$out" ] || break
		last=$(tail -n 1 <<<"$out")
		echo "$out" | wc -l >>"$T/read"
		[ "$(wc -l <<<"$out")" -ge 50 ] && [ ! -e "$T/stop" ] || break
	done
	echo "$last" >"$T/last"
}
# Until $T/stop: the window waits for the poll under way to end, so none
# runs on into the next window.
poller() {
	while [ ! -e "$T/stop" ]; do
		if [ "$1" = churn ]; then poll_log; else walk "$PID_COL" | grep -c "^$PID_COL\\." >>"$T/read"; fi
		for _ in 1 2 3 4 5 6 7 8 9 10; do [ -e "$T/stop" ] || sleep 0.5; done
	done
}
# window MODE: sets PM (clustermond + helper, thousandths of a percent),
# THREADS, LOGGED (exit rows logged meanwhile), READ (rows the poller
# read), SNMPD (its thousandths of a percent), BPF ("NAME NS" deltas).
window() {
	local c0 k0 s0 t0 c1 k1 s1 t1 th0 th1 b0 b1 ch= pp= l0 l1
	l0=$(get "$clusterMonProcExitLogged.0" 2>/dev/null || echo 0)
	: >"$T/read"
	rm -f "$T/stop"
	if [ "$1" != quiet ]; then
		"$EXITERS" $((RATE * SECONDS_EACH)) "$SECONDS_EACH" cmexit$$ "$T/ex.out" & ch=$!
		poller "$1" & pp=$!
	fi
	b0=$(bpf_ns)
	th0=$(threads "$AGENT_PID") c0=$(cpu_ns "$AGENT_PID") k0=$(cpu_ns "$HELPER_PID")
	s0=$(cpu_ns "$MASTER_PID") t0=$(date +%s%N)
	sleep "$SECONDS_EACH"
	c1=$(cpu_ns "$AGENT_PID") k1=$(cpu_ns "$HELPER_PID") s1=$(cpu_ns "$MASTER_PID")
	t1=$(date +%s%N) th1=$(threads "$AGENT_PID")
	b1=$(bpf_ns)
	[ -n "$ch" ] && { wait "$ch"; touch "$T/stop"; wait "$pp" 2>/dev/null; }
	l1=$(get "$clusterMonProcExitLogged.0" 2>/dev/null || echo 0)
	LOGGED=$((l1 - l0))
	READ=$(awk '{ n += $1 } END { print n + 0 }' "$T/read")
	THREADS=$(per_thread "$th0" "$th1" $((t1 - t0)))
	PM=$(( (c1 - c0 + k1 - k0) * 100000 / (t1 - t0) ))
	SNMPD=$(( (s1 - s0) * 100000 / (t1 - t0) ))
	BPF=$(awk 'NR == FNR { a[$1] = $2; next } { print $1, $2 - a[$1] }' \
		<(printf '%s\n' "$b0") <(printf '%s\n' "$b1"))
	BPF_NS=$(awk '{ n += $2 } END { print n + 0 }' <<<"$BPF")
	EXIT_NS=$(awk '$1 ~ /^on_exit/ { n += $2 } END { print n + 0 }' <<<"$BPF")
}
med() { printf '%s\n' "$@" | sort -n | sed -n "$(( ($# + 1) / 2 ))p"; }

echo "== exit log: $RATE exits a second for ${SECONDS_EACH} s, a poller every 5 s, against no churn; $RUNS runs"
declare -A all snmpd bpf exitns
for r in $(seq 1 "$RUNS"); do
	for mode in $MODES; do
		window "$mode"
		per=$(( LOGGED > 0 ? EXIT_NS / LOGGED : 0 ))
		printf 'run %s %-6s: clustermond + clustermon-kprobe %s of a core; %s exits logged, %s rows read\n' \
			"$r" "$mode" "$(pct "$PM")" "$LOGGED" "$READ"
		printf '      threads:%s\n      snmpd %s; BPF programs %s of a core (the exit program %s ns an exit logged)\n' \
			"$THREADS" "$(pct "$SNMPD")" "$(pct $((BPF_NS * 100000 / (SECONDS_EACH * 1000000000))))" "$per"
		all[$mode]+="$PM " snmpd[$mode]+="$SNMPD " bpf[$mode]+="$((BPF_NS / SECONDS_EACH)) "
		exitns[$mode]+="$per "
	done
done
# shellcheck disable=SC2086
q=$(med ${all[quiet]}) qs=$(med ${snmpd[quiet]}) qb=$(med ${bpf[quiet]})
for mode in $MODES; do
	[ "$mode" = quiet ] && continue
	# shellcheck disable=SC2086
	c=$(med ${all[$mode]}) cs=$(med ${snmpd[$mode]}) cb=$(med ${bpf[$mode]}) ce=$(med ${exitns[$mode]})
	[ "$mode" = churn ] && label="exits:" || label="exits ($mode poller):"
	echo "$label $RATE exits a second add $(pct $((c - q))) of a core (target < 0.5%): $(pct "$c") against $(pct "$q")"
	echo "  $mode: snmpd adds $(pct $((cs - qs))); the kernel's BPF programs add $(pct $(( (cb - qb) / 10000 ))) (the exit program $ce ns an exit, $(pct $((ce * RATE / 10000))) at $RATE a second)"
done
