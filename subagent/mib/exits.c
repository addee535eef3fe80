// SPDX-License-Identifier: BSD-2-Clause
/*
 * exits.c - clusterMonExit: the log of processes that ended (issue 43),
 * served from the exit snapshot the proc source's thread publishes.
 * Entries never change once logged, so a row's generation is its index
 * and the image encodes each row once, past the rows it holds already.
 *
 * Fed by the helper's exit ring, the log is drained while the process
 * table sleeps, so a reader of it wakes nothing; fed by the scanner's
 * last readings (no helper), it needs the table sampled.
 */
#include "engine/group.h"
#include "mib.h"

#include <stddef.h>
#include <string.h>

#include "../sources/oomwatch.h"
#include "../sources/proc.h"

static const oid exit_oid[] = { CM_OID_clusterMonExit };
static const oid oom_trap_oid[] = { CM_OID_clusterMonOomKill };

static void *exit_acquire(void)
{
	return proc_exits_take();
}

static void exit_release(void *view)
{
	proc_exits_drop(view);
}

static const struct exit_view *log_of(void *view)
{
	return view ? ((const struct exit_snapshot *)view)->log : NULL;
}

static unsigned exit_demand(void)
{
	return proc_exits_exact() ? MIB_DEMAND_NONE : 1u << SOURCE_PROC;
}

static uint64_t exit_generation(void)
{
	struct exit_snapshot *s = proc_exits_take();
	uint64_t gen = s != NULL ? s->gen : 0;

	proc_exits_drop(s);
	return gen;
}

static size_t exit_rows(void *view)
{
	const struct exit_view *v = log_of(view);

	return v ? v->n : 0;
}

static void exit_index(void *view, size_t row, oid *out)
{
	out[0] = exit_view_at(log_of(view), row)->index;
}

static uint64_t exit_row_gen(void *view, size_t row)
{
	return exit_view_at(log_of(view), row)->index;
}

/* The index after the newest entry: every row below it in a later view
 * was in this one, unchanged (entries leave only from the front). */
static uint64_t exit_view_gen(void *view)
{
	const struct exit_view *v = log_of(view);

	return v != NULL ? (uint64_t)v->first_index + v->n : 0;
}

static size_t exit_same_since(void *view, size_t row, uint64_t since)
{
	const struct exit_view *v = log_of(view);
	uint64_t index = exit_view_at(v, row)->index;

	return index >= since ? 0 : since - index < v->n - row ? (size_t)(since - index) : v->n - row;
}

static int truth(struct mib_value *v, bool b)
{
	return mib_u64(v, ASN_INTEGER, b ? 1 : 2);
}

static int gauge64(struct mib_value *v, uint64_t n)
{
	return mib_u64(v, ASN_COUNTER64, n);
}

/* The columns a process's identity fills. */
static int who(const struct exit_entry *e, unsigned col, struct mib_value *v)
{
	switch (col) {
	case CM_ARC_clusterMonProcExitPid: return mib_u64(v, ASN_UNSIGNED, e->pid);
	case CM_ARC_clusterMonProcExitName: return mib_string(v, e->comm);
	case CM_ARC_clusterMonProcExitCmdline: return mib_string(v, e->cmdline);
	case CM_ARC_clusterMonProcExitUid: return mib_u64(v, ASN_UNSIGNED, e->uid);
	case CM_ARC_clusterMonProcExitCgroup: return mib_string(v, e->cgroup);
	case CM_ARC_clusterMonProcExitWorkload: return mib_string(v, e->workload);
	case CM_ARC_clusterMonProcExitStartTime: return gauge64(v, e->start_ms);
	case CM_ARC_clusterMonProcExitEndTime: return gauge64(v, e->end_ms);
	case CM_ARC_clusterMonProcExitPpid: return mib_u64(v, ASN_UNSIGNED, e->ppid);
	default: return MIB_ABSENT;
	}
}

static int exit_get(void *view, size_t row, unsigned col, struct mib_value *v)
{
	const struct exit_entry *e = exit_view_at(log_of(view), row);

	switch (col) {
	case CM_ARC_clusterMonProcExitCpuNs: return gauge64(v, e->cpu_ns);
	case CM_ARC_clusterMonProcExitUserNs: return gauge64(v, e->user_ns);
	case CM_ARC_clusterMonProcExitSystemNs: return gauge64(v, e->system_ns);
	case CM_ARC_clusterMonProcExitRunDelayNs: return gauge64(v, e->run_delay_ns);
	case CM_ARC_clusterMonProcExitPeakRssKB: return gauge64(v, e->peak_rss_kb);
	case CM_ARC_clusterMonProcExitMajorFaults: return gauge64(v, e->majflt);
	case CM_ARC_clusterMonProcExitReadBytes:
		return e->have_io ? gauge64(v, e->read_bytes) : MIB_ABSENT;
	case CM_ARC_clusterMonProcExitWriteBytes:
		return e->have_io ? gauge64(v, e->write_bytes) : MIB_ABSENT;
	case CM_ARC_clusterMonProcExitCode:
		return mib_u64(v, ASN_INTEGER, (uint64_t)(int64_t)e->exit_code);
	case CM_ARC_clusterMonProcExitSignal:
		return e->have_exit ? mib_u64(v, ASN_INTEGER, (uint64_t)e->exit_signal) : MIB_ABSENT;
	case CM_ARC_clusterMonProcExitOomKilled: return truth(v, e->oom_killed);
	case CM_ARC_clusterMonProcExitApproximate: return truth(v, e->approximate);
	default: return who(e, col, v);
	}
}

