#!/bin/bash
# procfed.sh - the process table fed by clustermon-kprobe's per-process
# accounting: CPU time as the kernel counts it (summed over threads, so a
# 4-thread spinner is right too), a new child in within a second, an exited
# one out within two intervals, and the helper's death falls back to the
# scanner with CpuNs never going back.
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || skip_all "needs root to load BPF programs"
[ "$(nproc)" -ge 2 ] || skip_all "needs 2 CPUs"
need_helper
plan 13
PT="$CM.5.1.1" METHOD="$CM.2.1.1.8.3"
SPINNERS="$top_builddir/tests/system/spinners"
ln -s "$(command -v sh)" "$T/cfbusy"
ln -s "$(command -v sleep)" "$T/cfidle"
"$T/cfbusy" -c 'while :; do :; done' &
busy=$!
(sleep 300; kill "$busy") >/dev/null 2>&1 &   # bounded even if this script dies (not holding the TAP pipe open)
BG_PIDS="${BG_PIDS:-} $!"   # killed by cleanup, whose wait would sit out the 300 s
"$T/cfidle" 30 &
idle=$!

start_master || bail "snmpd did not start"
start_helper || bail "clustermon-kprobe did not start: $(cat "$T/kprobe.log")"
printf 'helperSocket %s\nsampleInterval proc 100\nsampleInterval probes 100\n' "$HELPER_SOCK" \
	>"$T/clustermond.conf"
start_agent -c "$T/clustermond.conf" || bail "clustermond did not register"
wait_for 3 sh -c "[ \"\$(snmpget -v2c -c public -On -Oqv $TARGET $METHOD)\" = '\"helper\"' ]"
is "$(get "$METHOD")" '"helper"' "clusterMonSourceMethod.proc is helper while clustermon-kprobe runs"
# It reads the helper's sums and rings itself (issue 30): both arrays are
# mapped into clustermond, read-only, and the helper's fds are BPF maps.
# The exit log's and the OOM victims' ring buffers (issue 43) are mapped
# too: their records read-only, each one's first page (the reader's
# position: all a writer of it can change is the room the program sees)
# read-write, the only writable mappings of the helper's.
ro_maps() { awk '/bpf-map/ && $2 ~ /^r--/ { n++ } /bpf-map/ && $2 !~ /^r--/ { w++ } END { print n + 0, w + 0 }' "/proc/$AGENT_PID/maps"; }
wait_for 5 sh -c "[ \$(grep -c bpf-map /proc/$AGENT_PID/maps) -ge 6 ]"
is "$(ro_maps)" "4 2" "clustermond maps the helper's slots, rings and exit and OOM records read-only, the two rings' position pages alone writable"
# The arrays' fds (writable: the kernel maps no BPF_F_RDONLY one) are
# closed once mapped; the two it keeps, and the cgroup source's (the CPUs'
# state, and the per-cgroup sums' hash where the kernel has no cgroup
# storage), are BPF_F_RDONLY (fdinfo flags); with cgroup storage the
# sums come through an iterator's link, which reads and writes nothing.
# The exit and OOM rings' fds are O_RDWR (a ring's reader writes its
# position); the OOM watcher polls its ring's.
ro_fds() { for f in $(find "/proc/$AGENT_PID/fd" -lname 'anon_inode:bpf-map'); do awk '$1 == "flags:" { print $2 }' "/proc/$AGENT_PID/fdinfo/${f##*/}"; done | sort | tr '\n' ' '; }
links() { find "/proc/$AGENT_PID/fd" -lname 'anon_inode:bpf_link' | wc -l; }
if grep -q "sums in cgroup storage" "$T/kprobe.log"; then
	want="02000000 02000000 02000000 02000002 02000002 " nlinks=1 what="three read-only fds of the helper's maps (two for processes, one for cgroups), the two rings' and the cgroup iterator's link"
else
	want="02000000 02000000 02000000 02000000 02000002 02000002 " nlinks=0 what="four read-only fds of the helper's maps (two for processes, two for cgroups) and the two rings'"
