#!/bin/sh
# install-missing.sh WHO PACKAGE... - apt-get install the packages that are
# not installed yet (none: nothing to do); WHO names the caller in messages.
# Shared by setup-deps.sh and setup-consoles.sh.
set -eu
who=$1
shift
missing=
for p in "$@"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
	echo "$who: missing packages:$missing; run as root (sudo)" >&2
	exit 1
fi
echo "$who: installing$missing"
export DEBIAN_FRONTEND=noninteractive
# Other apt users (unattended-upgrades, a second set-up) hold the lock for a
# while: wait for it rather than fail.
apt-get -o DPkg::Lock::Timeout=900 update -qq
# Services the packages bring are not needed: the tests run private instances.
apt-get -o DPkg::Lock::Timeout=900 install -y -qq --no-install-recommends $missing >/dev/null
