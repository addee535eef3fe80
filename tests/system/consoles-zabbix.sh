#!/bin/bash
# consoles-zabbix.sh - contrib's Zabbix template in Debian 12's Zabbix 6.0:
# a private PostgreSQL and zabbix_server, the frontend's API (PHP's built-in
# web server) importing contrib/zabbix/clustermon-template.yaml with
# configuration.import, a host with an SNMP interface at a private
# snmpd+clustermond getting CPU and memory values, low-level discovery
# finding every CPU, and a threshold trap reaching the snmptrapper item
# through contrib/zabbix/zabbix-snmptrap.sh; a real OOM kill on the node (a
# process of this run's over its cgroup's memory limit) makes
# clusterMonOomKill, the "OOM kill" item's value naming the process, and
# the template's trigger a problem "OOM kill on HOST: NAME ...". Part of
# `make check-consoles`.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/consoles-lib.sh"

plan 13
PGBIN=/usr/lib/postgresql/15/bin
ZSQL=/usr/share/zabbix-server-pgsql
for p in /usr/sbin/zabbix_server /usr/share/zabbix/api_jsonrpc.php "$PGBIN/postgres" "$ZSQL/schema.sql.gz" \
	"$(command -v php || echo php)"; do
	[ -e "$p" ] && continue
	[ "${CI:-}" = true ] && bail "$p is missing (tests/setup-consoles.sh installs it)"
	skip_all "$p is missing: run tests/setup-consoles.sh"
done
php -m | grep -qx pgsql || bail "PHP has no pgsql extension (php-pgsql)"
PG_PID= ZBX_PID= WEB_PID=
stop_all() {
	[ -n "$WEB_PID" ] && stop_pid "$WEB_PID"
	[ -n "$ZBX_PID" ] && stop_pid "$ZBX_PID"
	# zabbix_server's children leave with it; any straggler goes by its pidfile's group.
	[ -n "$PG_PID" ] && su postgres -s /bin/sh -c "$PGBIN/pg_ctl -D $T/pg -m fast -w stop" >/dev/null 2>&1
	WEB_PID= ZBX_PID= PG_PID=
}
trap 'stop_all; cleanup' EXIT
# A timeout's SIGTERM too must stop PostgreSQL, zabbix_server and PHP.
trap 'exit 143' TERM INT
# PostgreSQL runs as postgres, which must reach its directories under $T.
chmod 755 "$T"
mkdir -p "$T/pg" "$T/pgsock" "$T/pglog" "$T/zbxsock"
chown postgres "$T/pg" "$T/pgsock" "$T/pglog"

# --- PostgreSQL: a cluster of its own, on a unix socket only.
PGPORT=$(free_udp_port) || bail "no free port number"
su postgres -s /bin/sh -c "$PGBIN/initdb -D $T/pg -U zabbix --auth=trust -E UTF8 --locale=C.UTF-8" >"$T/initdb.log" 2>&1 ||
	bail "initdb failed"
su postgres -s /bin/sh -c "$PGBIN/pg_ctl -D $T/pg -l $T/pglog/postgres.log -w -o \"-k $T/pgsock -p $PGPORT -c listen_addresses='' -c fsync=off -c max_connections=40\" start" >/dev/null 2>&1 ||
	bail "postgres did not start"
PG_PID=$(head -n 1 "$T/pg/postmaster.pid")
psql_z() { psql -q -h "$T/pgsock" -p "$PGPORT" -U zabbix -v ON_ERROR_STOP=1 "$@"; }
psql_z -d postgres -c "CREATE DATABASE zabbix ENCODING 'UTF8' TEMPLATE template0" >>"$T/psql.log" 2>&1
t0=$SECONDS
for f in schema images data; do
	zcat "$ZSQL/$f.sql.gz" | psql_z -d zabbix >>"$T/psql.log" 2>&1 || bail "loading $f.sql failed"
done
diag "Zabbix schema and data loaded in $((SECONDS - t0)) s"

# --- a node: snmpd + clustermond, traps to snmptrapd with contrib's handler.
TRAP_PORT=$(free_udp_port) || bail "no free UDP port"
cat >"$T/snmptrapd.conf" <<EOC
authCommunity log,execute public
traphandle default /usr/bin/env ZABBIX_TRAP_FILE=$T/zabbix_traps.tmp $top_srcdir/contrib/zabbix/zabbix-snmptrap.sh
EOC
run_trapd || bail "snmptrapd did not start"
start_master || bail "snmpd did not start"
# With clustermon-kprobe: OOM kills come from its oom:mark_victim program.
start_agent_helper

