#!/usr/bin/env python3
"""attach_latency.py - GET latency while a SET activates probes.

    attach_latency.py HOST:PORT OPER-OID-PREFIX FIRST COUNT -- SNMPSET-COMMAND...

Starts the snmpset command, then issues one SNMPv2c GET after another (each
for the OperStatus of the COUNT rows FIRST.., over plain UDP, encoded here so
every GET is timed without a process start in it) until every row is up(1)
or 20 s have passed. Prints one line:

    set-ms S set-rc R gets N during-activation A max-get-ms M up U
"""
import socket
import subprocess
import sys
import time


def tlv(tag, body):
    n = len(body)
    if n < 128:
        return bytes([tag, n]) + body
    size = n.to_bytes((n.bit_length() + 7) // 8, "big")
    return bytes([tag, 0x80 | len(size)]) + size + body


def integer(v):
    return tlv(0x02, v.to_bytes((v.bit_length() + 8) // 8, "big", signed=True))


def oid(text):
    arcs = [int(a) for a in text.strip(".").split(".")]
    body = bytes([40 * arcs[0] + arcs[1]])
    for a in arcs[2:]:
        enc = [a & 0x7F]
        a >>= 7
        while a:
            enc.insert(0, 0x80 | (a & 0x7F))
            a >>= 7
        body += bytes(enc)
    return tlv(0x06, body)


def get_request(reqid, oids):
    binds = b"".join(tlv(0x30, oid(o) + b"\x05\x00") for o in oids)
    pdu = tlv(0xA0, integer(reqid) + integer(0) + integer(0) + tlv(0x30, binds))
    return tlv(0x30, integer(1) + tlv(0x04, b"public") + pdu)


def read_tlv(buf, pos):
    tag, n = buf[pos], buf[pos + 1]
    pos += 2
    if n & 0x80:
        k = n & 0x7F
        n = int.from_bytes(buf[pos:pos + k], "big")
        pos += k
    return tag, buf[pos:pos + n], pos + n


def parse_response(buf):
    """(request-id, [integer values, None for anything else])"""
    _, msg, _ = read_tlv(buf, 0)
    _, _, pos = read_tlv(msg, 0)          # version
    _, _, pos = read_tlv(msg, pos)        # community
    _, pdu, _ = read_tlv(msg, pos)
    _, rid, pos = read_tlv(pdu, 0)
    _, _, pos = read_tlv(pdu, pos)        # error-status
    _, _, pos = read_tlv(pdu, pos)        # error-index
    _, binds, _ = read_tlv(pdu, pos)
    values, pos = [], 0
    while pos < len(binds):
        _, vb, pos = read_tlv(binds, pos)
        _, _, p = read_tlv(vb, 0)
        tag, val, _ = read_tlv(vb, p)
        values.append(int.from_bytes(val, "big", signed=True) if tag == 0x02 else None)
    return int.from_bytes(rid, "big", signed=True), values


def main():
    target, prefix, first, count = sys.argv[1:5]
    command = sys.argv[sys.argv.index("--") + 1:]
    host, port = target.rsplit(":", 1)
    oids = ["%s.%d" % (prefix, first_row) for first_row in
            range(int(first), int(first) + int(count))]
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.connect((host, int(port)))
    sock.settimeout(3)
    start = time.monotonic()
    setter = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    set_ms = set_rc = None
    gets = during = 0
    worst = 0.0
    up = 0
    reqid = 1000
    while time.monotonic() - start < 20:
        if set_rc is None and setter.poll() is not None:
            set_rc = setter.returncode
            set_ms = (time.monotonic() - start) * 1000
        reqid += 1
        t0 = time.monotonic()
        sock.send(get_request(reqid, oids))
        try:
            while True:
                rid, values = parse_response(sock.recv(65536))
                if rid == reqid:
                    break
        except socket.timeout:
            values = []
        ms = (time.monotonic() - t0) * 1000
        gets += 1
        worst = max(worst, ms)
        up = sum(1 for v in values if v == 1)
        if up == len(oids) and set_rc is not None:
            break
        during += 1
        time.sleep(0.005)
    if set_rc is None:
        setter.wait()
        set_rc = setter.returncode
        set_ms = (time.monotonic() - start) * 1000
    print("set-ms %.0f set-rc %d gets %d during-activation %d max-get-ms %.1f up %d" %
          (set_ms, set_rc, gets, during, worst, up))


if __name__ == "__main__":
    main()
