#!/bin/bash
# getload.sh - issue 30's GET latency and memory under load, with the image
# published as installed: the p99 of GET clusterMonCpuUtil.1 through AgentX
# (the master clustermond is attached to) and through clustermon.so (a
# second snmpd reading only the image), while proc samples every 10 ms over
# 10,000 processes (helper-fed) and tcp every 200 ms over 20,000 sockets,
# against the idle p99 (the same processes and sockets, every source at
# 60 s) in the same invocation; then the image's bytes against the bytes
# of its sections' data, and clustermond's RSS; each clustermond thread's
# CPU over both windows. Figures with a target end in "(target ...)".
. "$(dirname "$0")/../system/lib.sh"
image_on_tmpfs || bail "cannot mount a tmpfs for the image (as /run is)"
[ "$(id -u)" -eq 0 ] || bail "needs root to load BPF programs"
[ -x "$KPROBE_HELPER" ] || bail "clustermon-kprobe is not built"
IDLE=${IDLE:-10000} SOCKETS=${SOCKETS:-20000} N=${N:-2000}
GETLAT="$top_builddir/tests/system/getlat"

ALARM=3600 start_idlers "$IDLE" || bail "the $IDLE idle processes did not start"
(sleep 3000; kill "$idlers") 2>/dev/null &
open_conns $(( SOCKETS / 2 ))
start_master >/dev/null || bail "snmpd did not start"
start_helper >/dev/null || bail "clustermon-kprobe did not start"
PORT2=$(free_udp_port) || bail "no free UDP port"
TARGET2="127.0.0.1:$PORT2"
printf 'agentAddress udp:%s\nrocommunity public 127.0.0.1\ndlmod clustermon %s\nclustermonSnapshot %s\n' \
	"$TARGET2" "$MODULE" "$IMAGE" >"$T/snmpd2.conf"
"$SNMPD" -f -C -c "$T/snmpd2.conf" -LF 0-4 "$T/snmpd2.log" -p "$T/snmpd2.pid" \
	-I -smux,mteTrigger,mteTriggerConf &
M2=$!
trap 'kill -9 $M2 2>/dev/null; kill "${CONNS[@]}" "$idlers" 2>/dev/null; cleanup' EXIT

threads() { for t in /proc/"$AGENT_PID"/task/*; do
	echo "$(cat "$t/comm") $(cat "$t/schedstat" | cut -d' ' -f1)"; done | sort; }
# run LABEL PROC_MS TCP_MS: clustermond at those intervals; sets P99_AX and
# P99_MOD (us) from N GETs through each path, alternating, after a settle.
run() {
	local t0 t1
	printf 'helperSocket %s\nsampleInterval proc %s\nsampleInterval tcp %s\n' \
		"$HELPER_SOCK" "$2" "$3" >"$T/bench.conf"
	AGENT_WAIT=60 start_agent -c "$T/bench.conf" >/dev/null || bail "clustermond did not register"
	wait_for 90 sh -c "[ \$(snmpget -v2c -c public -On -Oqv $TARGET $clusterMonProcCount.0) -ge $IDLE ]"
	wait_for 30 sh -c "snmpget -v2c -c public -On -Oqv $TARGET2 $clusterMonCpuUtil.1 | grep -q '^[0-9]'" ||
		bail "the module does not serve clusterMonCpuUtil.1"
	sleep 3
	threads >"$T/cpu0"; t0=$(date +%s%N)
	: >"$T/ax" ; : >"$T/mod"
	for _ in 1 2 3 4; do
		"$GETLAT" "$TARGET" $((N / 4)) 100 "$clusterMonCpuUtil.1" >>"$T/ax.raw"
		"$GETLAT" "$TARGET2" $((N / 4)) 100 "$clusterMonCpuUtil.1" >>"$T/mod.raw"
	done
	t1=$(date +%s%N); threads >"$T/cpu1"
	echo "-- $1 (proc $2 ms, tcp $3 ms), $(( (t1 - t0) / 1000000 )) ms of GETs:"
	join "$T/cpu0" "$T/cpu1" | awk -v ns=$((t1 - t0)) \
		'{ printf "   thread %-11s %6.2f%% of a core\n", $1, ($3 - $2) * 100 / ns }'
	# The p99 of four runs of N/4: their worst p99 (getlat prints one per run).
	P99_AX=$(awk '{ if ($8 > m) m = $8 } END { print m + 0 }' "$T/ax.raw")
	P99_MOD=$(awk '{ if ($8 > m) m = $8 } END { print m + 0 }' "$T/mod.raw")
	echo "   AgentX:        $(tail -n 4 "$T/ax.raw" | awk '{ a += $2; o += $4; if ($10 > x) x = $10 } END { printf "answered %d, over 100 ms %d, max %d us", a, o, x }'), p99 $P99_AX us"
	echo "   clustermon.so: $(tail -n 4 "$T/mod.raw" | awk '{ a += $2; o += $4; if ($10 > x) x = $10 } END { printf "answered %d, over 100 ms %d, max %d us", a, o, x }'), p99 $P99_MOD us"
	rm -f "$T/ax.raw" "$T/mod.raw"
}
# The image's header: the bytes of each section's data in use (sec[i].len)
# against the file's size; image/image.h's layout, native order.
image_bytes() {
	python3 - "$IMAGE" <<'PY'
import os, struct, sys
p = sys.argv[1]
with open(p, "rb") as f:
    h = f.read(4096)
nsec = struct.unpack_from("=I", h, 44)[0]
SEC, AT = 168, 56      # sizeof(struct cm_image_section), offsetof(header, sec)
used = sum(struct.unpack_from("=I", h, AT + i * SEC + 136)[0] for i in range(nsec))
print(used, os.path.getsize(p))
PY
}

run "idle" 60000 60000
IDLE_AX=$P99_AX IDLE_MOD=$P99_MOD
stop_agent
run "under load" 10 200
awk -v i="$IDLE_AX" -v l="$P99_AX" 'BEGIN { printf "p99 GET through AgentX under load / idle: %.2f (%d / %d us) (target <= 1.5)\n", l / i, l, i }'
awk -v i="$IDLE_MOD" -v l="$P99_MOD" 'BEGIN { printf "p99 GET through clustermon.so under load / idle: %.2f (%d / %d us) (target <= 1.5)\n", l / i, l, i }'
read -r used size <<<"$(image_bytes)"
echo "sockets: $(ss -tH state established | wc -l) established; processes in the table: $(get "$clusterMonProcCount.0")"
awk -v u="$used" -v s="$size" 'BEGIN { printf "image: %d bytes for %d bytes of section data: %.2f (target <= 1.3)\n", s, u, s / u }'
rss=$(agent_rss)
awk -v r="$rss" 'BEGIN { printf "clustermond RSS: %.1f MB (target < 64)\n", r / 1024 }'
echo "snmpd with clustermon.so RSS: $(awk '/^VmRSS:/ { printf "%.1f MB", $2 / 1024 }' /proc/$M2/status)"
stop_agent
