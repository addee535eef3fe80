#!/bin/bash
# cgroupend.sh - clusterMonCgroupEndTable (issue 43): a Slurm-like job's
# cgroup runs 2 s under a memory limit, its process ends, and the cgroup is
# removed: its end row appears with the totals of the last cpu.stat (v1
# cpuacct.usage) and memory peak read before the removal, its workload,
# and start and end times two seconds or more apart. Every cgroup made here
# is removed at exit.
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" = 0 ] || missing_all "creating cgroups needs root"
command -v python3 >/dev/null || missing_all "python3 is missing"
V2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
v1_of() { awk -v c="$1" '$3 == "cgroup" { n = split($4, o, ","); for (i = 1; i <= n; i++) if (o[i] == c) { print $2; exit } }' /proc/self/mounts; }
V1_CPU=$(v1_of cpu) V1_ACCT=$(v1_of cpuacct) V1_MEM=$(v1_of memory)
v2_has() { [ -n "$V2" ] && grep -qw "$1" "$V2/cgroup.controllers"; }
[ -n "$V2$V1_CPU$V1_MEM" ] || missing_all "no cgroup hierarchy is mounted"
plan 6

JOB="slurm_cmend$$/uid_0/job_77"
made=()
for d in "$V2" "$V1_CPU" "$V1_ACCT" "$V1_MEM"; do
	[ -n "$d" ] && [ ! -d "$d/$JOB" ] && mkdir -p "$d/$JOB" && made+=("$d")
done
end_cleanup() {
	local d
	for d in "${made[@]}"; do
		rmdir "$d/$JOB" "$d/slurm_cmend$$/uid_0" "$d/slurm_cmend$$" 2>/dev/null
	done
}
trap 'end_cleanup; cleanup' EXIT
if [ -n "$V1_MEM" ]; then
	MEM="$V1_MEM/$JOB"; echo $((64 << 20)) >"$MEM/memory.limit_in_bytes"; PEAKF=memory.max_usage_in_bytes
else
	for d in "$V2" "$V2/slurm_cmend$$" "$V2/slurm_cmend$$/uid_0"; do echo +memory >"$d/cgroup.subtree_control" 2>/dev/null; done
	MEM="$V2/$JOB"; echo $((64 << 20)) >"$MEM/memory.max"; PEAKF=memory.peak
fi
kernel_cpu_ns() {
	if [ -n "$V1_ACCT" ] && [ -f "$V1_ACCT/$JOB/cpuacct.usage" ]; then cat "$V1_ACCT/$JOB/cpuacct.usage"
	else echo $(( $(awk '$1 == "usage_usec" { print $2 }' "$V2/$JOB/cpu.stat") * 1000 )); fi
}

start_master || bail "snmpd did not start"
printf 'sampleInterval cgroup 200\ncgroupMatch slurm_cmend%s/*/job_*\n' "$$" >"$T/clustermond.conf"
start_agent -c "$T/clustermond.conf" || bail "clustermond did not register"
live_row() { walk "$clusterMonCgroupPath" | awk -v p="\"$JOB\"" '$2 == p { n = split($1, a, "."); print a[n] }'; }
have_live() { [ -n "$(live_row)" ]; }
wait_for 5 have_live
L=$(live_row)
[ -n "$L" ] || bail "no live row for $JOB"

# The job: 20 MiB touched, a second of CPU, a second asleep.
bash -c 'for d in $1; do echo $$ >"$d/cgroup.procs" || exit 1; done; shift; exec "$@"' _ \
	"$(for d in "${made[@]}"; do echo "$d/$JOB"; done | tr '\n' ' ')" \
	python3 -c 'import time
b = bytearray(20 << 20)
t = time.time()
while time.time() - t < 1: pass
time.sleep(1)'
# Its last reading before the removal holds the final totals: the files'.
cpu=$(kernel_cpu_ns) peak=$(cat "$MEM/$PEAKF")
wait_for 5 sh -c "[ \"\$(snmpget -v2c -c public -On -Oqv $TARGET $clusterMonCgroupCpuNs.$L)\" = '$cpu' ]"
for d in "${made[@]}"; do rmdir "$d/$JOB"; done
found() { walk "$clusterMonCgroupEndPath" | grep -q "\"$JOB\""; }
check "the removed job's end row appears" wait_for 5 found
E=$(walk "$clusterMonCgroupEndPath" | awk -v p="\"$JOB\"" '$2 == p { n = split($1, a, "."); print a[n] }')
is "$(get "$clusterMonCgroupEndCpuNs.$E") $(get "$clusterMonCgroupEndMemPeak.$E")" "$cpu $peak" \
	"its CpuNs and MemPeak are the last cpu usage and memory peak read before the removal"
is "$(get "$clusterMonCgroupEndWorkload.$E") $(get "$clusterMonCgroupEndLiveIndex.$E")" "\"slurm job 77\" $L" \
	"its workload, and the index it had while it lived"
s=$(get "$clusterMonCgroupEndStartTime.$E") e=$(get "$clusterMonCgroupEndEndTime.$E")
check "it lived 2 s or more by its start and end times ($((e - s)) ms)" [ $((e - s)) -ge 2000 ]
check "the live row went" sh -c "! snmpget -v2c -c public -On -Oqv $TARGET $clusterMonCgroupPath.$L | grep -q '$JOB'"
CTL="$top_builddir/contrib/clustermonctl -v 2c -c public $TARGET"
out=$($CTL jobs ended 1)
contains "slurm job 77" "$out" && contains "$JOB" "$out"
ok $? "clustermonctl jobs ended shows it with its workload"
finish
