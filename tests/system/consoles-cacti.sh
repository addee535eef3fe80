#!/bin/bash
# consoles-cacti.sh - contrib's Cacti files in Debian 12's Cacti 1.2: a
# private MariaDB and a copy of Debian's Cacti installed by its own CLI,
# contrib/cacti's data queries and device template imported as an operator
# does (cli/import_template.php), a device at a private snmpd+clustermond
# with the template's graphs, one poller run (poller.php with cmd.php) whose
# RRD values agree with snmpget, a second run a step later, and Cacti
# rendering each graph to a PNG whose series hold numbers. Part of `make
# check-consoles`.
. "$(dirname "$0")/lib.sh"

plan 8
SHARE=/usr/share/cacti
for p in "$SHARE/cli/import_template.php" /usr/share/doc/cacti/cacti.sql /usr/sbin/mariadbd \
	/usr/bin/mariadb-install-db /usr/bin/rrdtool "$(command -v php || echo php)"; do
	[ -e "$p" ] && continue
	[ "${CI:-}" = true ] && bail "$p is missing (tests/setup-consoles.sh installs it)"
	skip_all "$p is missing: run tests/setup-consoles.sh"
done
for m in pdo_mysql intl snmp; do
	php -m | grep -qx "$m" && continue
	[ "${CI:-}" = true ] && bail "PHP has no $m extension (tests/setup-consoles.sh installs it)"
	skip_all "PHP has no $m extension: run tests/setup-consoles.sh"
done
DB_PID=
stop_db() {
	[ -n "$DB_PID" ] && stop_pid "$DB_PID"
	DB_PID=
}
trap 'stop_db; cleanup' EXIT
# A timeout's SIGTERM too must stop MariaDB.
trap 'exit 143' TERM INT

# --- MariaDB: a data directory of its own, a unix socket only.
DBSOCK=$T/db.sock
mariadb-install-db --no-defaults --datadir="$T/db" --user=root --auth-root-authentication-method=normal \
	--skip-test-db >"$T/install-db.log" 2>&1 || bail "mariadb-install-db failed"
/usr/sbin/mariadbd --no-defaults --datadir="$T/db" --socket="$DBSOCK" --skip-networking --user=root \
	--pid-file="$T/db.pid" --log-error="$T/mariadb.log" --innodb-buffer-pool-size=64M \
	--character-set-server=utf8mb4 --collation-server=utf8mb4_unicode_ci 2>>"$T/mariadb.log" &
DB_PID=$!
sql() { mariadb --no-defaults -S "$DBSOCK" -u root -N -B "$@"; }
wait_for 30 sql -e "SELECT 1" || bail "mariadbd did not start: $(tail -n 3 "$T/mariadb.log")"
sql -e "CREATE DATABASE cacti" && sql cacti </usr/share/doc/cacti/cacti.sql || bail "loading cacti.sql failed"

