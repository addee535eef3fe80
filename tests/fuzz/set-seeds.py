#!/usr/bin/env python3
"""set-seeds.py - writes fuzz_set's seed inputs to tests/fixtures/set/.

Each request is OP NVB VARBIND..., each varbind TARGET COLUMN INDEX TYPE
VALUE, with the table indexes of fuzz_set.c (next_request, build_name,
add_value): keep the two in step.
"""
import os
import sys

SET, GET, GETNEXT = 0, 6, 7
SRC, PROC, PROBE, THR, HIST, HDATA, PCPU, DIST, TRACE, WILD, OTHER = range(11)
NOINDEX = 0xF0
# int_values[] and unsigned_values[] positions
ACTIVE, NIS, CAGO, CAWAIT, DESTROY, VOLATILE, MINUS1, CPU8191 = 1, 2, 4, 5, 6, 2, 8, 10
U10, U60, U100, U1000, U3600000, U65535, U100000, U1000000 = 3, 4, 5, 6, 7, 9, 11, 13
# strings[] and variables[] positions
S_100, S_1, S_007, S_MAX, S_KPROBE, S_LATENCY, S_BADSPEC, S_GLOB, S_BRACKET, S_OWNER = \
    3, 2, 4, 5, 12, 16, 19, 20, 21, 22
S_DLAT, S_DVAL, S_DKEY, S_DBAD, S_CGROUP, S_CGBAD = 31, 32, 33, 34, 35, 36
S_TRACE, S_RAWTP = 14, 15
V_INTERVAL, V_UID, V_THR_VALUE, V_HIST_GRANTED = 0, 4, 10, 12


def vb(target, col, idx, *value, typ=0):
    return bytes([target, col, idx, typ, *value])


def req(op, *vbs):
    return bytes([op, len(vbs) - 1]) + b"".join(vbs)


