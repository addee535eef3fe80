#!/bin/bash
# fresh-root.sh [--keep] [--root DIR] [--rev REV] [-- COMMAND] - the README's
# two commands (contrib/quickstart.sh, then tests/run-suite.sh) as a new
# user runs them on a brand-new Debian 12 machine: in a fresh minbase root
# (debootstrap), from a clean git clone of REV (default HEAD: commit first,
# uncommitted edits are not in the clone), with CI=true and nothing in the
# environment but PATH, HOME, TERM and LANG=C.UTF-8 (the only locale a
# minbase root has). Ends with the suite's closing line and its exit code.
#   --keep      leave the root (not its mounts) for debugging; its path is
#               printed, and --root DIR -- bash enters it again
#   --root DIR  reuse a root that --keep left (no new root, no new clone)
#   --rev REV   the commit to clone (CI: the commit under test)
#   -- COMMAND  run COMMAND (bash, in the clone) instead of the two commands
# The host's own installed packages are never seen: apt installs everything
# inside. Run as root (debootstrap, mounts, chroot).
#
# Cost: the minbase root is made once a day and kept as a tarball in
# $CLUSTERMON_CI_CACHE (default /var/cache/clustermon-ci, outside any
# clone), with the .deb files apt downloaded (hard links, so two runs at
# once never share apt's cache); tests/system/debian.sh reuses the tarball.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
usage() { echo "usage: tests/fresh-root.sh [--keep] [--root DIR] [--rev REV] [-- COMMAND]"; }
keep= reuse= rev=HEAD
while [ $# -gt 0 ]; do
	case $1 in
	--keep) keep=1 ;;
	--root) reuse=${2:?--root needs a directory}; shift ;;
	--rev) rev=${2:?--rev needs a commit}; shift ;;
	--) shift; break ;;
	-h|--help) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
	shift
