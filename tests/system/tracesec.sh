#!/bin/bash
# tracesec.sh - the root helper's trace writer never follows a path an
# unprivileged user can change (issue 40). User nobody plants symbolic links
# to a root-owned 0600 file at every path the helper used to write: session
# directories named for every second of the next 40 (the old, guessable
# trace-ID-STAMP names) with metadata and cpuN in them, inside a base that
# nobody owns, a base that is a symbolic link, a group/other-writable base,
# and a base whose parent nobody owns (and swaps). Traces started over the
# helper's socket are refused with the reason; the target keeps its bytes
# and mtime; a trace into a proper base goes into a fresh directory of the
# helper's own, with a name nobody could guess, and regular files.
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || skip_all "needs root to load BPF programs"
need_helper
command -v setpriv >/dev/null || missing_all "setpriv is missing (util-linux, tests/setup-deps.sh)"
plan 23
NOBODY=nobody NOGROUP=$(id -gn nobody)
NCPU=$(awk -F- '{ print $NF + 1 }' /sys/devices/system/cpu/possible)
# nobody walks into $T (mktemp's 0700) to plant; it lists nothing there.
chmod 711 "$T"
P="$T/w" B="$T/w/traces"
mkdir -m 755 "$P"
TARGET="$T/target"
head -c 4096 /dev/urandom >"$TARGET"
chmod 600 "$TARGET"
touch -d '2020-01-01 00:00:00' "$TARGET"
sum0=$(sha256sum <"$TARGET") mtime0=$(stat -c %Y.%y "$TARGET")
untouched() { [ "$(sha256sum <"$TARGET")" = "$sum0" ] && [ "$(stat -c %Y.%y "$TARGET")" = "$mtime0" ]; }

# as_nobody SCRIPT: bash as nobody, no supplementary groups.
as_nobody() {
	local script=$1; shift
	setpriv --reuid="$NOBODY" --regid="$NOGROUP" --clear-groups bash -c "$script" "$@"
}
# plant DIR ID: as nobody, trace-ID-STAMP for each second of the next 40,
# each with metadata and cpu0..cpuN-1 linked to the target; and the same
# links in DIR itself.
plant() {
	as_nobody '
now=$(date +%s)
for s in $(seq -2 40); do
	d="$1/trace-$2-$(date -u -d "@$((now + s))" +%Y%m%dT%H%M%SZ)"
	mkdir -p "$d" || exit 1
	for f in metadata $(seq -f "cpu%.0f" 0 $(($3 - 1))); do
		ln -sfn "$4" "$d/$f" && ln -sfn "$4" "$1/$f" || exit 1
	done
done' plant "$1" "$2" "$NCPU" "$TARGET"
}
# links_intact DIR: every planted name in DIR is still a symbolic link.
links_intact() { [ -z "$(find "$1" -mindepth 1 ! -type l ! -type d -print -quit)" ]; }
nobody_dir() { mkdir -p "$1" && chown "$NOBODY:$NOGROUP" "$1" && chmod 755 "$1"; }
trace() { helper_say "trace $1 sched_switch duration=300\n"; }

start_helper -t "$B" || bail "clustermon-kprobe did not start: $(cat "$T/kprobe.log")"
is "$(stat -c '%a %U' "$B" 2>&1)" "750 root" "the helper makes its base 0750 root's"

# --- 1. a base nobody owns, session directories and files planted in it
mv "$B" "$T/good"
nobody_dir "$B"
plant "$B" 1; ok $? "nobody plants trace-1-STAMP directories for the next 40 s, links to the target in each"
out=$(trace 1)
is "$out" "err failed trace base $B is not owned by root" "a base nobody owns is refused"
untouched; ok $? "the target is untouched"
links_intact "$B"; ok $? "every planted link is still a link (nothing written through one)"
rm -rf "$B"