SEEDS = {
    "thresholds.bin": [
        req(SET, vb(THR, 11, 1, CAWAIT)),
        req(SET, vb(THR, 2, 1, V_INTERVAL), vb(THR, 5, 1, S_100), vb(THR, 6, 1, S_1)),
        req(SET, vb(THR, 11, 1, ACTIVE)),
        req(GETNEXT, vb(THR, 2, NOINDEX, 0)),
        req(SET, vb(THR, 11, 2, CAGO), vb(THR, 2, 2, V_UID), vb(THR, 5, 2, S_MAX),
            vb(THR, 6, 2, S_007), vb(THR, 3, 2, 2), vb(THR, 10, 2, VOLATILE)),
        req(SET, vb(THR, 6, 1, S_MAX)),
        req(SET, vb(THR, 12, 1, S_OWNER), vb(OTHER, 0, 0, 1)),
        req(SET, vb(THR, 11, 1, NIS)),
        req(SET, vb(THR, 2, 1, V_THR_VALUE), vb(THR, 11, 1, ACTIVE)),
        req(SET, vb(THR, 11, 1, DESTROY)),
    ],
    "history.bin": [
        req(SET, vb(HIST, 8, 1, CAGO), vb(HIST, 2, 1, V_INTERVAL), vb(HIST, 3, 1, U1000),
            vb(HIST, 4, 1, U60)),
        req(GET, vb(HIST, 5, 1, 0)),
        req(SET, vb(HIST, 4, 1, U65535), vb(HIST, 6, 1, S_OWNER)),
        req(SET, vb(HIST, 8, 2, CAWAIT), vb(HIST, 2, 2, V_HIST_GRANTED)),
        req(SET, vb(HIST, 8, 2, ACTIVE)),
        req(SET, vb(HIST, 3, 1, U10), vb(OTHER, 0, 0, 1)),
        req(GETNEXT, vb(HDATA, 2, NOINDEX, 0)),
        req(SET, vb(HIST, 8, 1, DESTROY)),
    ],
    "probes.bin": [
        req(SET, vb(PROBE, 12, 1, CAWAIT), vb(PROBE, 2, 1, S_KPROBE)),
        req(SET, vb(PROBE, 12, 1, ACTIVE)),
        req(SET, vb(PROBE, 12, 2, CAGO), vb(PROBE, 2, 2, S_LATENCY)),
        req(SET, vb(PROBE, 5, 1, U1000000), vb(PROBE, 3, 1, MINUS1), vb(PROBE, 4, 1, CPU8191)),
        req(SET, vb(PROBE, 2, 1, S_BADSPEC)),
        req(SET, vb(PROBE, 11, 1, VOLATILE), vb(OTHER, 0, 0, 2)),
        req(GET, vb(PROBE, 9, 1, 0), vb(PROBE, 10, 1, 0)),
        req(SET, vb(PROBE, 12, 1, DESTROY)),
    ],
    "dists.bin": [
        req(SET, vb(DIST, 15, 1, CAWAIT), vb(DIST, 2, 1, S_DLAT)),
        req(SET, vb(DIST, 15, 1, ACTIVE)),
        req(SET, vb(DIST, 15, 2, CAGO), vb(DIST, 2, 2, S_DVAL), vb(DIST, 3, 2, MINUS1),
            vb(DIST, 6, 2, S_CGROUP)),
        req(SET, vb(DIST, 15, 3, CAGO), vb(DIST, 2, 3, S_DKEY), vb(DIST, 7, 3, U65535)),
        req(SET, vb(DIST, 2, 1, S_DBAD)),
        req(SET, vb(DIST, 6, 1, S_CGBAD)),
        req(SET, vb(DIST, 14, 2, VOLATILE), vb(OTHER, 0, 0, 2)),
        req(GET, vb(DIST, 12, 1, 0), vb(DIST, 13, 1, 0)),
        req(GETNEXT, vb(DIST, 2, NOINDEX, 0)),
        req(SET, vb(DIST, 15, 1, DESTROY)),
    ],
    # clusterMonTraceTable: Spec 2, FilterPid 3, FilterCpu 4, SampleEvery 5,
    # DurationMs 6, MaxBytes 7, BufferBytes 8, StorageType 9, RowStatus 10.
    "traces.bin": [
        req(SET, vb(TRACE, 10, 1, CAWAIT), vb(TRACE, 2, 1, S_TRACE)),
        req(SET, vb(TRACE, 6, 1, U1000), vb(TRACE, 7, 1, U100000), vb(TRACE, 8, 1, U65535)),
        req(SET, vb(TRACE, 10, 1, ACTIVE)),
        req(SET, vb(TRACE, 10, 2, CAGO), vb(TRACE, 2, 2, S_RAWTP), vb(TRACE, 3, 2, MINUS1),
            vb(TRACE, 4, 2, CPU8191), vb(TRACE, 5, 2, U1000000)),
        req(SET, vb(TRACE, 2, 1, S_BADSPEC)),
        req(SET, vb(TRACE, 8, 1, U10), vb(TRACE, 6, 1, U3600000)),
        req(SET, vb(TRACE, 9, 1, VOLATILE), vb(OTHER, 0, 0, 2)),
        req(GET, vb(TRACE, 11, 1, 0), vb(TRACE, 15, 1, 0), vb(TRACE, 16, 1, 0)),
        req(GETNEXT, vb(TRACE, 2, NOINDEX, 0)),
        req(SET, vb(TRACE, 10, 1, DESTROY)),
    ],
    "scalars.bin": [
        req(SET, vb(SRC, 3, 1, U1000)),
        req(SET, vb(SRC, 3, 4, U1000)),
        req(SET, vb(PROC, 2, 0, S_GLOB), vb(PROC, 3, 0, MINUS1), vb(PROC, 4, 0, U100)),
        req(SET, vb(PROC, 2, 0, S_OWNER), vb(PROC, 2, 0, S_BRACKET), vb(OTHER, 0, 0, 1)),
        req(SET, vb(SRC, 3, 1, U10), vb(SRC, 3, 1, U3600000), vb(OTHER, 0, 0, 1)),
        req(SET, *[vb(PROC, 2, 0, s) for s in range(1, 10)], vb(OTHER, 0, 0, 1)),
        req(SET, vb(PROC, 3, 0, 0, typ=0xC4)),
        req(GET, vb(SRC, 3, 1, 0)),
        req(GETNEXT, vb(WILD, 5, 0x20, 0)),
    ],
}

# All of them in one: later requests meet the rows earlier ones left, and
# libFuzzer starts with room for long inputs.
SEEDS["all.bin"] = [r for name in ("thresholds.bin", "history.bin", "probes.bin",
                                   "dists.bin", "traces.bin", "scalars.bin")
                    for r in SEEDS[name]]

out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(__file__), "..", "fixtures", "set")
os.makedirs(out, exist_ok=True)
for name, requests in SEEDS.items():
    with open(os.path.join(out, name), "wb") as f:
        f.write(b"".join(requests))
