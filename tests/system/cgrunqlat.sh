#!/bin/bash
# cgrunqlat.sh - run-queue latency and CPU time per cgroup from the helper's
# sensor (clusterMonCgroupRunqlat*, clusterMonCgroupSchedCpuNs).
# Two busy loops pinned to CPU 1, the only tasks of a new cgroup in the v2
# tree, wait for each other for two seconds. The helper's histogram of that
# cgroup (read from the helper by code of the test's own) against runqlat.bt counting only
# those two pids' waits between the same marks: counts within RQ_COUNT, and
# the cumulative distributions within RQ_GAP by runqlat.sh's statistic,
# with the peer's exact waits (judge_waits; docs/testing.md). The MIB serves that histogram: its waits, and p50,
# p90 and p99 as log2hist interpolates them; its CPU time is the kernel's
# (cpu.stat usage_usec) within 3% (docs/testing.md). Without the helper the columns are
# absent.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/runqlat-lib.sh"

[ "$(id -u)" -eq 0 ] || skip_all "needs root to load BPF programs and make cgroups"
[ "$(nproc)" -ge 2 ] || skip_all "needs 2 CPUs"
need_helper
command -v bpftrace >/dev/null || missing_all "bpftrace is missing (apt-get install bpftrace)"
command -v bpftool >/dev/null || missing_all "bpftool is missing (apt-get install bpftool)"
V2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
[ -n "$V2" ] || skip_all "no cgroup2 tree mounted"
plan 14
RQ_GAP=${RQ_GAP:-0.02} RQ_COUNT=${RQ_COUNT:-0.05}

