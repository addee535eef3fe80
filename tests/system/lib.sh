# lib.sh - shared by the system tests: TAP output, a private snmpd master on a
# free loopback port with its own AgentX socket, and clustermond against it.
# Sourced by bash scripts; everything lives in one temp dir removed at exit.

set -u
: "${top_srcdir:=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
# Run from a build directory (as make check does) or from the source tree.
if [ -z "${top_builddir:-}" ]; then
	if [ -x subagent/clustermond ]; then top_builddir=$PWD; else top_builddir=$top_srcdir; fi
fi
CLUSTERMOND="$top_builddir/subagent/clustermond"
KPROBE_HELPER="$top_builddir/kprobe-helper/clustermon-kprobe"
SNMPD="${SNMPD:-$(command -v snmpd || echo /usr/sbin/snmpd)}"
# snmptrapd, nagios4, snmptt and debootstrap live in sbin, which a user's PATH lacks.
case ":$PATH:" in *:/usr/sbin:*) ;; *) PATH=$PATH:/usr/sbin:/sbin ;; esac
# The MIB's nodes by name, numerically ($clusterMonCpuUtil is
# .1.3.6.1.4.1.8072.9999.77.1.3.20.1.10): from the header the build generates
# from the MIB (mibs/gen-oids.awk), so tests need no MIB files at run time.
CM_OIDS_H="$top_builddir/subagent/mib/cm-oids.h"
if [ ! -f "$CM_OIDS_H" ]; then
	echo "Bail out! no $CM_OIDS_H: build first (make)"
	exit 1
fi
eval "$(sed -n 's/^#define CM_OID_\([A-Za-z0-9]*\) \([0-9, ]*\)$/\1=.\2/p' "$CM_OIDS_H" | sed 's/, /./g')"
CM=$clusterMonObjects

T=$(mktemp -d /tmp/clustermon-test.XXXXXX)
# No MIB modules by default: tests use numeric OIDs, and a machine without the
# IETF base modules would otherwise print pages of parse errors.
# net-snmp reads persistent files only from directories on the config path
# (its default path ends with the persistent directory).
export MIBS= SNMP_PERSISTENT_DIR="$T/persist" SNMPCONFPATH="$T/conf:$T/persist"
mkdir -p "$SNMP_PERSISTENT_DIR" "$T/conf"
# Every agent publishes its image for the fast read path (clustermon.so) in
# a directory an agent that drops to nobody can create files in; a test's
# own clustermond.conf cannot undo it by accident (.local.conf is read too).
IMAGE="$T/run/image"
MODULE="$top_builddir/dlmod/clustermon.so"
mkdir -m 1777 "$T/run"
echo "snapshotFile $IMAGE" >"$T/conf/clustermond.local.conf"
MASTER_PID= AGENT_PID= HELPER_PID=

tap_n=0 tap_failed=0
# One test point more than asked: finish checks clustermond's stderr for
# sanitizer and valgrind reports.
tap_planned=
plan() { tap_planned=$(( $1 + 1 )); echo "1..$tap_planned"; }
ok() { # ok CONDITION-EXIT-STATUS DESCRIPTION
	tap_n=$((tap_n + 1))
	if [ "$1" -eq 0 ]; then echo "ok $tap_n - $2"
	else echo "not ok $tap_n - $2"; tap_failed=$((tap_failed + 1)); fi
}
check() { # check DESCRIPTION COMMAND...: ok if the command succeeds
	local d=$1; shift
	"$@" >/dev/null 2>&1; ok $? "$d"
}
is() { # is GOT WANT DESCRIPTION
	[ "$1" = "$2" ]; local rc=$?
	ok $rc "$3"
	[ $rc -eq 0 ] || diag "got '$1', want '$2'"
}
skip() { tap_n=$((tap_n + 1)); echo "ok $tap_n # SKIP $1"; }
diag() { echo "# $*"; }
# skip_all belongs before the plan (TAP allows one plan line); after it, the
# planned points are skipped one by one so the output stays valid TAP.
skip_all() {
	if [ -z "$tap_planned" ]; then echo "1..0 # SKIP $1"; exit 0; fi
	while [ "$tap_n" -lt "$tap_planned" ]; do skip "$1"; done
	exit 0
}
# A tool that tests/setup-deps.sh installs and README promises is missing: a
# skip on a developer's machine, a failure in CI (CI=true), where a quiet SKIP
# would hide a broken set-up step. missing_all goes before any plan line;
# missing stands for one test point.
missing_all() {
	if [ "${CI:-}" = true ]; then
		[ -n "$tap_planned" ] || echo "1..1"
		ok 1 "$1 (CI=true: tests/setup-deps.sh should have installed it)"
		exit 1
	fi
	skip_all "$1"
}
# need_helper: before the plan in tests that run clustermon-kprobe.
need_helper() {
	[ -x "$KPROBE_HELPER" ] ||
		missing_all "clustermon-kprobe is not built (configure --disable-helper, or clang, bpftool or libbpf-dev missing)"
}
missing() {
	if [ "${CI:-}" = true ]; then
		ok 1 "$1 (CI=true: tests/setup-deps.sh should have installed it)"
	else skip "$1"; fi
}
bail() { echo "Bail out! $*"; tap_failed=$((tap_failed + 1)); exit 1; }   # cleanup shows the logs