# --- Cacti: a copy of Debian's, whose include/config.php is a link to
# /etc/cacti/debian.php; the copy's points at this database, and its rra,
# cache and log directories are the test's. Links out of the tree are
# relative: they get absolute targets.
C=$T/cacti
cp -a "$SHARE" "$C"
find "$C" -type l ! -lname '/*' | while read -r l; do
	t=$(readlink -m "$SHARE/${l#"$C"/}")
	case $t in "$SHARE"/*) ;; *) ln -sfn "$t" "$l" ;; esac
done
rm -f "$C/site/include/config.php" "$C/site/rra" "$C/site/cache" "$C/site/log"
mkdir -p "$C/site/rra" "$C/site/log" "$C/site/cache/"{boost,mibcache,realtime,spikekill}
sed -e "s|^\$database_hostname = .*|\$database_hostname = '$DBSOCK';|" \
	-e "s|^\$database_username = .*|\$database_username = 'root';|" \
	-e "s|^\$path_csrf_secret = .*|\$path_csrf_secret = '$T/csrf-secret.php';|" \
	/etc/cacti/debian.php >"$C/site/include/config.php"
t0=$SECONDS
php "$C/cli/install_cacti.php" --accept-eula --install --automationmode=0 --path="cactilog:$C/site/log/cacti.log" \
	>"$T/install.log" 2>&1 || bail "install_cacti.php failed: $(tail -n 3 "$T/install.log")"
ver=$(sql cacti -e "SELECT cacti FROM version")
diag "Cacti $ver installed by cli/install_cacti.php in $((SECONDS - t0)) s"
# No network discovery: the poller would start scanning the installer's
# default 192.168.1.0/24. And poller_output in InnoDB: in Debian 12's MariaDB
# (1:10.11.19) a DELETE by local_data_id on Cacti's MEMORY poller_output
# leaves one of a data source's rows behind, so a file with several data
# sources (the distributions' P50/P90/P99) never gets a complete update and
# the poller waits out its interval for it.
sql cacti -e "DELETE FROM automation_networks; ALTER TABLE poller_output ENGINE = InnoDB"

# --- import contrib's files as README says: data queries to
# resource/snmp_queries/, then the template export.
cp "$top_srcdir"/contrib/cacti/clustermon_*.xml "$C/resource/snmp_queries/"
out=$(php "$C/cli/import_template.php" --filename="$top_srcdir/contrib/cacti/cacti_host_template_linux_by_clustermon.xml" 2>&1)
echo "$out" >"$T/import.log"
want=$(grep '^	<hash_' "$top_srcdir/contrib/cacti/cacti_host_template_linux_by_clustermon.xml" | grep -vc '<hash_20')
nok=$(grep -c '^\[success\]' <<<"$out") nfail=$(grep -vc '^\[success\]\|^[A-Z][A-Za-z ]*$\|^Read \|^Import Results' <<<"$out")
is "$nok $nfail" "$want 0" "import_template.php imports every item of the export ($nok items, $nfail not understood)"
tpl=$(sql cacti -e "SELECT id FROM host_template WHERE name = 'Linux by clustermon'")
[ -n "$tpl" ] || bail "no device template after the import: $out"

# Two polls a step apart make a data point: the data templates go from the
# export's 5 minute profile to Cacti's stock 1 minute one (Data Collection >
# Data Source Profiles), the poller and cron interval with them, so the test
# waits 1-1.5 minutes instead of 5-7.5.
sql cacti -e "UPDATE data_template_data dtd JOIN data_template dt ON dt.id = dtd.data_template_id
	SET dtd.data_source_profile_id = (SELECT id FROM data_source_profiles WHERE step = 60), dtd.rrd_step = 60
	WHERE dt.name LIKE 'clustermon - %';
	REPLACE INTO settings (name, value) VALUES ('poller_interval', '60'), ('cron_interval', '60')"

# --- the node and the device with its graphs.
write_master_conf
start_master || bail "snmpd did not start"
start_agent || bail "clustermond did not register"
php "$C/cli/add_device.php" --description=cmnode --ip=127.0.0.1 --template="$tpl" --version=2 \
	--community=public --port="$PORT" --avail=snmp >"$T/add.log" 2>&1
hid=$(sql cacti -e "SELECT id FROM host WHERE description = 'cmnode'")
[ -n "$hid" ] || bail "add_device.php failed: $(tail -n 3 "$T/add.log")"
# The template's graphs: the two single ones, and one per row of each
# data query Cacti indexed on the device (the operator's "New Graphs").
for g in $(sql cacti -e "SELECT gt.id FROM host_template_graph htg JOIN graph_templates gt ON gt.id = htg.graph_template_id
		WHERE htg.host_template_id = $tpl"); do
	php "$C/cli/add_graphs.php" --host-id="$hid" --graph-type=cg --graph-template-id="$g" >>"$T/add.log" 2>&1
done
sql cacti -e "SELECT sq.snmp_query_id, sqg.id, sqg.graph_template_id, sq.snmp_index FROM host_snmp_cache sq
	JOIN snmp_query_graph sqg ON sqg.snmp_query_id = sq.snmp_query_id
	WHERE sq.host_id = $hid AND sq.field_name = 'index'" >"$T/rows"
while read -r q qt g idx; do
	php "$C/cli/add_graphs.php" --host-id="$hid" --graph-type=ds --graph-template-id="$g" --snmp-query-id="$q" \
		--snmp-query-type-id="$qt" --snmp-field=index --snmp-value="$idx" >>"$T/add.log" 2>&1
done <"$T/rows"
cpus=$(walk "$CM.3.20.1.10" | grep -c "^$CM.3.20.1.10\.")
hists=$(walk "$CM.9.1.1.2" | grep -c "^$CM.9.1.1.2\.")
ngraphs=$(sql cacti -e "SELECT COUNT(*) FROM graph_local WHERE host_id = $hid")
is "$ngraphs" "$((2 + cpus + hists))" "the device has the memory and TCP graphs, one per CPU ($cpus) and one per distribution ($hists)"

# --- one poller run, bracketed by snmpget of every OID Cacti polls.
sql cacti -e "SELECT rrd_path, rrd_name, arg1 FROM poller_item WHERE host_id = $hid" >"$T/items"
snap() { while read -r _ _ oid; do echo "$(get "$oid")"; done <"$T/items"; }
# poll: poller.php in a process group of its own; what it leaves running
# in the background (reports, maintenance) goes with the group.
poll() {
	local t
	t=$(date +%s.%N)
	setsid bash -c "echo \$\$ >$T/poller.pgid; exec php $C/site/poller.php --force" >>"$T/poller.log" 2>&1
	POLL_S=$(awk -v a="$t" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
	sleep 1
	kill -- -"$(cat "$T/poller.pgid")" 2>/dev/null
}
# Every CPU busy meanwhile (a pinned loop each, 10 s), so utilisation is
# 100 % in both, not a busy shared machine's swings.
for c in $(seq 0 $(($(nproc) - 1))); do busy "$c" 10 >/dev/null; done
sleep 3
snap >"$T/before"
log0=$(wc -l <"$C/site/log/cacti.log")
poll
t1=$(date +%s)
snap >"$T/after"
stats=$(grep -o 'SYSTEM STATS:.*' "$C/site/log/cacti.log" | tail -n 1)
diag "poller.php ran in $POLL_S s; $stats"
# PHP 8.2's deprecation notices about Cacti 1.2.24's code are not the poll's.
errs=$(sed -n "$((log0 + 1)),\$p" "$C/site/log/cacti.log" | grep -v 'PHP DEPRECATED\|PHP ERROR Backtrace' | grep 'ERROR\|FATAL\|WARNING')
is "$errs" "" "the poller run logged no error or warning in cacti.log"
n=$(wc -l <"$T/items")
files=$(cut -f1 "$T/items" | sort -u)
nfiles=0
for f in $files; do [ -s "$f" ] && nfiles=$((nfiles + 1)); done
is "$nfiles" "$(wc -w <<<"$files")" "poller.php made all $nfiles RRD files for the $n polled OIDs"

# Each value in the files (rrdtool lastupdate: what the poller fed) lies
# between snmpget's before and after the run, give or take what the value
# moves in a few seconds: memory totals and counters exactly, memory
# levels 5 %, utilisation 5 points, percentiles one
# log2 bucket (a factor of 2: they are read from log2 histograms).
compare() { # compare PATH DS BEFORE AFTER: prints a line, fails when out of range
	local v
	v=$(rrdtool lastupdate "$1" | awk -v ds="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == ds) c = i + 1 }
		NR > 2 { print $c }')
	awk -v v="$v" -v a="$3" -v b="$4" -v ds="$2" 'BEGIN {
		lo = a < b ? a : b; hi = a < b ? b : a
		tol = ds ~ /^(mem_total|retrans_segs)$/ ? 0 : ds ~ /^mem_/ ? hi * 0.05 : ds == "cpu_util" ? 500 : 0
		if (ds ~ /^p[0-9]+$/) { lo /= 2; hi *= 2 }
		ok = v != "" && v != "U" && v >= lo - tol && v <= hi + tol
		printf "%s %s: rrd %s, snmpget %s..%s (tolerance %g)\n", ok ? "ok" : "BAD", ds, v, a, b, tol
		exit !ok }'
}
paste "$T/items" "$T/before" "$T/after" | while IFS=$'\t' read -r f ds _ a b; do
	compare "$f" "$ds" "$a" "$b" || echo FAIL
done >"$T/compare.log"
bad=$(grep -c '^BAD' "$T/compare.log")
ok $(( bad > 0 || $(grep -c '^ok' "$T/compare.log") != n )) "the $n values in the RRD files agree with snmpget ($bad out of range)"
grep -m 1 ' mem_total:' "$T/compare.log" | sed 's/^/# /'
grep -m 1 ' cpu_util:' "$T/compare.log" | sed 's/^/# /'
grep -m 1 ' retrans_segs:' "$T/compare.log" | sed 's/^/# /'
[ "$bad" -eq 0 ] || sed 's/^/# /' "$T/compare.log"

# --- a second run once a 60 s step boundary lies at least 30 s after the
# first (rrdtool drops a step more than half unknown), then each graph.
b=$(( (t1 / 60 + 1) * 60 ))
[ $((b - t1)) -lt 30 ] && b=$((b + 60))
sleep $((b - $(date +%s) + 1))
poll
diag "second poller.php run in $POLL_S s"
cat >"$T/graph.php" <<'EOP'
<?php
/* graph.php LOCAL_GRAPH_ID PNG|- CACTI: Cacti draws the graph to PNG, or
   (-) prints how many points of its exported series are numbers, the last of
   them and the title. One a process: rrd.php's graph function includes
   global_arrays.php each time, which declares functions. */
