#!/bin/bash
# debian.sh - the Debian packages as an operator gets them. In a fresh
# minbase Debian 12 root (debootstrap), `dpkg-buildpackage -us -uc -b` builds
# them from a clean copy of this tree; lintian passes them; apt installs them
# into a second fresh root, where snmpd, clustermon-kprobe and clustermond
# start as their units start them (the ExecStart lines, no systemd inside)
# and clusterMonNodeName is walked by name once the operator uncomments the
# drop-in's view line (and not before); then a purge leaves nothing behind
# but the system user clustermon.
#
# Cost: the finished minbase root is kept as a tarball in the build
# directory (CLUSTERMON_MINBASE overrides where) and unpacked for each root;
# the build root still downloads the build dependencies (clang, ...).
. "$(dirname "$0")/lib.sh"

command -v debootstrap >/dev/null || missing_all "debootstrap is missing (apt-get install debootstrap)"
command -v lintian >/dev/null || missing_all "lintian is missing (apt-get install lintian)"
[ "$(id -u)" -eq 0 ] || skip_all "needs root for chroots"
asan_build && skip_all "dpkg-buildpackage builds its own binaries: the plain build runs this test"
git -C "$top_srcdir" rev-parse --git-dir >/dev/null 2>&1 ||
	skip_all "not a git checkout: the packages are built from the tree's files as git lists them"
plan 12

