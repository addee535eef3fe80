# pipe-lib.sh - what probes.sh and sensors.sh share: one pinned `perf bench
# sched pipe` run judged on the CPU time of its two tasks (wait4's rusage:
# the scheduler's BPF programs run in their context), not wall time, which
# other work on a shared machine inflates; and a median. Sourced after
# lib.sh; LOOPS round trips a run.

# pipe_cpu: "CPU-US WALL-US" of one run, both tasks on CPU 0.
pipe_cpu() {
	python3 -c '
import os, subprocess, sys, time
t = time.monotonic()
p = subprocess.Popen(["taskset", "-c", "0", "perf", "bench", "sched", "pipe", "-l", sys.argv[1]],
                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
_, status, ru = os.wait4(p.pid, 0)
if status != 0:
    sys.exit("perf bench failed")
print("%d %d" % ((ru.ru_utime + ru.ru_stime) * 1e6, (time.monotonic() - t) * 1e6))' "$LOOPS"
}
med() { printf '%s\n' "$@" | sort -n | sed -n "$(( ($# + 1) / 2 ))p"; }
