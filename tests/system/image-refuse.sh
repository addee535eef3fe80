#!/bin/bash
# image-refuse.sh - clustermon.so serves an image only when it is the file
# itself, owned by root or clustermond's user and writable by its owner
# alone, and only when its sections fit in 256 MiB of snmpd's memory (issue
# 40): a symbolic link, another user's image, a group-writable one and one
# whose every section claims 256 MiB in a sparse file are each refused with a logged
# reason while snmpd keeps answering. A root-owned copy kept alive by the
# same means is served, so each refusal is the check's and not staleness.
. "$(dirname "$0")/lib.sh"

[ -f "$MODULE" ] || bail "no $MODULE (make builds it)"
[ "$(id -u)" -eq 0 ] || skip_all "needs root to give the image to another user"
id nobody >/dev/null 2>&1 || skip_all "no user nobody on this machine"
command -v python3 >/dev/null || missing_all "python3 is missing"
plan 15
# This test reads clusterMonCpuTable through the module: cpu pinned to its
# timer, so its section is always offered (demand.sh tests the other way).
echo "sampleInterval cpu 100 always" >>"$T/conf/clustermond.local.conf"
add_module
start_master || bail "snmpd did not start with clustermon.so"
start_agent || bail "clustermond did not register"

IFS=. read -r -a cpu_arcs <<<"${clusterMonCpuTable#.}"
cpu_table_by_module() {
	snmpwalk -v2c -c public -t 2 -r 1 -On "$TARGET" .1.3.6.1.4.1.8072.1.2.1.1.4 2>/dev/null |
		grep -q "\\.${#cpu_arcs[@]}$clusterMonCpuTable\\.[0-9]* = STRING: \"clustermon\""
}
not_by_module() { ! cpu_table_by_module; }
check "the module serves clusterMonCpuTable from clustermond's image" wait_for 5 cpu_table_by_module
cp --sparse=always "$IMAGE" "$T/copy"
stop_agent
chmod 0640 "$T/copy"

# keep_alive FILE: its heartbeat kept fresh (and state live) for 6 s.
keep_alive() { python3 "$top_srcdir/tests/system/image_corrupt.py" "$1" 6 0 >/dev/null & ALIVE=$!; }
# Not a bare wait: that would wait for snmpd too.
done_alive() { wait "$ALIVE" 2>/dev/null; }
# install FILE: FILE becomes the image at the module's path (a new inode,
# which the module opens at its next check).
install_image() { mv -f -T "$1" "$IMAGE"; }
logged() { grep -qF -- "$1" "$T/snmpd.log"; }
uptime_ok() { snmpget -v2c -c public -t 1 -r 0 "$TARGET" .1.3.6.1.2.1.1.3.0 >/dev/null 2>&1; }

cp --sparse=always "$T/copy" "$T/good"
install_image "$T/good"
keep_alive "$IMAGE"
check "a root-owned 0640 copy kept alive is served" wait_for 5 cpu_table_by_module
done_alive

refused() { # refused WHAT REASON
	check "$1: refused, logged: $2" wait_for 5 logged "$2"
	check "$1: the module serves nothing of it" wait_for 5 not_by_module
	check "$1: snmpd answers sysUpTime.0" uptime_ok
}

cp --sparse=always "$T/copy" "$T/target"
keep_alive "$T/target"
ln -s "$T/target" "$T/link"
install_image "$T/link"
refused "a symbolic link to a good image" "not serving $IMAGE: a symbolic link"
done_alive

cp --sparse=always "$T/copy" "$T/other"
chown nobody "$T/other"
install_image "$T/other"
keep_alive "$IMAGE"
refused "an image owned by nobody" "owned by uid $(id -u nobody), neither root nor clustermon"
done_alive

cp --sparse=always "$T/copy" "$T/gw"
chmod 0660 "$T/gw"
install_image "$T/gw"
keep_alive "$IMAGE"
refused "a group-writable image" "mode 0660: writable by its group or others"
done_alive

# Every section claims 256 MiB (the most one may) and the file is made
# as long, sparse: GiBs of copies without the budget.
cp --sparse=always "$T/copy" "$T/huge"
python3 - "$T/huge" <<'PY'
import os, struct, sys
SEC, SEC_SIZE, CAP, OFF = 56, 184, 144, 152   # struct cm_image_header, image/image.h
with open(sys.argv[1], "r+b") as f:
    f.seek(44)
    n, = struct.unpack("=I", f.read(4))
    end = 0
    for i in range(n):
        f.seek(SEC + SEC_SIZE * i + OFF)
        off, = struct.unpack("=Q", f.read(8))
        f.seek(SEC + SEC_SIZE * i + CAP)
        f.write(struct.pack("=Q", 256 << 20))
        end = max(end, off + (256 << 20))
    f.truncate(end + (1 << 20))
PY
install_image "$T/huge"
keep_alive "$IMAGE"
refused "an image whose sections claim 256 MiB each" "its sections would take more than 256 MiB to copy"
done_alive
is "$(ps -o rss= -p "$MASTER_PID" | awk '{ print ($1 < 262144) }')" 1 "snmpd did not grow to 256 MiB ($(ps -o rss= -p "$MASTER_PID") KiB)"
finish