# --- zabbix_server: few processes (a shared 2-CPU machine), the
# configuration cache refreshed every second so the test need not wait a minute.
ZPORT=$(free_tcp_port) || bail "no free port"
cat >"$T/zabbix_server.conf" <<EOC
LogFile=$T/zabbix_server.log
PidFile=$T/zabbix_server.pid
SocketDir=$T/zbxsock
DBHost=$T/pgsock
DBPort=$PGPORT
DBName=zabbix
DBUser=zabbix
ListenIP=127.0.0.1
ListenPort=$ZPORT
AllowRoot=1
User=root
StartPollers=2
StartPollersUnreachable=1
StartTrappers=1
StartPingers=0
StartDiscoverers=0
StartHTTPPollers=0
StartTimers=1
StartEscalators=1
StartAlerters=1
StartPreprocessors=1
StartLLDProcessors=1
StartDBSyncers=1
StartHistoryPollers=1
StartReportWriters=0
StartSNMPTrapper=1
SNMPTrapperFile=$T/zabbix_traps.tmp
CacheUpdateFrequency=1
HousekeepingFrequency=0
CacheSize=32M
Timeout=4
EOC
touch "$T/zabbix_traps.tmp"
/usr/sbin/zabbix_server -f -c "$T/zabbix_server.conf" >>"$T/zabbix_server.stdout" 2>&1 &
ZBX_PID=$!
wait_for 30 grep -q "server #0 started" "$T/zabbix_server.log" ||
	bail "zabbix_server did not start: $(tail -n 3 "$T/zabbix_server.stdout" "$T/zabbix_server.log" 2>/dev/null)"

# --- the frontend: a copy of Debian's, whose CConfigFile has the config
# path /etc/zabbix/zabbix.conf.php compiled in; the copy points at $T.
cp -a /usr/share/zabbix "$T/web"
sed -i "s|'/etc/zabbix/zabbix.conf.php'|'$T/zabbix.conf.php'|" "$T/web/include/classes/core/CConfigFile.php"
cat >"$T/zabbix.conf.php" <<EOC
<?php
\$DB['TYPE'] = 'POSTGRESQL';
\$DB['SERVER'] = '$T/pgsock';
\$DB['PORT'] = '$PGPORT';
\$DB['DATABASE'] = 'zabbix';
\$DB['USER'] = 'zabbix';
\$DB['PASSWORD'] = '';
\$DB['SCHEMA'] = '';
\$DB['ENCRYPTION'] = false;
\$DB['KEY_FILE'] = '';
\$DB['CERT_FILE'] = '';
\$DB['CA_FILE'] = '';
\$DB['VERIFY_HOST'] = false;
\$DB['CIPHER_LIST'] = '';
\$DB['VAULT_URL'] = '';
\$DB['VAULT_DB_PATH'] = '';
\$DB['VAULT_TOKEN'] = '';
\$DB['DOUBLE_IEEE754'] = true;
\$ZBX_SERVER = '127.0.0.1';
\$ZBX_SERVER_PORT = '$ZPORT';
\$ZBX_SERVER_NAME = 'clustermon test';
\$IMAGE_FORMAT_DEFAULT = IMAGE_FORMAT_PNG;
EOC
WPORT=$(free_tcp_port) || bail "no free port"
php -d memory_limit=256M -d max_execution_time=120 -d post_max_size=16M -S "127.0.0.1:$WPORT" -t "$T/web" >>"$T/php.log" 2>&1 &
WEB_PID=$!
URL="http://127.0.0.1:$WPORT/api_jsonrpc.php"
export ZBX_TOKEN_FILE=$T/zbx.token
api() { python3 "$top_srcdir/tests/system/zbxapi.py" "$URL" "$@" 2>>"$T/api.log"; }
jq_() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }
wait_for 20 api apiinfo.version '[]' || bail "the frontend's API does not answer"
ver=$(api apiinfo.version '[]' | jq_ d)
check "the API answers (Zabbix $ver)" contains "^6\.0\." "$ver"

# --- import contrib's template as an operator would.
src=$(python3 -c 'import json,sys; print(json.dumps(open(sys.argv[1]).read()))' "$top_srcdir/contrib/zabbix/clustermon-template.yaml")
out=$(api configuration.import "{\"format\":\"yaml\",\"source\":$src,\"rules\":{
	\"groups\":{\"createMissing\":true},
	\"templates\":{\"createMissing\":true,\"updateExisting\":true},
	\"items\":{\"createMissing\":true,\"updateExisting\":true},
	\"discoveryRules\":{\"createMissing\":true,\"updateExisting\":true},
	\"triggers\":{\"createMissing\":true,\"updateExisting\":true}}}")
