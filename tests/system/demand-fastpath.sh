#!/bin/bash
# demand-fastpath.sh - reads through clustermon.so count as demand: the
# module tells clustermond (the image's demand file) which sections it
# serves and answered; a section whose source sleeps is withdrawn, so the
# first read after idle reaches clustermond and gets a fresh sample; reads
# through the module alone keep the source sampling; unread, the section is
# withdrawn and the source sleeps again.
. "$(dirname "$0")/lib.sh"

[ -f "$MODULE" ] || bail "no $MODULE (make builds it)"
plan 8
TCPCONNS="$top_builddir/tests/system/tcpconns"
add_module
start_master || bail "snmpd did not start with clustermon.so"
start_agent || bail "clustermond did not register"
S=$clusterMonSourceEntry TCP=4
state() { get "$S.9.$TCP"; }
idle() { [ "$(state)" = 3 ]; }

# sec NAME: the tcp section's flags, the module's serving bit for it and
# its read count, from the image header and the demand record (core/image.h).
sec() {
	python3 - "$IMAGE" "$clusterMonTcp" <<'PY'
import struct, sys
img, base = sys.argv[1], [int(x) for x in sys.argv[2].strip('.').split('.')]
h = open(img, 'rb').read(56 + 16 * 168)
nsec = struct.unpack_from('<I', h, 44)[0]
for i in range(nsec):
    o = 56 + i * 168
    n = struct.unpack_from('<I', h, o)[0]
    if list(struct.unpack_from('<%dI' % n, h, o + 4)) == base:
        flags = struct.unpack_from('<I', h, o + 140)[0]
        try:
            d = open(img + '.demand', 'rb').read()
            serving = struct.unpack_from('<I', d, 12)[0] >> i & 1
            reads = struct.unpack_from('<Q', d, 24 + 8 * i)[0]
        except (OSError, struct.error):
            serving, reads = '-', '-'
        print(flags, serving, reads)
PY
}
withdrawn() { [ "$(sec | cut -d' ' -f1)" = 1 ]; }
served() { [ "$(sec | cut -d' ' -f1-2)" = "0 1" ]; }

check "tcp unread: idle" wait_for "$(slack 10)" idle
check "and its section withdrawn from the module ($(sec))" withdrawn

"$TCPCONNS" 4 3 0 >"$T/conns.1" 2>&1 &
CONNS=$!
wait_for 20 grep -q ready "$T/conns.1" || bail "tcpconns did not start"
lport=$(awk '/^conn/ { print $3; exit }' "$T/conns.1")
mine() { walk "$clusterMonTcpConnLocalPort" | awk -v p="$lport" '$2 == p' | wc -l; }
is "$(mine)" 3 "the first walk after idle (answered by clustermond) has the 3 new connections"
check "the section is back, and the module serves it ($(sec))" wait_for "$(slack 4)" served

r0=$(sec | cut -d' ' -f3)
for i in $(seq 16); do mine >/dev/null; sleep 0.5; done
r1=$(sec | cut -d' ' -f3)
check "8 s of walks through the module: it counted them ($r0 -> $r1)" test "$r1" -gt "$r0"
is "$(state)" 2 "and they alone kept tcp sampling, past its 3 s hold"

check "unread, the section is withdrawn again" wait_for "$(slack 10)" withdrawn
check "and tcp idle" wait_for "$(slack 8)" idle
kill "$CONNS" 2>/dev/null
finish
