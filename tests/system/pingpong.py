#!/usr/bin/env python3
"""pingpong.py SECONDS: two processes pass a byte back and forth over pipes
for SECONDS, so each wakes the other (short run-queue waits by wakeup)."""
import os
import sys
import time

end = time.monotonic() + float(sys.argv[1])
a_r, a_w = os.pipe()
b_r, b_w = os.pipe()
if os.fork() == 0:
    while os.read(a_r, 1) == b"p":
        os.write(b_w, b"p")
    os._exit(0)
while time.monotonic() < end:
    os.write(a_w, b"p")
    os.read(b_r, 1)
os.write(a_w, b"q")
os.wait()
