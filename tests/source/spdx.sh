#!/bin/bash
# spdx.sh - every C file and header in the tree names its licence on its
# first line: BSD-2-Clause for userspace, GPL-2.0-only OR BSD-2-Clause for
# the eBPF programs (*.bpf.c, *.bpf.h), and each eBPF program tells the
# kernel "Dual BSD/GPL". A file added without its line fails here, by name.
. "$(dirname "$0")/files.sh"

files=$(c_files)
count=$(printf '%s\n' "$files" | grep -c .)
bpf=$(printf '%s\n' "$files" | grep -c '\.bpf\.c$')
echo "1..3"

bad=
for f in $files; do
	case $f in
	*.bpf.c | *.bpf.h) want='GPL-2.0-only OR BSD-2-Clause' ;;
	*) want='BSD-2-Clause' ;;
	esac
	line=$(head -n 1 "$top/$f")
	case $line in
	"/* SPDX-License-Identifier: $want */" | "// SPDX-License-Identifier: $want") ;;
	*) bad="$bad $f" ;;
	esac
done
if [ "$count" -gt 100 ] && [ -z "$bad" ]; then
	echo "ok 1 - all $count C files and headers start with their SPDX line"
else
	echo "not ok 1 - SPDX line missing or wrong (of $count files):$bad"
fi

nolic=
for f in $(printf '%s\n' "$files" | grep '\.bpf\.c$'); do
	grep -q '^char LICENSE\[\] SEC("license") = "Dual BSD/GPL";$' "$top/$f" || nolic="$nolic $f"
done
if [ "$bpf" -ge 3 ] && [ -z "$nolic" ]; then
	echo "ok 2 - all $bpf eBPF programs declare \"Dual BSD/GPL\""
else
	echo "not ok 2 - eBPF programs without \"Dual BSD/GPL\" (of $bpf):$nolic"
fi

# 3: the texts the SPDX lines name are in the tree.
if grep -q 'BSD 2-Clause License' "$top/LICENSE" 2>/dev/null &&
	grep -q 'GNU GENERAL PUBLIC LICENSE' "$top/LICENSE.GPL-2.0" 2>/dev/null &&
	grep -q 'Version 2, June 1991' "$top/LICENSE.GPL-2.0"; then
	echo "ok 3 - LICENSE (BSD-2-Clause) and LICENSE.GPL-2.0 present"
else
	echo "not ok 3 - LICENSE or LICENSE.GPL-2.0 missing or not the expected text"
fi
