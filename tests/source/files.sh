# files.sh - sourced by the source-tree tests: $top, and c_files listing
# the tree's C files and headers relative to it, one a line. Not build
# trees below the top (a directory with a config.status), not what a build
# in the tree generates (config.h, cm-oids.h, the BPF skeletons), not git's
# own files.
set -u
top=${top_srcdir:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
c_files() {
	(cd "$top" && find . -mindepth 1 \( -name .git -o -name autom4te.cache \
		-o -type d -exec test -e '{}/config.status' ';' \) -prune \
		-o -type f \( -name '*.c' -o -name '*.h' \) ! -path ./config.h \
		! -name cm-oids.h ! -name '*.skel.h' -print) | sed 's|^\./||' | sort
}
