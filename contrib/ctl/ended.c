// SPDX-License-Identifier: BSD-2-Clause
/*
 * ended.c - clustermonctl's views of what ended (issue 43): `exits [N]`,
 * the newest N entries of clusterMonProcExitTable, and `jobs ended [N]`,
 * those of clusterMonCgroupEndTable, each with what it used over its life:
 * read from the newest index back, so a view of 20 costs 20 rows however
 * long the log, also redrawn every few seconds (-W).
 * -W SECONDS redraws them, as every view.
 */
#include "ctl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mib/cm-oids.h"

/* The indexes of a log table's rows (walked by one column), newest last. */
struct idx_list {
	size_t n, cap;
	oid *v;
};

static void collect_index(const oid *index, size_t len, const netsnmp_variable_list *v, void *arg)
{
	struct idx_list *l = arg;

	(void)v;
	if (len == 1)
		*(oid *)ctl_append((void **)&l->v, &l->n, &l->cap, sizeof(oid)) = index[0];
}

/* A log's newest index is its count of entries logged (logged, a scalar
 * without its .0), so the walk starts top rows before it rather than
 * reading every row the log holds. */
static void newest(const oid *col, size_t col_len, const oid *logged, size_t logged_len,
		   long top, struct idx_list *l)
{
	static const oid zero[] = { 0 };
	uint64_t last = 0;
	oid from[1] = { 0 };

	memset(l, 0, sizeof(*l));
	if (cm_get_number(logged, logged_len, zero, 1, &last) && last > (uint64_t)top)
		from[0] = (oid)(last - (uint64_t)top);
	cm_walk_from(col, col_len, from, from[0] ? 1 : 0, collect_index, l);
	if (l->n > (size_t)top) {
		memmove(l->v, l->v + l->n - (size_t)top, (size_t)top * sizeof(oid));
		l->n = (size_t)top;
	}
}

static long count_arg(int argc, char **argv, const char *usage)
{
	long top = 20;

	if (argc > 1 || (argc == 1 && !ctl_number(argv[0], 1, 100000, &top)))
		die(EXIT_REFUSED, "%s", usage);
	return top;
}

/* How a process ended: "exit N", "SIG N", "OOM", or "?" (approximate). */
static void how(oid i, char *buf, size_t len)
{
	static const oid entry[] = { CM_OID_clusterMonProcExitEntry };
	uint64_t code = ctl_col_num(entry, OID_LENGTH(entry), CM_ARC_clusterMonProcExitCode, i);
	uint64_t sig = ctl_col_num(entry, OID_LENGTH(entry), CM_ARC_clusterMonProcExitSignal, i);
	uint64_t oom = ctl_col_num(entry, OID_LENGTH(entry), CM_ARC_clusterMonProcExitOomKilled, i);
	uint64_t approx = ctl_col_num(entry, OID_LENGTH(entry),
				      CM_ARC_clusterMonProcExitApproximate, i);

	if (oom == 1)
		snprintf(buf, len, "OOM");
	else if (approx == 1)
		snprintf(buf, len, "~");
	else if (sig != 0)
		snprintf(buf, len, "SIG%llu", (unsigned long long)sig);
	else
		snprintf(buf, len, "exit %lld", (long long)(int32_t)code);
}

void cmd_exits(int argc, char **argv)
{
	static const oid col[] = { CM_OID_clusterMonProcExitPid };
	static const oid entry[] = { CM_OID_clusterMonProcExitEntry };
	static const oid logged[] = { CM_OID_clusterMonProcExitLogged };
	struct idx_list l;

	newest(col, OID_LENGTH(col), logged, OID_LENGTH(logged),
	       count_arg(argc, argv, "exits [N]"), &l);
	printf("%10s %8s %-16s %10s %10s %9s %-8s %s\n", "INDEX", "PID", "NAME", "LIFE(ms)",
	       "CPU(ms)", "PEAK(MiB)", "END", "WORKLOAD");
	for (size_t k = 0; k < l.n; k++) {
		oid i = l.v[k];
		char name[17], wl[48], end[32];
		uint64_t s = ctl_col_num(entry, OID_LENGTH(entry), CM_ARC_clusterMonProcExitStartTime, i);
		uint64_t e = ctl_col_num(entry, OID_LENGTH(entry), CM_ARC_clusterMonProcExitEndTime, i);

		ctl_col_str(entry, OID_LENGTH(entry), CM_ARC_clusterMonProcExitName, i, name,
			    sizeof(name));
		ctl_col_str(entry, OID_LENGTH(entry), CM_ARC_clusterMonProcExitWorkload, i, wl,
			    sizeof(wl));
		how(i, end, sizeof(end));
		printf("%10lu %8s %-16s %10s %10.1f %9.1f %-8s %s\n", (unsigned long)i,
		       u64_text(ctl_col_num(entry, OID_LENGTH(entry), CM_ARC_clusterMonProcExitPid, i)),
		       name, u64_text(e > s ? e - s : 0),
		       (double)ctl_col_num(entry, OID_LENGTH(entry), CM_ARC_clusterMonProcExitCpuNs, i) / 1e6,
		       (double)ctl_col_num(entry, OID_LENGTH(entry), CM_ARC_clusterMonProcExitPeakRssKB, i) / 1024.0,
		       end, wl[0] ? wl : "-");
	}
	free(l.v);
}

void cmd_jobs(int argc, char **argv)
{
	static const oid col[] = { CM_OID_clusterMonCgroupEndPath };
	static const oid entry[] = { CM_OID_clusterMonCgroupEndEntry };
	static const oid logged[] = { CM_OID_clusterMonCgroupEndLogged };
	struct idx_list l;

	if (argc < 1 || strcmp(argv[0], "ended") != 0)
		die(EXIT_REFUSED, "jobs ended [N]");
	newest(col, OID_LENGTH(col), logged, OID_LENGTH(logged),
	       count_arg(argc - 1, argv + 1, "jobs ended [N]"), &l);
	printf("%8s %-40s %9s %10s %9s %4s  %s\n", "INDEX", "CGROUP", "LIFE(s)", "CPU(s)",
	       "PEAK(MiB)", "OOMK", "WORKLOAD");
	for (size_t k = 0; k < l.n; k++) {
		oid i = l.v[k];
		char path[41], wl[48];
		uint64_t s = ctl_col_num(entry, OID_LENGTH(entry), CM_ARC_clusterMonCgroupEndStartTime, i);
		uint64_t e = ctl_col_num(entry, OID_LENGTH(entry), CM_ARC_clusterMonCgroupEndEndTime, i);

		ctl_col_str(entry, OID_LENGTH(entry), CM_ARC_clusterMonCgroupEndPath, i, path,
			    sizeof(path));
		ctl_col_str(entry, OID_LENGTH(entry), CM_ARC_clusterMonCgroupEndWorkload, i, wl,
			    sizeof(wl));
		printf("%8lu %-40s %9.1f %10.2f %9.1f %4s  %s\n", (unsigned long)i, path,
		       (double)(e > s ? e - s : 0) / 1e3,
		       (double)ctl_col_num(entry, OID_LENGTH(entry), CM_ARC_clusterMonCgroupEndCpuNs, i) / 1e9,
		       (double)ctl_col_num(entry, OID_LENGTH(entry), CM_ARC_clusterMonCgroupEndMemPeak, i) / 1048576.0,
		       u64_text(ctl_col_num(entry, OID_LENGTH(entry), CM_ARC_clusterMonCgroupEndOomKills, i)),
		       wl[0] ? wl : "-");
	}
	free(l.v);
}