PFX=cmrq${T##*.}
CG=$V2/$PFX-rq
mkdir "$CG" || bail "cannot make $CG"
trap 'xargs -r kill -9 <"$CG/cgroup.procs" 2>/dev/null; sleep 0.2; rmdir "$CG"; cleanup' EXIT
CGID=$(stat -c %i "$CG")
diag "helper options: ${CGRQ_HELPER_ARGS:-none}"

start_master || bail "snmpd did not start"
printf 'cgroupMatch %s-*\nsampleInterval cgroup 200\nhelperSocket %s\n' "$PFX" "$HELPER_SOCK" >"$T/cg.conf"
start_agent -c "$T/cg.conf" || bail "clustermond did not register"
row() { walk "$clusterMonCgroupPath" | awk -v p="\"$PFX-rq\"" '$2 == p { n = split($1, a, "."); print a[n] }'; }
have_row() { I=$(row) && [ -n "$I" ]; }
wait_for 10 have_row || bail "no row for $PFX-rq"
absent() { snmpget -v2c -c public -On "$TARGET" "$1" 2>&1 | grep -qi "no such"; }
check "without the helper clusterMonCgroupRunqlatWaits is absent" absent "$clusterMonCgroupRunqlatWaits.$I"

start_helper ${CGRQ_HELPER_ARGS:-} || bail "clustermon-kprobe ${CGRQ_HELPER_ARGS:-} did not start: $(cat "$T/kprobe.log")"

# The loops: each moves itself into the cgroup, pinned to CPU 1, then sleeps
# on a pipe until the test says go (so no wait of theirs comes before the
# first mark), spins two seconds and exits.
mkfifo "$T/go"
python3 - "$CG" "$T/go" >"$T/loops" <<'PY' &
import os, sys, time
r, w = os.pipe()
pids = []
for _ in range(2):
    pid = os.fork()
    if pid == 0:
        os.close(w)
        os.sched_setaffinity(0, {1})
        with open(sys.argv[1] + "/cgroup.procs", "w") as f:
            f.write(str(os.getpid()))
        os.read(r, 1)
        end = time.monotonic() + 2
        while time.monotonic() < end:
            pass
        os._exit(0)
    pids.append(pid)
print(*pids, flush=True)
with open(sys.argv[2]) as f:
    f.readline()
os.write(w, b"gg")
for p in pids:
    os.waitpid(p, 0)
PY
SPAWNER=$!
wait_for "$(slack 5)" grep -q . "$T/loops" || bail "the loops did not start"
read -r P1 P2 <"$T/loops"

MARK_ON=$((1000000000 + 2 * $$)) MARK_OFF=$((1000000001 + 2 * $$))
mark() { python3 -c 'import os, sys
try:
    os.getpgid(int(sys.argv[1]))
except OSError:
    pass' "$1"; }
stats_start "$T/stats.out"
# bpftrace on CPU 0: it prints each of the loops' waits, and woken on CPU 1
# to read them it would preempt the loops it measures.
taskset -c 0 bpftrace -B line "$top_srcdir/tests/system/runqlat.bt" "$MARK_ON" "$MARK_OFF" "$P1" "$P2" \
	>"$T/peer.out" 2>"$T/peer.err" &
bp=$!
wait_for 20 grep -q Attaching "$T/peer.out" || bail "bpftrace did not start: $(cat "$T/peer.err")"
for _ in $(seq 1 20); do
	mark "$MARK_ON"
	wait_for 1 grep -q '^mark on' "$T/peer.out" && break
done
grep -q '^mark on' "$T/peer.out" || bail "bpftrace never saw the start mark"
sched_progs "$bp" >"$T/hp0"
echo go >"$T/go"
wait "$SPAWNER"
mark "$MARK_OFF"
sched_progs "$bp" >"$T/hp1"
stats_stop
(sleep 60; kill -9 "$bp") >/dev/null 2>&1 & dog=$!   # not holding the TAP pipe open
wait "$bp"
kill "$dog" 2>/dev/null; wait "$dog" 2>/dev/null
grep -q '^@cost:' "$T/peer.out" || bail "bpftrace did not end at the end mark with its maps"
read -r hcost hprogs oprogs < <(progs_cost "$T/hp0" "$T/hp1")
# Its time on the runs that printed a judged wait (@pcost), not its mean
# over every switch on the machine, is what may lie between the two tools'
# clock reads at a judged wait's end.
cost=$(awk '/^@cost:/ { c = int($2) } /^@pcost:/ { p = int($2) } /^@wcost:/ { w = int($2) }
	END { print (p ? p : c) + w }' "$T/peer.out")
pmax=$(awk '/^@pmax:/ { print int($2) }' "$T/peer.out")

# The helper's histogram of the cgroup as "SLOT COUNT" lines, read as
# clustermond reads it but with code of our own: the cgmaps request's first
# fd is an iterator's link over the cgroups' storage (read through
# BPF_ITER_CREATE: struct cm_cgroup_rec records), or, on a kernel without
# cgroup storage, the cgroup_sched hash (looked up by id).
python3 - "$HELPER_SOCK" "$CGID" >"$T/sd" 2>"$T/map.err" <<'P' || bail "no entry for cgroup $CGID from the helper: $(cat "$T/map.err")"
import array, ctypes, errno, os, platform, socket, sys
nr_bpf = {"x86_64": 321, "aarch64": 280}[platform.machine()]
libc = ctypes.CDLL(None, use_errno=True)
def bpf(cmd, attr):
    r = libc.syscall(nr_bpf, cmd, attr, len(attr))
    if r < 0:
        sys.exit("bpf(%d): errno %d" % (cmd, ctypes.get_errno()))
    return r
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
s.sendall(b"hello\ncgmaps\n")
data, fds = b"", array.array("i")
while data.count(b"\n") < 2:
    msg, anc, _, _ = s.recvmsg(4096, socket.CMSG_LEN(8))
    if not msg:
        break
    data += msg
    for _, _, d in anc:
        fds.frombytes(d[:len(d) - len(d) % 4])
if len(fds) != 2:
    sys.exit("cgmaps: %r" % data)
want, value = int(sys.argv[2]), None
if os.readlink("/proc/self/fd/%d" % fds[0]) == "anon_inode:bpf_link":
    it = bpf(33, ctypes.create_string_buffer(fds[0].to_bytes(4, "little") + bytes(4), 8))  # BPF_ITER_CREATE
    raw = b""
    while True:
        try:
            d = os.read(it, 65536)
        except OSError as e:             # the session ended at the seq buffer
            if e.errno != errno.EOPNOTSUPP:  # (about 60 records), as helpercg.c keeps
                raise
            break
        if not d:
            break
        raw += d
    size = 8 + 8 * 66                    # id, then 64 slots, the sum, the CPU time
    for off in range(0, len(raw) - size + 1, size):
        if int.from_bytes(raw[off:off + 8], "little") == want:
            value = raw[off + 8:off + size]
else:
    key = ctypes.create_string_buffer(want.to_bytes(8, "little"), 8)
    val = ctypes.create_string_buffer(8 * 66)
    attr = ctypes.create_string_buffer(32)
    attr[0:32] = (fds[0].to_bytes(4, "little") + bytes(4) + ctypes.addressof(key).to_bytes(8, "little") +
                  ctypes.addressof(val).to_bytes(8, "little") + bytes(8))
    bpf(1, attr)                         # BPF_MAP_LOOKUP_ELEM
    value = val.raw
if value is None:
    sys.exit("the iterator has no record of cgroup %d" % want)
for i in range(64):
    n = int.from_bytes(value[8 * i:8 * i + 8], "little")
    if n:
        print(i, n)
P
peer_slots "$T/peer.out" >"$T/pd"
read -r st pt s0 p0 gap at raw _ < <(judge_waits "$T/sd" "$T/peer.out" "$((${cost:-0} + hcost))")
diag "cgroup $CGID (pids $P1 $P2): the helper $st waits, bpftrace $pt; cumulative gap $gap at 2^$at ns" \
	"($raw without the programs' ${cost} ns (bpftrace; at most ${pmax:-?} ns on a run that kept a wait) + $hcost ns (the helper's and $oprogs other programs))"
diag "sensor slots: $(sort -n "$T/sd" | awk '$2 { printf "%s:%s ", $1, $2 }')"
diag "peer slots:   $(sort -n "$T/pd" | awk '$2 { printf "%s:%s ", $1, $2 }')"
check "the loops waited (the helper counted $st waits of the cgroup)" test "$st" -ge 100
awk -v s="$st" -v p="$pt" -v m="$RQ_COUNT" 'BEGIN { d = (s - p) / p; if (d < 0) d = -d; exit !(p > 0 && d <= m) }'
ok $? "as many waits as bpftrace saw for the two pids, within $RQ_COUNT ($st vs $pt)"
awk -v g="$gap" -v m="$RQ_GAP" 'BEGIN { exit !(g <= m) }'
ok $? "the cumulative distributions differ by $gap at most (2^$at ns; $RQ_GAP allowed)"

# The MIB: the cgroup source reads the map every 200 ms.
waits_served() { [ "$(get "$clusterMonCgroupRunqlatWaits.$I")" = "$st" ]; }
check "clusterMonCgroupRunqlatWaits is the helper's count ($st)" wait_for 10 waits_served
# p50, p90, p99 of the helper's buckets as core/log2hist.c interpolates.
pct() {
	python3 -c 'import sys
b = {}
for line in open(sys.argv[1]):
    i, n = map(int, line.split()); b[i] = n
count = sum(b.values()); pm = int(sys.argv[2])
rank = max(1, -(-count * pm // 1000)); before = 0
for i in range(64):
    n = b.get(i, 0)
    if before + n < rank:
        before += n; continue
    low = 0 if i == 0 else 1 << i
    print(low if i == 63 else low + ((1 << (i + 1)) - 1 - low) * (rank - before - 1) // n); break' "$T/sd" "$1"
}
for p in 50:500 90:900 99:990; do
	col=clusterMonCgroupRunqlatP${p%%:*}
	want=$(pct "${p#*:}") got=$(get "${!col}.$I")
	is "$got" "$want" "$col is the p${p%%:*} of the helper's buckets"
done
# The distribution an operator walks: the helper's buckets, each with the
# bounds of sched.runqlat's (bucket b+1 holds 2^b..2^(b+1)-1 ns), so what
# was judged against bpftrace above is what the walk serves.
walk "$clusterMonCgroupRunqlatCount.$I" |
	awk '{ n = split($1, a, "."); print a[n] - 1, $2 }' | awk '$2 != 0' >"$T/served"
is "$(sort -n "$T/served" | tr '\n' ' ')" "$(sort -n "$T/sd" | tr '\n' ' ')" \
	"clusterMonCgroupRunqlatCount.$I.* are the helper's buckets for the cgroup"
top=$(walk "$clusterMonCgroupRunqlatCount.$I" | awk '{ n = split($1, a, "."); b = a[n] } END { print b }')
nget=0 nbad=0
for col in Low High Count; do
	v="clusterMonCgroupRunqlat$col"
	while read -r oid val; do
		nget=$((nget + 1))
		[ "$(get "$oid")" = "$val" ] || nbad=$((nbad + 1))
	done < <(walk "${!v}.$I")
done
is "$nbad" 0 "each of the $nget instances the walk of the cgroup's buckets returned answers a GET with its value"
bounds() { printf '%s %s' "$(get "$clusterMonCgroupRunqlatLow.$I.$1")" "$(get "$clusterMonCgroupRunqlatHigh.$I.$1")"; }
is "$(bounds "$top")" "$((top == 1 ? 0 : 1 << (top - 1))) $(((1 << top) - 1))" \
	"its rows end at the highest bucket a wait fell in ($top), bounded as sched.runqlat's"
within() { local d=$(( $1 > $2 ? $1 - $2 : $2 - $1 )); [ $(( d * 100 )) -le $(( $2 * $3 )) ]; }
kns=$(awk '$1 == "usage_usec" { printf "%d\n", $2 * 1000 }' "$CG/cpu.stat")
sns=$(get "$clusterMonCgroupSchedCpuNs.$I")
check "clusterMonCgroupSchedCpuNs $sns within 3% of cpu.stat's usage_usec ($kns ns)" within "$sns" "$kns" 3
# With the helper the files' columns are read every 10 s, each cgroup at a
# time of its own: CpuNs (cpu.stat, the loops done) comes to the kernel's.
files_caught_up() { [ "$(get "$clusterMonCgroupCpuNs.$I")" = "$kns" ]; }
check "clusterMonCgroupCpuNs, from the files read every 10 s, reaches cpu.stat's $kns ns within 12 s" \
	wait_for 12 files_caught_up
stop_helper
gone() { absent "$clusterMonCgroupRunqlatWaits.$I"; }
check "with the helper stopped the column goes" wait_for 5 gone
finish