is "$out" true "configuration.import takes contrib/zabbix/clustermon-template.yaml$(tail -n 1 "$T/api.log" 2>/dev/null | sed 's/^/: /')"
tid=$(api template.get '{"filter":{"host":"Linux by clustermon SNMP"},"output":["templateid"]}' | jq_ 'd[0]["templateid"]')
n=$(api item.get "{\"templateids\":\"$tid\",\"countOutput\":true}" | jq_ d)
nd=$(api discoveryrule.get "{\"templateids\":\"$tid\",\"countOutput\":true}" | jq_ d)
want_items=$(grep -c "^    - uuid:" "$top_srcdir/contrib/zabbix/clustermon-template.yaml")
want_rules=$(python3 -c 'import yaml,sys; t=yaml.safe_load(open(sys.argv[1]))["zabbix_export"]["templates"][0]; print(len(t["items"]), len(t["discovery_rules"]))' "$top_srcdir/contrib/zabbix/clustermon-template.yaml")
is "$n $nd" "$want_rules" "the template has every item and discovery rule of the file ($n items, $nd rules)"
nt=$(api trigger.get "{\"templateids\":\"$tid\",\"countOutput\":true}" | jq_ d)
want_tr=$(python3 -c 'import yaml,sys; t=yaml.safe_load(open(sys.argv[1]))["zabbix_export"]["templates"][0]; print(sum(len(i.get("triggers", [])) for i in t["items"]))' "$top_srcdir/contrib/zabbix/clustermon-template.yaml")
is "$nt" "$want_tr" "and every trigger of its items ($nt)"

# --- a host with an SNMP interface at the private snmpd.
gid=$(api hostgroup.create '{"name":"clustermon test"}' | jq_ 'd["groupids"][0]')
hid=$(api host.create "{\"host\":\"cmnode\",\"groups\":[{\"groupid\":\"$gid\"}],\"templates\":[{\"templateid\":\"$tid\"}],
	\"interfaces\":[{\"type\":2,\"main\":1,\"useip\":1,\"ip\":\"127.0.0.1\",\"dns\":\"\",\"port\":\"$PORT\",
	\"details\":{\"version\":2,\"bulk\":1,\"community\":\"public\"}}]}" | jq_ 'd["hostids"][0]')
[ -n "$hid" ] || bail "host.create failed: $(tail -n 1 "$T/api.log")"
# Items are first checked at an offset within their interval (1 h for
# discovery): "Execute now" (task.create type 6) once the server's
# configuration cache has them, as an operator would from the frontend.
check_now() {
	local ids
	ids=$(api item.get "{\"hostids\":\"$hid\",\"filter\":{\"type\":20},\"output\":[\"itemid\"]}" | jq_ '" ".join(i["itemid"] for i in d)')
	ids="$ids $(api discoveryrule.get "{\"hostids\":\"$hid\",\"output\":[\"itemid\"]}" | jq_ '" ".join(i["itemid"] for i in d)')"
	local req=$(for i in $ids; do printf '{"type":6,"request":{"itemid":"%s"}},' "$i"; done)
	api task.create "[${req%,}]" >/dev/null
}
lastvalue() { api item.get "{\"hostids\":\"$hid\",\"filter\":{\"key_\":\"$1\"},\"output\":[\"lastvalue\",\"lastclock\",\"error\"]}" | jq_ 'd[0]["lastvalue"] if d and d[0]["lastclock"] != "0" else ""'; }
has_value() { [ -n "$(lastvalue "$1")" ]; }
# The stock "Zabbix server" host polls an agent nobody runs here: off, to
# keep the load on a shared machine down.
api host.update '{"hostid":"10084","status":1}' >/dev/null
sleep 2
t0=$SECONDS
for _ in 1 2 3 4 5 6; do
	check_now
	wait_for 10 has_value clustermon.memory.total && break
done
total=$(lastvalue clustermon.memory.total) kb=$(get "$clusterMonMemTotalKB.0")
is "$total" "$((kb * 1024))" "Memory total in Zabbix is clusterMonMemTotalKB x 1024 after $((SECONDS - t0)) s"
wait_for 20 has_value clustermon.cpu.util
util=$(lastvalue clustermon.cpu.util)
check "CPU utilisation has a value in percent ($util)" awk -v v="$util" 'BEGIN { exit !(v != "" && v >= 0 && v <= 100) }'
avail=$(lastvalue clustermon.memory.available)
check "Memory available has a value ($avail B) at most the total" awk -v v="$avail" -v t="$total" 'BEGIN { exit !(v != "" && v > 0 && v <= t) }'
# LLD: one "CPU N utilisation" item per row clustermond serves.
rows=$(walk "$clusterMonCpuUtil" | grep -c "^$clusterMonCpuUtil\.")
cpus() { api item.get "{\"hostids\":\"$hid\",\"search\":{\"key_\":\"clustermon.cpu.util[\"},\"countOutput\":true}" | jq_ d; }
wait_for 30 sh -c "[ \"\$(python3 $top_srcdir/tests/system/zbxapi.py $URL item.get '{\"hostids\":\"$hid\",\"search\":{\"key_\":\"clustermon.cpu.util[\"},\"countOutput\":true}')\" = '\"$rows\"' ]"
is "$(cpus)" "$rows" "low-level discovery made a utilisation item for each of the $rows CPUs"

