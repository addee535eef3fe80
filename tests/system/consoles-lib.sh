# consoles-lib.sh - sourced by the console tests (after lib.sh): traps
# through snmptt, a threshold to cross, clustermond with the eBPF helper.

# snmptt_setup SUBMIT: $T/snmptt.conf (contrib's EVENTs with SUBMIT, a
# command line, in place of /usr/lib/clustermon/clustermon-submit),
# $T/snmptt.ini (Debian's, with this test's files and no syslog) and
# $T/snmptrapd.conf (contrib's traphandle line with that ini), for run_trapd.
snmptt_setup() {
	sed -e "s|/usr/lib/clustermon/clustermon-submit|$1|" \
		"$top_srcdir/contrib/snmptt/clustermon.conf" >"$T/snmptt.conf"
	sed -e "/^snmptt_conf_files = <<END/,/^END/c\\snmptt_conf_files = <<END\\n$T/snmptt.conf\\nEND" \
		-e "s|^log_file = .*|log_file = $T/snmptt.log|" \
		-e "s|^unknown_trap_log_file = .*|unknown_trap_log_file = $T/snmptt-unknown.log|" \
		-e "s|^unknown_trap_log_enable = .*|unknown_trap_log_enable = 1|" \
		-e "s|^log_system_enable = .*|log_system_enable = 0|" \
		-e "s|^syslog_enable = .*|syslog_enable = 0|" \
		-e "s|^syslog_system_enable = .*|syslog_system_enable = 0|" \
		/etc/snmp/snmptt.ini >"$T/snmptt.ini"
	sed -e "s|--ini=/etc/snmp/snmptt.ini|--ini=$T/snmptt.ini|" \
		"$top_srcdir/contrib/snmptt/snmptrapd-snmptt.conf" >"$T/snmptrapd.conf"
}

# mem_interval_threshold ROW: threshold row ROW on clusterMonSourceIntervalMs
# of the mem source (rising 50000, falling 40000), active; sets IV to that
# instance and IV_ORIG to its value. A crossing moved by SETs does not
# depend on how busy the machine is.
mem_interval_threshold() {
	local TH=$clusterMonThresholdEntry SRC=$clusterMonSourceEntry idx
	idx=$(walk "$SRC.2" | awk '$2 == "\"mem\"" { n = split($1, a, "."); print a[n] }')
	[ -n "$idx" ] || bail "no mem row in clusterMonSourceTable"
	IV=$SRC.3.$idx
	IV_ORIG=$(get "$IV")
	set_rw "$TH.11.$1" i 4 "$TH.2.$1" o "$IV" "$TH.3.$1" i 1 "$TH.4.$1" u 100 \
		"$TH.5.$1" s 50000 "$TH.6.$1" s 40000 "$TH.7.$1" i 1 "$TH.10.$1" i 2 >>"$T/set.log"
}

# start_agent_helper [LINE...]: clustermond fed by clustermon-kprobe (so
# sched.runqlat has values) where it can run: root and built; required
# under CI; LINEs are added to its configuration. Sets HAVE_HELPER to 1 or
# empty.
start_agent_helper() {
	HAVE_HELPER=
	if [ "$(id -u)" -eq 0 ] && [ -x "$KPROBE_HELPER" ]; then
		start_helper || bail "clustermon-kprobe did not start"
		echo "helperSocket $HELPER_SOCK" >"$T/agent.conf"
		HAVE_HELPER=1
	elif [ "${CI:-}" = true ]; then
		bail "clustermon-kprobe is not built or this is not root (CI runs as root with the helper)"
	else
		: >"$T/agent.conf"
	fi
	[ $# -eq 0 ] || printf '%s\n' "$@" >>"$T/agent.conf"
	start_agent -c "$T/agent.conf" || bail "clustermond did not register"
}

# oom_node_kill: a real OOM kill on the node, for a console to show: a
# process named after this run (cmoomPID: every helper on the machine sees
# every kill, and another suite may run an OOM test at once) in a memory
# cgroup of its own (oom_cgroup in lib.sh: slurm_cmoomPID/uid_0/job_N,
# "slurm job N"), allocating past its limit. Needs start_agent_helper's
# helper. Sets HOG, OOM_RC (137: the OOM killer took it), oom_hog's OOM_PID
# and OOM_T0 and oom_cgroup's variables; fails, saying why in OOM_WHY, where
# no clusterMonOomKill can come.
oom_node_kill() {
	HOG="cmoom$$"
	[ -n "${HAVE_HELPER:-}" ] || { OOM_WHY="no eBPF helper (it needs root and clustermon-kprobe built)"; return 1; }
	oom_cgroup "$HOG" || return 1
	oom_watching || { OOM_WHY="clustermond did not map the helper's rings"; return 1; }
	oom_hog "$HOG"
	OOM_RC=$?
}

# oom_skip N: the N test points of a console's OOM checks when
# oom_node_kill failed: skipped, saying why; failed under CI, which runs as
# root with the helper on a kernel with a memory controller.
oom_skip() {
	local i
	for i in $(seq 1 "$1"); do
		if [ "${CI:-}" = true ]; then ok 1 "no OOM kill under CI: $OOM_WHY"
		else skip "no OOM kill: $OOM_WHY"; fi
	done
}

# since T0: seconds from T0 (date +%s%N) to now, one decimal.
since() { awk -v a="$1" -v b="$(date +%s%N)" 'BEGIN { printf "%.1f", (b - a) / 1e9 }'; }
