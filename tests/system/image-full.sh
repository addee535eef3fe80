#!/bin/bash
# image-full.sh - the image's directory on a tmpfs too small for it: the
# file cannot be made, and later cannot grow. clustermond logs one line
# naming the path and the size, stops publishing (clustermon.so steps
# aside), keeps answering through AgentX, and publishes again once space is
# freed; snmpd stays alive throughout.
. "$(dirname "$0")/lib.sh"

[ -f "$MODULE" ] || bail "no $MODULE (make builds it)"
SMALL="$T/small"
mkdir -p "$SMALL"
mount -t tmpfs -o size=4m,mode=1777 clustermon-test "$SMALL" 2>/dev/null ||
	missing_all "cannot mount a tmpfs (needs root or CAP_SYS_ADMIN)"
# snmpd holds the image open: it goes first.
trap 'stop_agent; stop_master; umount "$SMALL" 2>/dev/null; cleanup' EXIT
plan 13
IMAGE="$SMALL/image"
echo "snapshotFile $IMAGE" >"$T/conf/clustermond.local.conf"
# Sampled unread (pinned): the sections must grow with the processes.
printf 'sampleInterval cpu 100 always\nsampleInterval proc 1000 always\n' >>"$T/conf/clustermond.local.conf"
# The tmpfs full but for 64 kB: less than any image takes.
fill() { dd if=/dev/zero of="$SMALL/filler" bs=64k count=$(( $1 / 64 )) status=none 2>/dev/null; }
fill $(( 4096 - 64 ))
add_module
start_master || bail "snmpd did not start with clustermon.so"
start_agent || bail "clustermond did not register"

served() {
	snmpwalk -v2c -c public -t 2 -r 1 -On "$TARGET" .1.3.6.1.4.1.8072.1.2.1.1.4 2>/dev/null |
		grep -c '"clustermon"'
}
registered() { [ "$(served)" -gt 0 ]; }
unregistered() { [ "$(served)" -eq 0 ]; }
cpu_rows() {
	snmpgetnext -v2c -c public -t 2 -r 1 -On "$TARGET" "$clusterMonCpuTable" 2>/dev/null |
		grep -q "^$clusterMonCpuTable\\.1\\.[0-9]*\\.1 = "
}
no_space() { grep -c "snapshotFile $IMAGE: cannot $1 ([0-9]* bytes): No space left on device" \
	"$T/clustermond.log"; }

check "no room for the image: clustermond logs the path and the size" \
	wait_for 5 sh -c "grep -q 'snapshotFile $IMAGE: cannot make the image ([0-9]* bytes): No space left' $T/clustermond.log"
grep 'No space' "$T/clustermond.log" | sed 's/^/# /'
sleep 6   # a retry
is "$(no_space 'make the image')" 1 "one line, not one per retry"
check "clustermond answers through AgentX meanwhile (clusterMonCpuTable)" cpu_rows
check "the module serves nothing" unregistered
check "no half-made file is left on the full filesystem" \
	test -z "$(find "$SMALL" -name 'image*' -print -quit)"
rm -f "$SMALL/filler"
# A retry every 5 s, then the module's check every second.
check "space freed: clustermond publishes again and the module serves it" wait_for 20 registered
[ -f "$IMAGE" ] || bail "no image published: $(tail -n 2 "$T/clustermond.log")"

# --- a section outgrows its room while the filesystem is full
fill $(( 4096 - 64 - $(du -k "$IMAGE" | cut -f1) ))
pids=()
for _ in $(seq 1 800); do sleep 300 & pids+=($!); done
check "no room to grow: clustermond logs the path and the size" \
	wait_for 10 sh -c "grep -q 'snapshotFile $IMAGE: cannot grow the image ([0-9]* bytes): No space left' $T/clustermond.log"
check "and stops publishing: the module steps aside" wait_for 5 unregistered
check "clustermond answers through AgentX meanwhile" cpu_rows
rm -f "$SMALL/filler"
check "space freed: publishing resumes" wait_for 20 registered
kill "${pids[@]}" 2>/dev/null; wait "${pids[@]}" 2>/dev/null
check "snmpd and clustermond are alive" kill -0 "$MASTER_PID" "$AGENT_PID"
check "clustermond logged each failure once" test "$(no_space 'grow the image')" -eq 1
stop_agent
stop_master
umount "$SMALL"
check "the tmpfs is unmounted" sh -c "! mountpoint -q $SMALL"
finish