fi
all_in() { [ "$(ro_fds | wc -w)" -ge $(( ${#want} / 9 )) ] && [ "$(links)" -ge "$nlinks" ]; }
wait_for 10 all_in
is "$(ro_fds)$(links)" "$want$nlinks" "and keeps $what"
# The busy child's row, once a sample has it (waited for: a loaded machine
# takes longer than the 100 ms interval).
wait_for 30 get "$PT.6.$busy"

# Judged against the kernel's count over the times the two served samples
# can have been taken (lib.sh cpu_growth): the bracket is about +-4% over
# 4 s on a quiet machine, and the served growth within 5% of it.
read -r d lo hi share c k < <(cpu_growth "$PT.6.$busy" "$busy" 4)
check "a busy child's CpuNs grows as the kernel's schedstat within 5% over 4 s ($d ns; the kernel's $lo..$hi; it had $share per mille of a CPU)" \
	within 50 "$d" "$lo" "$hi"
check "and stays within 5% of the kernel's total ($c vs $k ns)" \
	test $(( ${c:-0} * 100 / ${k:-1} )) -ge 95 -a $(( ${c:-0} * 100 / ${k:-1} )) -le 105

"$SPINNERS" 4 15 &
spin=$!
# Its row with all four threads started.
wait_for 30 sh -c "[ \"\$(snmpget -v2c -c public -On -Oqv $TARGET $PT.10.$spin)\" = 4 ]"
is "$(get "$PT.10.$spin")" 4 "the 4-thread spinner has 4 threads"
t0=$(date +%s%N); read -r kb0 c0 ka0 < <(fresh_cpu "$PT.6.$spin" "$spin"); utils=0
for _ in $(seq 1 10); do sleep 0.3; utils=$(( utils + $(get "$PT.8.$spin") )); done
read -r kb1 c1 ka1 < <(fresh_cpu "$PT.6.$spin" "$spin"); t1=$(date +%s%N)
lo=$(( kb1 - ka0 )) hi=$(( ka1 - kb0 )) d=$(( c1 - c0 ))
share=$(( hi * 1000 / (t1 - t0) ))
check "the 4-thread spinner's CpuNs grows as its threads' schedstat summed within 5% over 3 s ($d ns; the kernel's $lo..$hi)" \
	within 50 "$d" "$lo" "$hi"
util=$(( utils / 10 ))
check "its CpuUtil averages $util (hundredths of a percent of one CPU), within 15 points of the threads' share ($share per mille)" \
	test $(( util / 10 - share )) -le 150 -a $(( share - util / 10 )) -le 150 -a "$util" -gt 0
kill "$spin"; wait "$spin" 2>/dev/null

"$T/cfidle" 31 &
new=$!
t0=$(date +%s%N)
ms=never
wait_for $(( $(slack 1000) / 1000 + 1 )) sh -c "snmpget -v2c -c public -On -Oqv $TARGET $PT.2.$new | grep -q cfidle" &&
	ms=$(( ($(date +%s%N) - t0) / 1000000 ))
check "a new child appears within one second ($ms ms; $(slack 1000) ms allowed)" test "$ms" != never -a "$ms" -le "$(slack 1000)"
kill "$new"; wait "$new" 2>/dev/null
t0=$(date +%s%N)
ms=never
wait_for $(( $(slack 300) / 1000 + 1 )) sh -c "snmpget -v2c -c public -On $TARGET $PT.2.$new | grep -q 'No Such Instance'" &&
	ms=$(( ($(date +%s%N) - t0) / 1000000 ))
# Two 100 ms intervals, and the time one snmpget takes here.
check "an exited child's row is gone within two intervals ($ms ms; $(slack 300) allowed)" \
	test "$ms" != never -a "$ms" -le "$(slack 300)"

# The helper dies: the scanner takes over, CpuNs never goes back.
last=$(get "$PT.6.$busy") bad=0 n=0
kill -9 "$HELPER_PID"; wait "$HELPER_PID" 2>/dev/null; HELPER_PID=
for _ in $(seq 1 60); do
	[ "$n" -ge 15 ] && break
	sleep 0.1
	now=$(get "$PT.6.$busy") || continue
	[ "$now" -ge "$last" ] || { bad=$((bad + 1)); diag "CpuNs went from $last to $now"; }
	last=$now n=$((n + 1))
done
is "$bad/$n" "0/15" "the helper killed: CpuNs of the busy child never went back in 15 readings"
is "$(get "$METHOD")" '"scanner"' "clusterMonSourceMethod.proc is scanner without the helper"
read -r d lo hi _ < <(cpu_growth "$PT.6.$busy" "$busy" 4)
check "and the scanner's CpuNs grows as the kernel's within 5% over 4 s ($d ns; the kernel's $lo..$hi)" \
	within 50 "$d" "$lo" "$hi"
kill "$busy" "$idle" 2>/dev/null
finish