require($argv[3] . '/site/include/cli_check.php');
include_once($config['base_path'] . '/lib/rrd.php');
$range = array('graph_start' => time() - 600, 'graph_end' => time());
if ($argv[2] != '-') {
	rrdtool_function_graph($argv[1], 0, $range + array('export' => true, 'export_filename' => $argv[2]));
	exit(0);
}
$meta = array();
$x = rrdtool_function_xport($argv[1], 0, $range + array('export_csv' => true), $meta);
$n = 0; $last = '';
array_walk_recursive($x['data'], function ($v) use (&$n, &$last) {
	if (is_numeric($v) && !is_nan((float)$v)) { $n++; $last = $v; }
});
printf("%d %s %s\n", $n, $last, $x['meta']['title_cache']);
EOP
pngs=0 withdata=0
for g in $(sql cacti -e "SELECT id FROM graph_local WHERE host_id = $hid"); do
	php "$T/graph.php" "$g" "$T/graph-$g.png" "$C" >>"$T/graph.log" 2>&1
	out=$(php "$T/graph.php" "$g" - "$C" 2>>"$T/graph.log")
	echo "$g $out" >>"$T/graphs.log"
	if head -c 8 "$T/graph-$g.png" 2>/dev/null | od -An -tx1 | grep -q '89 50 4e 47 0d 0a 1a 0a' &&
		[ "$(stat -c %s "$T/graph-$g.png")" -gt 1000 ]; then
		pngs=$((pngs + 1))
	else
		echo "# graph $g: no PNG ($(stat -c %s "$T/graph-$g.png" 2>/dev/null || echo no file) bytes)"
	fi
	[ "${out%% *}" -gt 0 ] 2>/dev/null && withdata=$((withdata + 1))
done
is "$pngs" "$ngraphs" "Cacti rendered each of the $ngraphs graphs to a PNG"
[ "$pngs" = "$ngraphs" ] || tail -n 20 "$T/graph.log" | sed 's/^/# graph.log: /'
is "$withdata" "$ngraphs" "each graph's series hold numbers after the second run"
sed 's/^/# graph /' "$T/graphs.log"
# The memory total's data point is clusterMonMemTotalKB (the CDEF makes bytes).
mt=$(awk -F'\t' '$2 == "mem_total" { print $1 }' "$T/items")
pt=$(rrdtool fetch "$mt" AVERAGE -r 60 -s -300 | awk -F': ' 'NF == 2 && $2 !~ /nan/ { v = $2 } END { printf "%.0f", v }')
is "$pt" "$(get "$CM.4.1.0")" "the memory total's 1 minute data point is clusterMonMemTotalKB"
mg=$(sql cacti -e "SELECT gl.id FROM graph_local gl JOIN graph_templates gt ON gt.id = gl.graph_template_id
	WHERE gl.host_id = $hid AND gt.name = 'clustermon - Memory'")
[ -n "${CACTI_PNG:-}" ] && cp "$T/graph-$mg.png" "$CACTI_PNG"
stop_db
finish