done
# quickstart's failure ends the run with a closing line of the same form.
cmd=${*:-'contrib/quickstart.sh || { rc=$?; echo "FAIL: contrib/quickstart.sh (exit $rc)"; echo "0 passed, 1 failed, 0 skipped"; exit 1; }
echo "fresh-root: contrib/quickstart.sh took $SECONDS s"
exec tests/run-suite.sh'}

die() { echo "fresh-root: $*" >&2; echo "0 passed, 1 failed, 0 skipped"; exit 1; }
[ "$(id -u)" -eq 0 ] || die "run as root (debootstrap, mounts, chroot)"
"$top/tests/install-missing.sh" fresh-root debootstrap git util-linux coreutils ||
	die "cannot install debootstrap and git on this host"

cache=${CLUSTERMON_CI_CACHE:-/var/cache/clustermon-ci}
mkdir -p "$cache/debs" || die "cannot make $cache"
tarball=$cache/minbase-bookworm-$(date -u +%Y%m%d).tar.gz

# The host's first Debian mirror, as apt is configured here.
mirror=$(sed -n 's/^URIs: *\([^ ]*\).*/\1/p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -n 1)
[ -n "$mirror" ] || mirror=$(sed -n 's/^deb  *\(http[^ ]*\).*/\1/p' /etc/apt/sources.list 2>/dev/null | head -n 1)
mirror=${mirror:-http://deb.debian.org/debian}

# make_tarball: today's minbase root, made once (flock: two runs at once
# wait for one debootstrap); older days' tarballs go.
make_tarball() {
	local boot
	[ -s "$tarball" ] && return 0
	boot=$(mktemp -d "$cache/boot.XXXXXX") || return 1
	echo "fresh-root: debootstrap --variant=minbase bookworm $mirror"
	if ! debootstrap --variant=minbase bookworm "$boot" "$mirror" >"$boot.log" 2>&1; then
		tail -n 5 "$boot.log" >&2
		rm -rf --one-file-system "$boot" "$boot.log"
		return 1
	fi
	chmod 755 "$boot"
	tar -C "$boot" -czf "$tarball.tmp" . && mv "$tarball.tmp" "$tarball" || return 1
	rm -rf --one-file-system "$boot" "$boot.log"
	find "$cache" -maxdepth 1 -name 'minbase-bookworm-*.tar.gz' ! -path "$tarball" -delete
}

# new_root: unpack, clone, and what a chroot needs that a machine has: a
# resolver, the apt sources of an installed Debian 12 (updates, security:
# debootstrap sets only the release), and no services started by package scripts (a booted machine
# runs them under systemd; here they would outlive the run, and the tests
# start private instances).
new_root() {
	local commit
	commit=$(git -C "$top" rev-parse --verify "$rev^{commit}") || die "no commit $rev"
	R=$(mktemp -d "${CLUSTERMON_ROOTS:-/var/tmp}/clustermon-fresh.XXXXXX") || die "mktemp failed"
	# "/" as a machine has it (mktemp's 0700 would shut out every other user).
	tar --numeric-owner -C "$R" -xzf "$tarball" && chmod 755 "$R" || die "cannot unpack $tarball"
	cp /etc/resolv.conf "$R/etc/resolv.conf"
	rm -f "$R/etc/apt/sources.list"
	printf 'Types: deb\nURIs: %s\nSuites: bookworm bookworm-updates\nComponents: main\nSigned-By: %s\n\nTypes: deb\nURIs: http://deb.debian.org/debian-security\nSuites: bookworm-security\nComponents: main\nSigned-By: %s\n' \
		"$mirror" /usr/share/keyrings/debian-archive-keyring.gpg /usr/share/keyrings/debian-archive-keyring.gpg \
		>"$R/etc/apt/sources.list.d/debian.sources"
	printf '#!/bin/sh\nexit 101\n' >"$R/usr/sbin/policy-rc.d" && chmod 755 "$R/usr/sbin/policy-rc.d"
	cp -aln "$cache/debs/." "$R/var/cache/apt/archives/" 2>/dev/null ||
		cp -an "$cache/debs/." "$R/var/cache/apt/archives/" 2>/dev/null || true
	git clone -q --no-hardlinks "$top" "$R/root/clustermon" &&
		git -C "$R/root/clustermon" checkout -q --detach "$commit" || die "git clone failed"
	echo "fresh-root: root $R, clone of $(git -C "$top" log -1 --format='%h %s' "$commit")"
	[ -z "$(git -C "$top" status --porcelain --untracked-files=no)" ] ||
		echo "fresh-root: note: uncommitted changes in $top are not in the clone"
}

if [ -n "$reuse" ]; then
	R=$(cd "$reuse" && pwd) && [ -d "$R/root/clustermon" ] || die "$reuse is not a root --keep left"
	keep=1
else
	exec 9>"$cache/lock"
	flock 9 && make_tarball || die "debootstrap failed"
	exec 9>&-
	new_root
fi

# inside: in a private mount namespace (unshare -m), so every mount below
# is gone with its last process and none reaches the host's mount table.
# The root is bound on itself so that it is a mount point: `ip netns exec`
# remounts / and /sys. /sys/fs/bpf and /sys/kernel/tracing come with /sys
# when the host has them; otherwise they are mounted as a booted Debian 12
# has them (systemd mounts both). /dev/shm is the root's own, as /run is.
inside='set -e
R=$1
mount --bind "$R" "$R"
mount --rbind /proc "$R/proc"
mount --rbind /sys "$R/sys"
mount --rbind /dev "$R/dev"
mount -t tmpfs -o mode=1777 shm "$R/dev/shm"
mount -t tmpfs -o mode=755 run "$R/run"
mountpoint -q "$R/sys/fs/bpf" || mount -t bpf bpf "$R/sys/fs/bpf"
mountpoint -q "$R/sys/kernel/tracing" || mount -t tracefs tracefs "$R/sys/kernel/tracing"
mkdir -p "$R/run/lock" "$R/var/cache/clustermon-ci"
mount --bind -o ro "$2" "$R/var/cache/clustermon-ci"
readlink /proc/self/ns/mnt >"$R/.fresh-root.ns"
exec env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
	TERM=dumb LANG=C.UTF-8 CI=true CLUSTERMON_MINBASE="/var/cache/clustermon-ci/${3##*/}" \
	FUZZ_SECONDS="$4" chroot "$R" bash -c "cd /root/clustermon || exit 1
$5"'

# cleanup: end what the run left behind (daemons in the root's mount
# namespace), check that no mount is left, save the downloaded .debs, and
# remove the root unless kept. rm never runs while anything is mounted in it.
cleanup() {
	local ns= p left
	[ -s "$R/.fresh-root.ns" ] && ns=$(cat "$R/.fresh-root.ns")
	if [ -n "$ns" ]; then
		for _ in 1 2 3; do
			left=
			for p in /proc/[0-9]*; do
				[ "$(readlink "$p/ns/mnt" 2>/dev/null)" = "$ns" ] && left="$left ${p#/proc/}"
			done
			[ -z "$left" ] && break
			kill -9 $left 2>/dev/null
			sleep 1
		done
	fi
	if grep -q " ${R}[/ ]" /proc/self/mountinfo; then
		umount -R "$R" 2>/dev/null
		grep -q " ${R}[/ ]" /proc/self/mountinfo && { echo "fresh-root: $R is still mounted: not removed" >&2; return; }
	fi
	cp -aln "$R"/var/cache/apt/archives/*.deb "$cache/debs/" 2>/dev/null ||
		cp -an "$R"/var/cache/apt/archives/*.deb "$cache/debs/" 2>/dev/null
	rm -f "$R/.fresh-root.ns"
	if [ -n "$keep" ]; then
		echo "fresh-root: root kept: tests/fresh-root.sh --root $R -- bash" >&2
	else
		rm -rf --one-file-system "$R"
	fi
}
trap cleanup EXIT
# In the background: bash runs a trap only once its foreground child ends.
trap 'exit 130' INT TERM

start=$(date +%s)
timeout -k 60 "${FRESH_ROOT_TIMEOUT:-85m}" \
	unshare -m --propagation private bash -c "$inside" inside "$R" "$cache" "$tarball" \
	"${FUZZ_SECONDS:-60}" "$cmd" </dev/null &
wait $!
rc=$?
echo "fresh-root: exit $rc after $(( ($(date +%s) - start) / 60 )) min $(( ($(date +%s) - start) % 60 )) s" >&2
exit $rc