# --- a threshold trap reaches the snmptrapper item.
TH=$clusterMonThresholdEntry SRC=$clusterMonSourceEntry
idx=$(walk "$SRC.2" | awk '$2 == "\"mem\"" { n = split($1, a, "."); print a[n] }')
IV=$SRC.3.$idx orig=$(get "$SRC.3.$idx")
set_rw "$TH.11.9" i 4 "$TH.2.9" o "$IV" "$TH.3.9" i 1 "$TH.4.9" u 100 \
	"$TH.5.9" s 50000 "$TH.6.9" s 40000 "$TH.7.9" i 1 "$TH.10.9" i 2 >>"$T/set.log"
set_rw "$IV" u 60000 >>"$T/set.log"
rising() { api item.get "{\"hostids\":\"$hid\",\"filter\":{\"name\":\"Threshold rising\"},\"output\":[\"lastvalue\"]}" | jq_ 'd[0]["lastvalue"] if d else ""'; }
t0=$SECONDS
wait_for 30 sh -c "grep -q '77.0.1' $T/zabbix_traps.tmp"
has_rise() { contains "$IV" "$(rising)"; }
wait_for 30 has_rise
got=$(rising)
check "the rising trap is the Threshold rising item's value after $((SECONDS - t0)) s" contains "11\.1\.1\.2\.9 .*$IV" "$got"
diag "Threshold rising: $(head -c 300 <<<"$got" | tr '\n' ' ')"
set_rw "$IV" u "$orig" >>"$T/set.log"

# --- a real OOM kill: clusterMonOomKill -> the "OOM kill" item, and the
# template's trigger a problem naming the process, its cgroup and job.
oomval() { api item.get "{\"hostids\":\"$hid\",\"filter\":{\"name\":\"OOM kill\"},\"output\":[\"lastvalue\"]}" | jq_ 'd[0]["lastvalue"] if d else ""'; }
# problems: the host's open problems, "SEVERITY NAME" a line.
problems() { api problem.get "{\"hostids\":\"$hid\",\"output\":[\"name\",\"severity\"]}" | jq_ '"\n".join("%s %s" % (p["severity"], p["name"]) for p in d)'; }
if oom_node_kill; then
	is "$OOM_RC" 137 "$HOG (pid $OOM_PID), over its cgroup's memory limit, was OOM-killed (cgroup v$CGV: $OOM_REL)"
	has_oom() { contains "\"$HOG\"" "$(oomval)"; }
	wait_for 30 has_oom; rc=$?
	got=$(oomval)
	ok $rc "the OOM kill item's value names $HOG $(since "$OOM_T0") s after it started"
	diag "OOM kill: $(tr '\n' ' ' <<<"$got" | head -c 600)"
	want="OOM kill on cmnode: $HOG (pid $OOM_PID) in $OOM_REL (slurm job $OOM_JOB)"
	has_problem() { contains "^4 $want" "$(problems)"; }
	wait_for 30 has_problem; rc=$?
	ok $rc "the trigger fires $(since "$OOM_T0") s after: a High problem \"$(problems | grep "$HOG" | head -n 1 | cut -d' ' -f2-)\""
	[ $rc -eq 0 ] || diag "problems: $(problems | tr '\n' ';')"
else
	oom_skip 3
fi

# --- a varbind holding the word that starts a trap in SNMPTrapperFile (a
# process or cgroup name is the node's users' to choose) stays the sender's
# trap: the handler defuses it.
snmptrap -v2c -c public "127.0.0.1:$TRAP_PORT" '' "$clusterMonOomKill" "$clusterMonOomKillName.0" s "x ZBXTRAP 127.0.0.9 y" 2>>"$T/snmptrap.log"
forged() { contains "x ZBX_TRAP 127.0.0.9 y" "$(oomval)"; }
wait_for 30 forged; rc=$?
[ $rc -eq 0 ] && ! grep -q '127\.0\.0\.9' "$T/zabbix_server.log"
ok $? "a trap whose varbind says \"ZBXTRAP 127.0.0.9\" is cmnode's OOM kill value, defused, and no trap of 127.0.0.9 reached the server"
stop_all
finish