cleanup() {
	# For the suite's schedule (tests/run-suite.sh orders by it).
	echo "# elapsed: $SECONDS s"
	stop_agent
	[ -n "$AGENT_PID" ] && kill -9 "$AGENT_PID" 2>/dev/null
	[ -n "$MASTER_PID" ] && kill -9 "$MASTER_PID" 2>/dev/null
	stop_helper
	[ -n "${TRAPD_PID:-}" ] && kill -9 "$TRAPD_PID" 2>/dev/null
	# Helpers a test started in the background and named here: the wait
	# below must not hang on one.
	[ -n "${BG_PIDS:-}" ] && kill -9 $BG_PIDS 2>/dev/null
	[ ${#CONNS[@]} -gt 0 ] && kill -9 "${CONNS[@]}" 2>/dev/null   # open_conns' holders
	release_udp_port
	wait 2>/dev/null
	# oom_cgroup's directories, innermost first (empty now: the hog is gone).
	local d
	for d in ${OOM_CG_DIRS:-}; do rmdir "$d" 2>/dev/null; done
	[ -n "${IMAGE_TMPFS:-}" ] && umount "$T/run" 2>/dev/null
	if [ "$tap_failed" -gt 0 ]; then
		for f in "$T"/*.log "$T"/*.stderr; do [ -s "$f" ] && { diag "--- $f"; sed 's/^/#   /' "$f" | tail -n 30; }; done
	fi
	[ "$tap_failed" -gt 0 ] && [ -n "${KEEP_FAILED:-}" ] && cp -a "$T" "$KEEP_FAILED/" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT

# image_on_tmpfs: $T/run (where IMAGE is) on a tmpfs of its own, as the
# installed path is (/run): the benchmarks' figures are then the product's,
# not a disk filesystem's block allocation (ext4 took 10% of the
# publisher's samples in a profile). Needs root.
image_on_tmpfs() {
	mkdir -p "$T/run" && mount -t tmpfs -o size=512m,mode=0755 cmbench "$T/run" && IMAGE_TMPFS=1
}

# free_port u|t [SPAN]: a UDP or TCP port in 20000..20000+SPAN-1 (SPAN
# 30000 unless told) on which nothing listens.
free_port() {
	local p
	for _ in $(seq 1 50); do
		p=$((20000 + RANDOM % ${2:-30000}))
		ss -Hl"$1"n "sport = :$p" 2>/dev/null | grep -q . || { echo "$p"; return 0; }
	done
	return 1
}
free_udp_port() { free_port u; }
# Below 32768: zabbix_server takes ListenPort 1024-32767 only.
free_tcp_port() { free_port t 12000; }

# hold_udp_port: PORT, held by a process bound to it (PORT_HOLDER) until
# start_master starts snmpd there. A port free when the test starts need not
# be free when its master starts: Zabbix's set-up takes two minutes, and in
# CI 10 another process had the port by then. The holder goes with the test.
hold_udp_port() {
	local p
	for _ in $(seq 1 20); do
		p=$(free_udp_port) || return 1
		: >"$T/port.held"
		python3 -c 'import os, socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.1", int(sys.argv[1])))
print("held", flush=True)
parent = os.getppid()
while os.getppid() == parent:
    time.sleep(1)' "$p" >"$T/port.held" 2>/dev/null &
		PORT_HOLDER=$!
		for _ in $(seq 1 200); do
			[ -s "$T/port.held" ] && { PORT=$p; return 0; }
			kill -0 "$PORT_HOLDER" 2>/dev/null || break
			sleep 0.01
		done
		release_udp_port
	done
	return 1
}
release_udp_port() {
	[ -n "${PORT_HOLDER:-}" ] || return 0
	kill "$PORT_HOLDER" 2>/dev/null
	wait "$PORT_HOLDER" 2>/dev/null
	PORT_HOLDER=
}
hold_udp_port || bail "no free UDP port"
AGENTX="unix:$T/agentx.sock"
TARGET="127.0.0.1:$PORT"

write_master_conf() {
	cat >"$T/snmpd.conf" <<EOC
agentAddress udp:$TARGET
master agentx
agentXSocket $AGENTX
agentXPerms 0660 0770
rocommunity public 127.0.0.1
rwcommunity private 127.0.0.1
EOC
}

# add_reader_v3: a read-only SNMPv3 authPriv user cmadmin in the master's
# config (SHA-256 "cm-auth-passphrase", AES "cm-priv-passphrase").
add_reader_v3() {
	cat >>"$T/snmpd.conf" <<EOC
createUser cmadmin SHA-256 "cm-auth-passphrase" AES "cm-priv-passphrase"
rouser cmadmin priv
EOC
}

# add_module: the master loads clustermon.so and answers clustermond's
# read-only objects from its image.
add_module() {
	[ -f "$T/snmpd.conf" ] || write_master_conf
	printf 'dlmod clustermon %s\nclustermonSnapshot %s\n' "$MODULE" "$IMAGE" >>"$T/snmpd.conf"
}

start_master() {
	[ -f "$T/snmpd.conf" ] || write_master_conf
	release_udp_port
	"$SNMPD" -f -C -c "$T/snmpd.conf" -LF 0-4 "$T/snmpd.log" -p "$T/snmpd.pid" \
		-I -smux,mteTrigger,mteTriggerConf &
	MASTER_PID=$!
	wait_for "$(slack 5)" snmpget -v2c -c public -t 0.3 -r 0 "$TARGET" .1.3.6.1.2.1.1.3.0
}

stop_master() {
	[ -n "$MASTER_PID" ] && kill -9 "$MASTER_PID" 2>/dev/null && wait "$MASTER_PID" 2>/dev/null
	MASTER_PID=
}

# CLUSTERMOND_WRAPPER (e.g. "valgrind -q --error-exitcode=99") runs the agent under a tool.
# It returns once the agent answers and has logged that it started: net-snmp
# answers requests for the groups already registered while it still
# registers the rest, before the privilege drop that follows. (-Lf empties
# the log when it opens it, before the agent can answer: a "started" line is
# this run's.)
start_agent() { # start_agent [extra clustermond args...]
	${CLUSTERMOND_WRAPPER:-} "$CLUSTERMOND" -f -Lf "$T/clustermond.log" -x "$AGENTX" \
		-p "$T/clustermond.pid" "$@" 2>>"$T/clustermond.stderr" &
	AGENT_PID=$!
	wait_for "${AGENT_WAIT:-$(slack 5)}" get "$CM.1.1.0" &&
		wait_for "${AGENT_WAIT:-$(slack 5)}" grep -q ' started$' "$T/clustermond.log"
}

# stop_pid PID: SIGTERM, so sanitizers and valgrind see a normal exit and
# report leaks; SIGKILL if it is still there after 5 s.
stop_pid() {
	kill -TERM "$1" 2>/dev/null
	for _ in $(seq 1 50); do kill -0 "$1" 2>/dev/null || break; sleep 0.1; done
	kill -9 "$1" 2>/dev/null
	wait "$1" 2>/dev/null
}

stop_agent() {
	[ -n "$AGENT_PID" ] || return 0
	stop_pid "$AGENT_PID"
	AGENT_PID=
}

# start_helper [extra clustermon-kprobe args...]: the eBPF helper in the
# foreground on $T/kprobe.sock (its maps pinned under a bpffs dir of its own,
# its traces under $T/traces unless a later -t says otherwise).
HELPER_SOCK="$T/kprobe.sock"
start_helper() {
	"$KPROBE_HELPER" -f -s "$HELPER_SOCK" -b "/sys/fs/bpf/cmtest-${T##*.}" -t "$T/traces" "$@" \
		2>>"$T/kprobe.log" &
	HELPER_PID=$!
	wait_for "$(slack 5)" helper_say hello
}

# probe_progs ID: the ids of the BPF programs that use the counters of the
# helper's probe ID (found through the map the helper pins for it), one a
# line; nothing when the probe is not there. Exact where counting programs
# by name would see other helpers on the machine.
probe_progs() {
	local map
	map=$(bpftool -j map show pinned "/sys/fs/bpf/cmtest-${T##*.}/probe-$1" 2>/dev/null |
		python3 -c 'import json, sys; print(json.load(sys.stdin)["id"])' 2>/dev/null) || return 0
	bpftool -j prog show | python3 -c '
import json, sys
for p in json.load(sys.stdin):
    if '"$map"' in p.get("map_ids", []):
        print(p["id"])'
}
# progs_alive IDS...: how many of these program ids the kernel still has.
progs_alive() {
	local n=0 id
	for id in "$@"; do bpftool prog show id "$id" >/dev/null 2>&1 && n=$((n + 1)); done
	echo "$n"
}

# helper_say TEXT: sends TEXT (printf escapes allowed) to the helper's
# control socket, shuts the write side and prints the whole reply.
helper_say() {
	printf "$1" | python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.settimeout(5)
s.connect(sys.argv[1])
s.sendall(sys.stdin.buffer.read())
s.shutdown(socket.SHUT_WR)
out = b""
while True:
    d = s.recv(65536)
    if not d:
        break
    out += d
sys.stdout.write(out.decode())' "$HELPER_SOCK"
}

# SIGTERM: the helper detaches every probe and removes its socket.
stop_helper() {
	[ -n "$HELPER_PID" ] || return 0
	stop_pid "$HELPER_PID"
	rmdir "/sys/fs/bpf/cmtest-${T##*.}" 2>/dev/null
	HELPER_PID=
}

# TIME_SLACK: how many times a product's real-time bound (re-registration
# within a ping interval, an answer while the subagent hangs) a `make check`
# test allows. Those verdicts must not depend on the machine's load (two
# builds' suites, fuzzers and other users share two CPUs), so they judge the
# bound times TIME_SLACK, still well short of what a broken product takes,
# and print the figure. TIME_SLACK=1 judges the bound itself (docs/testing.md).
TIME_SLACK=${TIME_SLACK:-5}
# slack MS: MS times TIME_SLACK.
slack() { echo $(( $1 * TIME_SLACK )); }

# wait_for SECONDS COMMAND...: retry every 0.1 s until the command succeeds.
wait_for() {
	local limit=$(( $1 * 10 )) i=0; shift
	while [ $i -lt $limit ]; do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.1; i=$((i + 1))
	done
	return 1
}

# get OID: the value alone; fails on noSuchObject/noSuchInstance or no answer.
get() {
	local out
	out=$(snmpget -v2c -c public -t 1 -r 1 -On -Oqv -Oe -OU -Ot "$TARGET" "$1" 2>&1) || return 1
	case "$out" in *"No Such"*|*"Timeout"*|*"No Response"*) echo "$out" >&2; return 1;; esac
	echo "$out"
}

# polled_samples SOURCE-INDEX OID: a poller of OID every 2 s (a GET, then
# five more 2 s apart, the first 2.5 s later); prints how many samples the
# source took over those five (clusterMonSourceSamples), which read
# everything else it read before the first.
polled_samples() {
	local a b
	get "$2" >/dev/null; sleep 2.5
	a=$(get "$clusterMonSourceEntry.5.$1")
	for _ in 1 2 3 4 5; do get "$2" >/dev/null; sleep 2; done
	b=$(get "$clusterMonSourceEntry.5.$1")
	echo $((b - a))
}

# kernel_cpu_ns PID: CPU time of all of PID's threads as the kernel counts
# it (schedstat's run time, summed).
kernel_cpu_ns() { cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{ n += $1 } END { printf "%.0f\n", n }'; }

# fresh_cpu OID PID: the served CPU-time counter OID of PID from a sample
# that began after this call did, bracketed by the kernel's count before
# and after: "KB C KA". The second value to differ from the first GET's is
# such a sample (a source swaps one in before it starts the next), however
# late samples run on a loaded machine: a served value can be far older
# than one interval (in CI 13, under ASan with two suites, enough to move a
# 2 s rate to 1752 per mille).
fresh_cpu() {
	local kb c0 c seen=0 i=0
	kb=$(kernel_cpu_ns "$2"); c0=$(get "$1") || return 1
	while [ "$seen" -lt 2 ] && [ "$i" -lt 300 ]; do
		sleep 0.03; i=$((i + 1))
		c=$(get "$1") || continue
		[ "$c" != "$c0" ] && { seen=$((seen + 1)); c0=$c; }
	done
	[ "$seen" -eq 2 ] || return 1
	echo "$kb $c $(kernel_cpu_ns "$2")"
}

# cpu_growth OID PID SECONDS: how the served counter grew over about
# SECONDS against the kernel's: "D LO HI SHARE C K", D the served growth,
# LO..HI what the kernel's allows given when the two samples can have been
# taken, SHARE the kernel's per mille of one CPU, C and K the last served
# and kernel totals. Empty when no fresh sample came.
cpu_growth() {
	local t0 t1 kb0 c0 ka0 kb1 c1 ka1
	t0=$(date +%s%N); read -r kb0 c0 ka0 < <(fresh_cpu "$1" "$2")
	sleep "$3"
	read -r kb1 c1 ka1 < <(fresh_cpu "$1" "$2"); t1=$(date +%s%N)
	[ -n "$c0" ] && [ -n "$c1" ] || return 1
	echo $(( c1 - c0 )) $(( kb1 - ka0 )) $(( ka1 - kb0 )) $(( (ka1 - kb0) * 1000 / (t1 - t0) )) "$c1" "$ka1"
}

# within PERMILLE D LO HI: D is in LO..HI widened by PERMILLE.
within() { [ -n "$2" ] && [ $(( $2 * 1000 )) -ge $(( $3 * (1000 - $1) )) ] && [ $(( $2 * 1000 )) -le $(( $4 * (1000 + $1) )) ]; }

# get_raw OID: whatever snmpget prints (for error tests).
get_raw() { snmpget -v2c -c public -t 1 -r 1 -On "$TARGET" "$@" 2>&1; }
walk() { snmpwalk -v2c -c public -t 2 -r 1 -On -Oq -Oe -OU -Ot "$TARGET" "$@" 2>&1; }
set_rw() { snmpset -v2c -c private -t 1 -r 1 -On "$TARGET" "$@" 2>&1; }
set_ro() { snmpset -v2c -c public -t 1 -r 1 -On "$TARGET" "$@" 2>&1; }

# The base MIB modules, wherever set-up put them, then the in-tree stand-ins
# for the few modules Debian cannot supply (used only if the real ones are absent).
mib_dirs() {
	local d dirs="$top_srcdir/mibs"
	for d in /usr/share/snmp/mibs /usr/share/snmp/mibs/ietf /usr/local/share/snmp/mibs; do
		[ -d "$d" ] && dirs="$dirs:$d"
	done
	echo "$dirs:$top_srcdir/tests/mibs"
}

finish() {
	stop_agent
	stop_helper
	# clients.log: what the tests ran of clustermonctl and check_clustermon said.
	if grep -q "Sanitizer\|runtime error\|== Invalid\|definitely lost: [1-9]" "$T/clustermond.stderr" "$T/kprobe.log" "$T/clients.log" 2>/dev/null; then
		ok 1 "clustermond ran without sanitizer or valgrind reports"
		cat "$T/clustermond.stderr" "$T/kprobe.log" "$T/clients.log" 2>/dev/null | sed 's/^/# /' | head -n 40
	else
		ok 0 "clustermond ran without sanitizer or valgrind reports"
	fi
	exit $(( tap_failed > 0 ))
}

contains() { grep -q -- "$1" <<<"$2"; }
lacks() { ! grep -qi -- "$1" <<<"$2"; }

# run_trapd: snmptrapd with $T/snmptrapd.conf on $TRAP_PORT, logging every
# trap with numeric OIDs to $T/traps.log, and a master config sending v2c
# traps there (start_master starts it).
run_trapd() {
	snmptrapd -f -C -c "$T/snmptrapd.conf" -On -Lf "$T/traps.log" -p "$T/snmptrapd.pid" \
		"udp:127.0.0.1:$TRAP_PORT" &
	TRAPD_PID=$!
	write_master_conf
	echo "trap2sink 127.0.0.1:$TRAP_PORT public" >>"$T/snmpd.conf"
	wait_for "$(slack 5)" grep -q "NET-SNMP version" "$T/traps.log"
}

# start_trapd: run_trapd on a free loopback port, accepting every trap.
start_trapd() {
	TRAP_PORT=$(free_udp_port) || return 1
	echo "disableAuthorization yes" >"$T/snmptrapd.conf"
	run_trapd
}

# traps OID [TEXT]: how many notifications of this snmpTrapOID value (and
# holding TEXT, e.g. a varbind's name) arrived.
traps() {
	grep -E "1\.3\.6\.1\.6\.3\.1\.1\.4\.1\.0 = OID: ${1//./\\.}([[:space:]]|\$)" "$T/traps.log" 2>/dev/null |
		grep -cF -- "${2:-}"
}

# oom_cgroup TAG: a memory cgroup laid out as a Slurm job's
# (slurm_TAG/uid_0/job_N, which clustermond names "slurm job N"), limited
# to 32 MiB with no swap, in the memory controller's hierarchy: v1's where
# it is mounted (a hybrid host), else the v2 tree whose cgroup.controllers
# has memory (Debian 12 boots pure v2).
# Sets OOM_CG (its path), OOM_REL (the path clusterMonOomKillCgroup gives:
# relative to that hierarchy's root), OOM_JOB (N), OOM_LIMIT (bytes) and
# CGV (1 or 2); cleanup removes it. Fails, saying why in OOM_WHY, without
# a memory controller or without root.
oom_cgroup() {
	local base d
	OOM_WHY=
	if [ -f /sys/fs/cgroup/memory/memory.limit_in_bytes ]; then
		CGV=1 base=/sys/fs/cgroup/memory
	elif grep -qw memory /sys/fs/cgroup/cgroup.controllers 2>/dev/null; then
		CGV=2 base=/sys/fs/cgroup
	elif grep -qw memory /sys/fs/cgroup/unified/cgroup.controllers 2>/dev/null; then
		CGV=2 base=/sys/fs/cgroup/unified
	else
		OOM_WHY="no memory controller in cgroup v1 or v2"
		return 1
	fi
	OOM_JOB=$((40000 + $$ % 10000))
	OOM_REL="slurm_$1/uid_0/job_$OOM_JOB"
	OOM_CG=$base/$OOM_REL
	OOM_LIMIT=$((32 << 20))
	OOM_CG_DIRS="$OOM_CG $base/slurm_$1/uid_0 $base/slurm_$1"
	mkdir -p "$OOM_CG" 2>/dev/null || { OOM_WHY="cannot make $OOM_CG (not root?)"; return 1; }
	if [ "$CGV" = 2 ]; then
		for d in "$base" "$base/slurm_$1" "$base/slurm_$1/uid_0"; do
			echo +memory >"$d/cgroup.subtree_control" 2>/dev/null
		done
		echo "$OOM_LIMIT" >"$OOM_CG/memory.max" || { OOM_WHY="cannot limit $OOM_CG"; return 1; }
		echo 0 >"$OOM_CG/memory.swap.max" 2>/dev/null
	else
		echo "$OOM_LIMIT" >"$OOM_CG/memory.limit_in_bytes" || { OOM_WHY="cannot limit $OOM_CG"; return 1; }
		echo "$OOM_LIMIT" >"$OOM_CG/memory.memsw.limit_in_bytes" 2>/dev/null
	fi
	return 0
}

# oom_watching: clustermond (with the helper) has mapped both of the
# helper's rings, the exit log's and the OOM victims' (their position pages
# rw): an OOM kill from now on is notified.
oom_watching() {
	wait_for 10 sh -c "[ \$(grep bpf-map /proc/$AGENT_PID/maps | grep -c ' rw') -ge 2 ]"
}

# oom_hog NAME: a process named NAME joins OOM_CG and allocates 256 MiB,
# eight times its limit; waits for it. NAME is python3 itself under that
# name, not a wrapper (pyenv shims dispatch on the name). Sets OOM_PID and
# OOM_T0 (its start, date +%s%N); returns its exit status, 137 when the OOM
# killer took it.
oom_hog() {
	ln -sf "$(python3 -c 'import os, sys; print(os.path.realpath(sys.executable))')" "$T/$1"
	OOM_T0=$(date +%s%N)
	sh -c "echo \$\$ >'$OOM_CG/cgroup.procs' && exec '$T/$1' -c 'a = bytearray(256 << 20)'" &
	OOM_PID=$!
	wait "$OOM_PID"
}

# open_conns N: N more established loopback connections from
# tests/system/tcpconns (which holds both ends, for up to 120 s), split over
# processes so each stays under the fd limit; their pids go to CONNS.
CONNS=()
open_conns() {
	local left=$1 n i=${#CONNS[@]} per
	ulimit -n "$(ulimit -Hn)"
	per=$(( ($(ulimit -n) - 100) / 2 )); [ "$per" -gt 5000 ] && per=5000
	while [ "$left" -gt 0 ]; do
		n=$(( left < per ? left : per ))
		"$top_builddir/tests/system/tcpconns" 4 "$n" 0 >"$T/conns.$i" 2>&1 &
		CONNS+=($!)
		wait_for 60 grep -q ready "$T/conns.$i" || bail "tcpconns did not open $n connections"
		left=$((left - n)) i=$((i + 1))
	done
}

# busy CPU SECONDS: one pinned busy loop that stops by itself; prints its pid.
busy() {
	timeout "$2" taskset -c "$1" sh -c 'while :; do :; done' >/dev/null 2>&1 &
	echo $!
}

# True when clustermond is built with AddressSanitizer: its RSS then grows
# with the quarantine of freed memory, so memory-growth checks mean nothing.
asan_build() { ldd "$CLUSTERMOND" 2>/dev/null | grep -q libasan; }
agent_rss() { awk '/^VmRSS:/ { print $2 }' "/proc/$AGENT_PID/status"; }

# steady_tables: before clustermond starts, in tests that judge its own
# memory (rss_steady) rather than its tables: the tables that follow the
# whole machine (processes, connections, cgroups) sampled once an hour, so
# that other tests and users starting thousands of processes beside this
# one do not move the RSS being judged.
steady_tables() {
	printf 'sampleInterval proc 3600000\nsampleInterval tcp 3600000\nsampleInterval cgroup 3600000\n' \
		>>"$T/conf/clustermond.local.conf"
}

# rss_settle: waits (up to two minutes) until clustermond's RSS and fds
# hold for 6 s: its first samples of those tables grow it at start, slowly
# on a loaded machine with thousands of processes. Under AddressSanitizer
# RSS never holds (its quarantine) and rss_steady does not judge it: only
# the fds are waited for there.
rss_settle() {
	local last= now same=0 asan=
	asan_build && asan=1
	for _ in $(seq 1 60); do
		now="$([ -n "$asan" ] || agent_rss) $(agent_fds)"
		if [ "$now" = "$last" ]; then same=$((same + 1)); else same=0; fi
		[ "$same" -ge 3 ] && return 0
		last=$now
		sleep 2
	done
	return 1
}

# rss_steady DESCRIPTION COMMAND...: ok when clustermond's RSS grows by 256 kB
# at most over one run of COMMAND (a round of the work that must not leak).
# RSS also holds the high-water mark of the process table, which follows the
# machine's own process churn: when the first round grew, a second round
# decides, because a leak grows again with the work and a high-water mark
# does not.
rss_steady() {
	local d=$1 r0 r1 r2 r3; shift
	if asan_build; then
		"$@"
		skip "$d: RSS under AddressSanitizer includes its quarantine; the -Werror build checks it"
		return
	fi
	r0=$(agent_rss); "$@"; r1=$(agent_rss)
	if [ "$r1" -le $((r0 + 256)) ]; then
		ok 0 "$d ($r0 -> $r1 kB)"
		return
	fi
	diag "RSS grew $r0 -> $r1 kB over one round; a second round decides"
	r2=$(agent_rss); "$@"; r3=$(agent_rss)
	[ "$r3" -le $((r2 + 256)) ]; ok $? "$d (first round $r0 -> $r1 kB, second $r2 -> $r3 kB)"
}

# agent_fds: clustermond's open fds but the /proc files the process table
# follows (they come and go with the machine's processes), the least of five
# looks 0.2 s apart: a connect attempt or a netlink dump holds one for a
# moment, and that is not growth.
agent_fds() {
	local n min=
	for _ in 1 2 3 4 5; do
		n=$(find "/proc/$AGENT_PID/fd" -mindepth 1 -printf '%l\n' 2>/dev/null | grep -vc '^/proc/')
		[ -z "$min" ] || [ "$n" -lt "$min" ] && min=$n
		sleep 0.2
	done
	echo "$min"
}

# bad DESCRIPTION LINE EXPECTED-REASON: clustermond started with a config
# file whose line 2 is LINE must exit non-zero naming file:line and REASON.
# Its output joins clustermond.stderr, so finish sees sanitizer reports.
bad() {
	printf '# a comment\n%s\n' "$2" >"$T/bad.conf"
	out=$(timeout 10 "$CLUSTERMOND" -f -Le -x "$AGENTX" -c "$T/bad.conf" 2>&1)
	rc=$?
	echo "$out" >>"$T/clustermond.stderr"
	[ $rc -ne 0 ] && contains "bad.conf: line 2:" "$out" && contains "$3" "$out"
	ok $? "$1 is refused at start-up (exit $rc)"
	[ $rc -ne 0 ] || diag "$out"
}

# refused DESCRIPTION WANT-ERROR SNMPSET-ARGS...: a SET with the rw
# community must fail with WANT-ERROR.
refused() {
	local d=$1 want=$2; shift 2
	local out; out=$(set_rw "$@")
	contains "$want" "$out"; ok $? "$d is $want"
	contains "$want" "$out" || diag "$out"
}

# Moves this test, and all it starts from here on, to the last CPU, so CPU 0
# moves only with the busy loop the test pins there (and whatever else the
# machine runs).
keep_cpu0_for_load() {
	command -v taskset >/dev/null || bail "taskset (util-linux) is missing"
	[ "$(nproc)" -ge 2 ] || skip_all "needs 2 CPUs: one for the busy loop, one for everything else"
	taskset -cp "$(( $(nproc) - 1 ))" $$ >/dev/null
}

# start_idlers N: N processes that pause, forked by one python (copy-on-write:
# a few pages each), for tests and benchmarks at 10,000 processes; $idlers is
# the python, whose SIGTERM ends them all; each ends by itself after ALARM
# seconds (default 600) whatever happens to the caller. Fails when they did
# not start.
start_idlers() {
	python3 -c '
import os, signal, sys
kids = []
for _ in range(int(sys.argv[1])):
    pid = os.fork()
    if pid == 0:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.alarm(int(sys.argv[2]))
        signal.pause()
        os._exit(0)
    kids.append(pid)
def stop(*_):
    for k in kids:
        os.kill(k, signal.SIGTERM)
    for k in kids:
        os.waitpid(k, 0)
    sys.exit(0)
signal.signal(signal.SIGTERM, stop)
print("ready", flush=True)
while True:
    signal.pause()
' "$1" "${ALARM:-600}" >"$T/idle.out" &
	idlers=$!
	wait_for 600 grep -q ready "$T/idle.out" || { kill "$idlers"; return 1; }
}
