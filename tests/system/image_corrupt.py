#!/usr/bin/python3
"""image_corrupt.py IMAGE SECONDS [BYTES]: rewrites clustermond's image in
place while snmpd serves from it: keeps its heartbeat fresh (so the module
goes on reading it) and overwrites BYTES (default 64) random bytes a round,
header counts and section offsets included, for SECONDS. What a buggy or
hostile writer could do; with BYTES 0 it only keeps a copied image alive."""
import mmap
import os
import random
import struct
import sys
import time

STATE, HEARTBEAT = 24, 32   # offsets in struct cm_image_header (image/image.h)
path, seconds = sys.argv[1], float(sys.argv[2])
HEADER = 24576              # past struct cm_image_header: sections and registrations
per_round = int(sys.argv[3]) if len(sys.argv) > 3 else 64
random.seed(int(os.environ.get("SEED", "1")))
fd = os.open(path, os.O_RDWR)
size = os.fstat(fd).st_size
m = mmap.mmap(fd, size)
end = time.monotonic() + seconds
writes = 0
while time.monotonic() < end:
    m[STATE:STATE + 4] = struct.pack("=I", 1)
    m[HEARTBEAT:HEARTBEAT + 8] = struct.pack("=Q", time.clock_gettime_ns(time.CLOCK_MONOTONIC))
    for _ in range(per_round):
        # Half the hits go to the header (section table, registrations), where a
        # count or an offset sends a reader furthest.
        at = random.randrange(44, HEADER) if random.random() < 0.5 else random.randrange(size)
        m[at] = random.randrange(256)
        writes += 1
    if per_round and random.random() < 0.05:
        at = random.randrange(44, HEADER - 4)
        m[at:at + 4] = struct.pack("=I", random.choice([0, 1, 0x7fffffff, 0xffffffff, size]))
print("corrupted %d bytes" % writes)