# The host's first Debian mirror, as apt is configured here.
mirror=$(sed -n 's/^URIs: *\([^ ]*\).*/\1/p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -n 1)
[ -n "$mirror" ] || mirror=$(awk '$1 == "deb" { print $2; exit }' /etc/apt/sources.list 2>/dev/null)
mirror=${mirror:-http://deb.debian.org/debian}
cache=${CLUSTERMON_MINBASE:-$top_builddir/tests/minbase-bookworm.tar.gz}

if [ ! -s "$cache" ]; then
	mkdir -p "$(dirname "$cache")"
	debootstrap --variant=minbase bookworm "$T/boot" "$mirror" >"$T/debootstrap.log" 2>&1 ||
		bail "debootstrap failed: $(tail -n 3 "$T/debootstrap.log")"
	tar -C "$T/boot" -czf "$cache.tmp" . && mv "$cache.tmp" "$cache"
	rm -rf "$T/boot"
fi

# new_root DIR: a fresh minbase root from the cached tarball.
new_root() {
	mkdir -p "$1" && tar -C "$1" -xzf "$cache" && cp /etc/resolv.conf "$1/etc/resolv.conf"
}
# in_root [-n] DIR SCRIPT: SCRIPT run by sh inside DIR, in a mount
# namespace of its own (/proc, /sys and /dev vanish with it); with -n also
# in a network namespace with only a loopback, so the root's snmpd (port
# 161, its AgentX socket) is never the host's. apt needs the host's network.
# The environment is a unit's, not this test's (lib.sh's SNMPCONFPATH and
# MIBS would change what snmpd and snmpwalk read).
in_root() {
	local net=
	[ "$1" = -n ] && { net=-n; shift; }
	unshare -m $net --propagation private sh -c '
		{ [ -z "$3" ] || ip link set lo up; } &&
		mount -t proc proc "$1/proc" && mount --rbind /sys "$1/sys" &&
		mount --rbind /dev "$1/dev" &&
		exec env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
			chroot "$1" sh -c "$2"' sh "$1" "$2" "$net"
}
apt_in() { echo "DEBIAN_FRONTEND=noninteractive apt-get -q -o DPkg::Lock::Timeout=900 $*"; }

# --- build, in the first root
B="$T/build-root"
new_root "$B" || bail "cannot unpack $cache"
mkdir -p "$B/build/clustermon"
git -C "$top_srcdir" ls-files -co --exclude-standard -z |
	(cd "$top_srcdir" && tar --null -T - -cf -) | tar -C "$B/build/clustermon" -xf -
in_root "$B" "$(apt_in update) && $(apt_in build-dep -y --no-install-recommends ./build/clustermon) &&
	cd /build/clustermon && dpkg-buildpackage -us -uc -b -j2" >"$T/build.log" 2>&1
ok $? "dpkg-buildpackage -us -uc -b builds in a fresh minbase root"
debs=
for p in clustermond clustermon-kprobe clustermon-tools clustermon-mibs; do
	f=$(ls "$B/build/${p}_"*.deb 2>/dev/null | head -n 1)
	debs="$debs ${f##*/}"
done
is "$(ls "$B"/build/*.deb 2>/dev/null | grep -vc dbgsym)" 4 "four packages:$debs"
is "$(ls "$B"/build/clustermon-mibs_*_all.deb 2>/dev/null | wc -l)" 1 "clustermon-mibs is Architecture: all"
out=$(lintian --fail-on error,warning "$B"/build/clustermon_*.changes 2>&1); rc=$?
[ $rc -eq 0 ] && ! grep -q '^[EW]:' <<<"$out"; ok $? "lintian: no errors, no warnings"
grep '^[EW]:' <<<"$out" | sed 's/^/# /'

# --- install, in the second root
R="$T/run-root"
new_root "$R" || bail "cannot unpack $cache"
mkdir -p "$R/tmp/cm/mibs"
cp "$B"/build/*.deb "$R/tmp/cm/"
cp "$top_srcdir/tests/get-base-mibs.sh" "$R/tmp/cm/"
cp "$top_srcdir"/tests/mibs/*.txt "$R/tmp/cm/mibs/"
rm -rf "$B"
in_root "$R" "$(apt_in update) && cd /tmp/cm && $(apt_in install -y --no-install-recommends \
	./clustermond_*.deb ./clustermon-kprobe_*.deb ./clustermon-tools_*.deb \
	./clustermon-mibs_*.deb snmp) && sh /tmp/cm/get-base-mibs.sh" >"$T/install.log" 2>&1
ok $? "apt-get install ./clustermond_*.deb ... into a second fresh root"
is "$(sed -n 's/^clustermon:x:[0-9]*:[0-9]*:.*/user/p' "$R/etc/passwd")" user "the system user clustermon exists"
grep -q '^Debian-snmp:.*clustermon' "$R/etc/group"; ok $? "and is in Debian-snmp, the AgentX socket's group"

# exec_start UNIT: the unit's ExecStart, its Environment= before it.
exec_start() {
	local u="$R/lib/systemd/system/$1.service"
	printf '%s ' $(sed -n 's/^Environment=//p' "$u")
	sed -n 's/^ExecStart=//p' "$u"
}
walk_mib() { # the walk an operator types, by name
	echo "snmpwalk -v2c -c public -t 2 -r 1 -M /usr/share/snmp/mibs:/usr/share/snmp/mibs/ietf:/tmp/cm/mibs -m CLUSTER-MON-MIB 127.0.0.1 $1"
}
# One namespace for the daemons and the walks: started as the units start
# them, the walk before and after the operator's view line.
cat >"$R/tmp/cm/run.sh" <<EOS
# minbase has no procps: the daemons are stopped by their pids.
$(exec_start snmpd) >/tmp/cm/snmpd.log 2>&1 & master=\$!
$(exec_start clustermon-kprobe) >/tmp/cm/kprobe.log 2>&1 & helper=\$!
sleep 1
# -Lf besides the unit's -Lsd: there is no syslog in the root to read.
$(exec_start clustermond) -Lf /tmp/cm/clustermond.log >/tmp/cm/clustermond.out 2>&1 & agent=\$!
for i in \$(seq 1 50); do
	snmpget -v2c -c public -t 0.2 -r 0 127.0.0.1 .1.3.6.1.2.1.1.1.0 >/dev/null 2>&1 && break
	sleep 0.2
done
sleep 2
$(walk_mib CLUSTER-MON-MIB::clusterMonNodeName) >/tmp/cm/closed.txt 2>&1
kill \$master; wait \$master
sed -i 's/^#\(view  *systemonly  *included  *.1.3.6.1.4.1.8072.9999.77\)/\1/' /etc/snmp/snmpd.conf.d/clustermond.conf
$(exec_start snmpd) >>/tmp/cm/snmpd.log 2>&1 & master=\$!
for i in \$(seq 1 50); do
	$(walk_mib CLUSTER-MON-MIB::clusterMonNodeName) >/tmp/cm/walk.txt 2>&1
	grep -q '^CLUSTER-MON-MIB::clusterMonNodeName.0 = STRING' /tmp/cm/walk.txt && break
	sleep 0.2
done
$(walk_mib CLUSTER-MON-MIB::clusterMonHelperStatus) >>/tmp/cm/walk.txt 2>&1
kill \$agent \$helper \$master
wait
EOS
in_root -n "$R" "sh /tmp/cm/run.sh" >"$T/run.log" 2>&1
closed=$(cat "$R/tmp/cm/closed.txt" 2>/dev/null)
grep -Eq 'No Such Object|No more variables' <<<"$closed" && ! grep -q '= STRING' <<<"$closed"
ok $? "as installed, snmpd's default view does not show CLUSTER-MON-MIB ($(head -n 1 <<<"$closed"))"
walked=$(cat "$R/tmp/cm/walk.txt" 2>/dev/null)
grep -q "^CLUSTER-MON-MIB::clusterMonNodeName.0 = STRING: " <<<"$walked"
ok $? "with the drop-in's view line uncommented, clusterMonNodeName walked by name: $(head -n 1 <<<"$walked")"
grep -q "^CLUSTER-MON-MIB::clusterMonHelperStatus.0 = INTEGER: running(1)" <<<"$walked"
ok $? "and the packaged helper runs: $(sed -n 2p <<<"$walked")"
[ $tap_failed -eq 0 ] || for f in snmpd kprobe clustermond; do
	diag "--- $f.log"; sed 's/^/#   /' "$R/tmp/cm/$f.log" 2>/dev/null | tail -n 15
done

# --- purge
uid=$(awk -F: '$1 == "clustermon" { print $3 }' "$R/etc/passwd")
in_root "$R" "$(apt_in purge -y clustermond clustermon-kprobe clustermon-tools clustermon-mibs)" \
	>"$T/purge.log" 2>&1
ok $? "apt-get purge removes the four packages"
# What is left with clustermon in its name, or owned by its user, outside
# apt's and dpkg's logs and the test's own files.
left=$(cd "$R" && find . -xdev \( -path ./tmp -o -path ./var/log -o -path ./var/cache/apt \) -prune -o \
	\( -name '*clustermon*' -o -user "${uid:-nouser}" -o -name 'CLUSTER-MON-MIB*' \) -print 2>/dev/null)
is "$left" "" "nothing left behind but the user clustermon"
[ $tap_failed -eq 0 ] || for f in build install purge; do
	diag "--- $f.log"; sed 's/^/#   /' "$T/$f.log" | tail -n 25
done
rm -rf "$R"
finish