/* The log's counters, by offset into struct exit_view. */
static int counter(void *view, struct mib_value *v, size_t at)
{
	const struct exit_view *l = log_of(view);
	uint64_t n = 0;

	if (l != NULL)
		memcpy(&n, (const char *)l + at, sizeof(n));
	return mib_u64(v, ASN_COUNTER64, n);
}

static int get_logged(void *view, struct mib_value *v)
{
	return counter(view, v, offsetof(struct exit_view, logged));
}

static int get_bumped(void *view, struct mib_value *v)
{
	return counter(view, v, offsetof(struct exit_view, bumped));
}

static int get_filtered(void *view, struct mib_value *v)
{
	return counter(view, v, offsetof(struct exit_view, filtered));
}

static int get_lost(void *view, struct mib_value *v)
{
	return counter(view, v, offsetof(struct exit_view, lost));
}

static const struct mib_table exit_table = {
	.min_col = CM_ARC_clusterMonProcExitPid,
	.max_col = CM_ARC_clusterMonProcExitPpid,
	.index_len = 1,
	.rows = exit_rows,
	.row_index = exit_index,
	.get = exit_get,
	.row_gen = exit_row_gen,
	.view_gen = exit_view_gen,
	.same_since = exit_same_since,
};

static const struct mib_object exit_objects[] = {
	{ .arc = CM_ARC_clusterMonProcExitTable, .table = &exit_table },
	{ .arc = CM_ARC_clusterMonProcExitLogged, .get = get_logged },
	{ .arc = CM_ARC_clusterMonProcExitBumped, .get = get_bumped },
	{ .arc = CM_ARC_clusterMonProcExitFiltered, .get = get_filtered },
	{ .arc = CM_ARC_clusterMonProcExitLost, .get = get_lost },
};

static const struct mib_group exit_group = {
	.name = "clusterMonExit",
	.base = exit_oid,
	.base_len = OID_LENGTH(exit_oid),
	.objects = exit_objects,
	.nobjects = sizeof(exit_objects) / sizeof(exit_objects[0]),
	.acquire = exit_acquire,
	.release = exit_release,
	.demand_now = exit_demand,
	.generation = exit_generation,
};

/* ------------------------------------------------ clusterMonOomKill */

static void add_text(netsnmp_variable_list **vars, unsigned arc, const char *s)
{
	mib_add_column(vars, exit_oid, OID_LENGTH(exit_oid), arc, 0, ASN_OCTET_STR, s, strlen(s));
}

static void add_u64(netsnmp_variable_list **vars, unsigned arc, uint64_t n)
{
	struct counter64 c = { .high = (u_long)(n >> 32), .low = (u_long)(n & 0xffffffffu) };

	mib_add_column(vars, exit_oid, OID_LENGTH(exit_oid), arc, 0, ASN_COUNTER64, &c, sizeof(c));
}

/* One victim's notification, through whatever trap sinks the master (or
 * clustermond's own config) names, as the threshold traps go. */
static void send_oom(const struct oom_event *e)
{
	netsnmp_variable_list *vars = mib_notification(oom_trap_oid, OID_LENGTH(oom_trap_oid));
	u_long pid = e->v.pid;

	mib_add_column(&vars, exit_oid, OID_LENGTH(exit_oid), CM_ARC_clusterMonOomKillPid, 0,
		       ASN_UNSIGNED, &pid, sizeof(pid));
	add_text(&vars, CM_ARC_clusterMonOomKillName, e->v.comm);
	add_text(&vars, CM_ARC_clusterMonOomKillCgroup, e->v.cgroup);
	add_text(&vars, CM_ARC_clusterMonOomKillWorkload, e->workload);
	if (e->v.have_mem) {
		add_u64(&vars, CM_ARC_clusterMonOomKillMemLimit,
			e->v.limit == CG_UNLIMITED ? 0 : e->v.limit);
		add_u64(&vars, CM_ARC_clusterMonOomKillMemUsage, e->v.usage);
	}
	send_v2trap(vars);
	snmp_free_varbind(vars);
}

void mib_exit_notify(void)
{
	struct oom_event ev[8];
	uint64_t dropped;
	size_t n;

	while ((n = oomwatch_take(ev, sizeof(ev) / sizeof(ev[0]), &dropped)) > 0 || dropped) {
		if (dropped)
			snmp_log(LOG_WARNING, "clustermond: %llu OOM kills not notified (queue full)\n",
				 (unsigned long long)dropped);
		for (size_t i = 0; i < n; i++)
			send_oom(&ev[i]);
		if (n == 0)
			break;
	}
}

int mib_exit_register(void)
{
	return mib_group_register(&exit_group);
}
