# threads.sh - sourced by the benchmarks that print a process's CPU thread
# by thread (procfed.sh, defaults.sh), from schedstat (ns, exact where
# stat's ticks are 10 ms coarse).

# cpu_ns PID: CPU time of all its threads, in ns.
cpu_ns() { cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{ n += $1 } END { printf "%.0f\n", n }'; }
# threads PID: "NAME NS" per thread (threads of one name summed), read by
# one awk so the snapshot takes milliseconds, not a loop of processes.
threads() {
	(cd /proc/"$1"/task 2>/dev/null && awk '
		{ split(FILENAME, p, "/") }
		p[2] == "comm" { gsub(/ /, "_"); name[p[1]] = $0 }
		p[2] == "schedstat" { ns[p[1]] = $1 }
		END { for (t in ns) n[name[t]] += ns[t]; for (k in n) printf "%s %.0f\n", k, n[k] }
	' */comm */schedstat 2>/dev/null)
}
# per_thread BEFORE AFTER NS: each thread's share of a core over NS of wall time.
per_thread() {
	awk -v ns="$3" 'NR == FNR { a[$1] = $2; next }
		{ printf " %s %.3f%%", $1, ($2 - a[$1]) * 100 / ns }' <(printf '%s\n' "$1") <(printf '%s\n' "$2")
}
