/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * cgroups.c - clustermonctl's cgroups view: the busiest cgroups of
 * clusterMonCgroupTable over one second, by CPU, memory, throttling, OOM
 * kills or run-queue latency (p99, with clustermon-kprobe), each with its
 * workload name (Slurm job, pod, container, unit).
 */
#include "ctl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mib/cm-oids.h"

/* One cgroup's readings; absent numbers stay 0. */
struct cg_row {
	oid index;
	char path[64];
	char workload[48];  /* clusterMonCgroupWorkload, "-" when absent */
	uint64_t cpu_ns, mem, throttled_ns, oom_kills, rq_p99;
	bool has_rq;
	double cpu_pct, thr_pct;
};

struct cg_list {
	size_t n, cap;
	struct cg_row *rows;
};

static void collect_cgroup(const oid *index, size_t len, const netsnmp_variable_list *v, void *arg)
{
	static const oid cpu[] = { CM_OID_clusterMonCgroupCpuNs };
	static const oid mem[] = { CM_OID_clusterMonCgroupMemCurrent };
	static const oid thr[] = { CM_OID_clusterMonCgroupThrottledNs };
	static const oid oom[] = { CM_OID_clusterMonCgroupOomKills };
	static const oid wl[] = { CM_OID_clusterMonCgroupWorkload };
	static const oid p99[] = { CM_OID_clusterMonCgroupRunqlatP99 };
	struct cg_list *l = arg;
	struct cg_row *r;

	if (len != 1 || v->type != ASN_OCTET_STR)
		return;
	r = ctl_append((void **)&l->rows, &l->n, &l->cap, sizeof(*r));
	r->index = index[0];
	/* The tail of a long path says more than its head. */
	if (v->val_len >= sizeof(r->path))
		snprintf(r->path, sizeof(r->path), "...%.*s", (int)sizeof(r->path) - 4,
			 (const char *)v->val.string + v->val_len - (sizeof(r->path) - 4));
	else
		snprintf(r->path, sizeof(r->path), "%.*s", (int)v->val_len, (const char *)v->val.string);
	cm_get_number(cpu, OID_LENGTH(cpu), index, 1, &r->cpu_ns);
	cm_get_number(mem, OID_LENGTH(mem), index, 1, &r->mem);
	cm_get_number(thr, OID_LENGTH(thr), index, 1, &r->throttled_ns);
	cm_get_number(oom, OID_LENGTH(oom), index, 1, &r->oom_kills);
	r->has_rq = cm_get_number(p99, OID_LENGTH(p99), index, 1, &r->rq_p99);
	cm_get_string(wl, OID_LENGTH(wl), index, 1, r->workload, sizeof(r->workload));
	if (r->workload[0] == '\0')
		strcpy(r->workload, "-");
}

static const char *cg_sort = "cpu";

static double cg_key(const struct cg_row *r)
{
	if (strcmp(cg_sort, "mem") == 0)
		return (double)r->mem;
	if (strcmp(cg_sort, "throttle") == 0)
		return r->thr_pct;
	if (strcmp(cg_sort, "oom") == 0)
		return (double)r->oom_kills;
	if (strcmp(cg_sort, "runqlat") == 0)
		return (double)r->rq_p99;
	return r->cpu_pct;
}

static int by_cg_key(const void *a, const void *b)
{
	double x = cg_key(a), y = cg_key(b);

	if (x != y)
		return x < y ? 1 : -1;
	return strcmp(((const struct cg_row *)a)->path, ((const struct cg_row *)b)->path);
}

/* Rates from two readings a second apart, matched by index. */
static void cg_rates(struct cg_list *now, const struct cg_list *before, double secs)
{
	for (size_t i = 0; i < now->n; i++)
		for (size_t j = 0; j < before->n; j++) {
			const struct cg_row *b = &before->rows[j];
			struct cg_row *r = &now->rows[i];

			if (b->index != r->index)
				continue;
			if (r->cpu_ns >= b->cpu_ns)
				r->cpu_pct = (double)(r->cpu_ns - b->cpu_ns) / (secs * 1e7);
			if (r->throttled_ns >= b->throttled_ns)
				r->thr_pct = (double)(r->throttled_ns - b->throttled_ns) / (secs * 1e7);
		}
}

void cmd_cgroups(int argc, char **argv)
{
	static const oid paths[] = { CM_OID_clusterMonCgroupPath };
	struct cg_list a = { 0, 0, NULL }, b = { 0, 0, NULL };
	long top = 20;

	for (int i = 0; i < argc; i++) {
		if (strncmp(argv[i], "sort=", 5) == 0)
			cg_sort = argv[i] + 5;
		else if (!ctl_number(argv[i], 1, 100000, &top))
			die(EXIT_REFUSED, "cgroups [N] [sort=cpu|mem|throttle|oom|runqlat]");
	}
	if (strcmp(cg_sort, "cpu") && strcmp(cg_sort, "mem") && strcmp(cg_sort, "throttle") &&
	    strcmp(cg_sort, "oom") && strcmp(cg_sort, "runqlat"))
		die(EXIT_REFUSED, "cgroups: sort=cpu, mem, throttle, oom or runqlat");
	cm_walk(paths, OID_LENGTH(paths), collect_cgroup, &a);
	sleep(1);
	cm_walk(paths, OID_LENGTH(paths), collect_cgroup, &b);
	cg_rates(&b, &a, 1.0);
	if (b.n > 1)
		qsort(b.rows, b.n, sizeof(b.rows[0]), by_cg_key);
	printf("%-40s %7s %10s %10s %8s %11s  %s\n", "CGROUP", "CPU%", "MEM(MiB)", "THROTTLED%",
	       "OOMKILLS", "RUNQ-P99us", "WORKLOAD");
	for (size_t i = 0; i < b.n && i < (size_t)top; i++) {
		char p99[24] = "-";

		if (b.rows[i].has_rq)
			snprintf(p99, sizeof(p99), "%.1f", (double)b.rows[i].rq_p99 / 1000.0);
		printf("%-40.40s %7.2f %10.1f %10.2f %8llu %11s  %s\n", b.rows[i].path,
		       b.rows[i].cpu_pct, (double)b.rows[i].mem / 1048576.0, b.rows[i].thr_pct,
		       (unsigned long long)b.rows[i].oom_kills, p99, b.rows[i].workload);
	}
	free(a.rows);
	free(b.rows);
}

