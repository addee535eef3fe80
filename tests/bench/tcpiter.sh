#!/bin/bash
# tcpiter.sh - issue 42's TCP measurement: one sample of the connection
# table read (a) as the tcp source reads it today, the inet_diag dump with
# tcp_info of every socket (the product's reader, collect/inetdiag.c); (b)
# through an iter/tcp program (kprobe-helper/tcpiter.bpf.c) that keeps each
# socket's last counters in sk_storage and writes only the sockets that
# moved; (c) the same state walked through an iterator over the sk_storage
# map, whose sockets get storage when they become established. Per sample:
# the reading thread's CPU (its clock), user and system time (getrusage),
# and the iterator program's run time (bpf_stats, part of the system time),
# at each movement level, and the first pass (every socket written). The
# three alternate in one invocation, half the samples with bpf_stats on and
# half off (here the stats' clock reads cost about 0.4 us a run, more than
# (c)'s whole pass a socket). The values (b) and (c) write are checked
# against (a)'s for the same sockets; the exit status says if they agreed.
#
# Bounded: bench_tcpiter runs in a network namespace of its own, its load
# child dies with it (or after 600 s), and `timeout` ends the whole run.
# Knobs: SOCKETS (10,000: 5,000 loopback connections, both ends, as
# defaults.sh's node shape), SAMPLES per level (20), MOVING (moving
# sockets, both ends of a connection count: "10 1000").
. "$(dirname "$0")/../system/lib.sh"
[ "$(id -u)" -eq 0 ] || bail "needs root (a BPF iterator, a network namespace)"
BENCH="$top_builddir/tests/bench/bench_tcpiter"
OBJ="$top_builddir/kprobe-helper/tcpiter.bpf.o"
[ -x "$BENCH" ] || bail "tests/bench/bench_tcpiter is not built (make $(basename "$BENCH") in tests/bench, with the helper)"
[ -f "$OBJ" ] || bail "kprobe-helper/tcpiter.bpf.o is not built (configure --enable-helper)"
SOCKETS=${SOCKETS:-10000} SAMPLES=${SAMPLES:-20} MOVING=${MOVING:-"10 1000"}

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) CPUs)"
echo "bpf_stats sysctl: $(sysctl -n kernel.bpf_stats_enabled) (the bench turns the stats on for half the samples)"
# shellcheck disable=SC2086 # MOVING is a list of levels
timeout -k 5 600 "$BENCH" "$OBJ" "$SOCKETS" "$SAMPLES" $MOVING
rc=$?
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
exit $rc
