# threads.sh - sourced by the benchmarks that print a process's CPU thread
# by thread (procfed.sh, defaults.sh), from schedstat (ns, exact where
# stat's ticks are 10 ms coarse).

# cpu_ns PID: CPU time of all its threads, in ns.
cpu_ns() { cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{ n += $1 } END { printf "%.0f\n", n }'; }
# threads PID: "NAME NS" per thread (threads of one name summed).
threads() {
	local t
	for t in /proc/"$1"/task/*; do
		printf '%s %s\n' "$(tr ' ' _ <"$t/comm" 2>/dev/null)" "$(cut -d' ' -f1 "$t/schedstat" 2>/dev/null)"
	done | awk 'NF == 2 { n[$1] += $2 } END { for (k in n) printf "%s %.0f\n", k, n[k] }'
}
# per_thread BEFORE AFTER NS: each thread's share of a core over NS of wall time.
per_thread() {
	awk -v ns="$3" 'NR == FNR { a[$1] = $2; next }
		{ printf " %s %.3f%%", $1, ($2 - a[$1]) * 100 / ns }' <(printf '%s\n' "$1") <(printf '%s\n' "$2")
}