# --- 2. the base a symbolic link to a directory nobody owns
nobody_dir "$T/evil"
plant "$T/evil" 2
ln -s "$T/evil" "$B"
out=$(trace 2)
is "$out" "err failed trace base $B is a symbolic link" "a base that is a symbolic link is refused"
untouched; ok $? "the target is untouched"
links_intact "$T/evil"; ok $? "and the links planted where it points are links still"
rm -f "$B"

# --- 3. a root-owned base anyone may write in (even sticky)
mkdir -m 1777 "$B"
plant "$B" 3
out=$(trace 3)
is "$out" "err failed trace base $B is writable by its group or others" \
	"a base others may write in is refused"
untouched; ok $? "the target is untouched"
rm -rf "$B"

# --- 4. a root-owned base in a directory nobody owns: nobody swaps it
mv "$T/good" "$B"
chown "$NOBODY:$NOGROUP" "$P"
as_nobody "mv '$B' '$P/old' && mkdir '$B'" ; ok $? "nobody, owning its parent, swaps the base for its own"
plant "$B" 4
out=$(trace 4)
is "$out" "err failed trace base $B: $P is not owned by root" \
	"a base whose parent another user owns is refused"
untouched; ok $? "the target is untouched"
as_nobody "rm -rf '$B' && ln -s '$T/evil' '$B'"
out=$(trace 5)
is "$out" "err failed trace base $B: $P is not owned by root" "and so with a link there"
untouched; ok $? "the target is untouched"
as_nobody "rm -f '$B'"
chown root:root "$P"
mv "$P/old" "$B"

# --- 5. a proper base: a fresh directory of the helper's own, unguessable
# name, regular files; nobody, racing meanwhile, can plant nothing in it.
before=$(ls -A "$B" 2>/dev/null | LC_ALL=C sort)
# setpriv execs bash: $! is the racer itself.
setpriv --reuid="$NOBODY" --regid="$NOGROUP" --clear-groups bash -c "
while :; do
	for s in 0 1 2; do
		d='$B'/trace-6-\$(date -u -d @\$((\$(date +%s) + s)) +%Y%m%dT%H%M%SZ)
		mkdir \"\$d\" 2>/dev/null && ln -s '$TARGET' \"\$d/metadata\"
		ln -s '$TARGET' '$B'/metadata 2>/dev/null
		mv '$B' '$P/stolen' 2>/dev/null && ln -s '$T/evil' '$B'
	done
done" &
racer=$!
out=$(trace 6)
dir=${out#ok started }
sleep 0.6
kill "$racer" 2>/dev/null; wait "$racer" 2>/dev/null
[[ $out =~ ^ok\ started\ $B/trace-6-[0-9]{8}T[0-9]{6}Z-[0-9a-f]{16}$ ]]
ok $? "a trace into a root-owned 0750 base starts, named trace-6-STAMP-RANDOM: $out"
is "$(stat -c '%a %U %F' "$dir" 2>&1)" "755 root directory" "its directory is the helper's, 0755"
is "$(comm -13 <(echo "$before") <(ls -A "$B" | LC_ALL=C sort) | tr '\n' ' ')" "${dir##*/} " \
	"the one new entry in the base is that directory (nobody planted nothing)"
files=$(find "$dir" -mindepth 1 -printf '%y %u %m %f\n' | sort)
grep -q '^f root 644 metadata$' <<<"$files" && ! grep -qv '^f root 644 \(metadata\|cpu[0-9]*\)$' <<<"$files"
ok $? "it holds only regular root files, metadata and cpuN, 0644: $(echo $files)"
helper_say 'stop 6\n' >/dev/null
untouched; ok $? "the target is untouched, bytes and mtime"
[ ! -e "$P/stolen" ] && [ ! -L "$B" ]; ok $? "the racer moved nothing"

# --- 6. the base vanished: made again, root's, never through a link
rm -rf "$B"
out=$(trace 7)
contains "^ok started $B/trace-7-" "$out" && [ "$(stat -c '%a %U' "$B")" = "750 root" ]
ok $? "a vanished base is made again, 0750 root's"
helper_say 'stop 7\n' >/dev/null
untouched; ok $? "after everything, the target is as it was"
finish
