/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * proc.c - clusterMonProc: the process table (WallMon) from the proc
 * snapshot, and the writable filter scalars that bound its cost.
 */
#include "engine/group.h"
#include "mib.h"
#include "top.h"

#include <errno.h>
#include <string.h>

#include "../runtime/sampler.h"
#include "../sources/proc.h"
#include "../sources/sources.h"
#include "../sources/source_cmd.h"

static const oid proc_oid[] = { CM_OID_clusterMonProc };

enum {
	COL_PID = CM_ARC_clusterMonProcPid,
	COL_NAME = CM_ARC_clusterMonProcName,
	COL_STATE = CM_ARC_clusterMonProcState,
	COL_USER_MS = CM_ARC_clusterMonProcUserMs,
	COL_SYSTEM_MS = CM_ARC_clusterMonProcSystemMs,
	COL_CPU_NS = CM_ARC_clusterMonProcCpuNs,
	COL_RUN_DELAY_NS = CM_ARC_clusterMonProcRunDelayNs,
	COL_CPU_UTIL = CM_ARC_clusterMonProcCpuUtil,
	COL_RSS_KB = CM_ARC_clusterMonProcRssKB,
	COL_THREADS = CM_ARC_clusterMonProcThreads,
	COL_MINFLT = CM_ARC_clusterMonProcMinorFaults,
	COL_MAJFLT = CM_ARC_clusterMonProcMajorFaults,
	COL_VOL_CTXSW = CM_ARC_clusterMonProcVolCtxSw,
	COL_INVOL_CTXSW = CM_ARC_clusterMonProcInvolCtxSw,
	COL_SYSTEM_SHARE = CM_ARC_clusterMonProcSystemShare,
	COL_UID = CM_ARC_clusterMonProcUid,
	COL_CMDLINE = CM_ARC_clusterMonProcCmdline,
	COL_START_TIME = CM_ARC_clusterMonProcStartTime,
	COL_CGROUP = CM_ARC_clusterMonProcCgroup
};

/* clusterMonProcState: the /proc state letter as an enumeration. */
static int32_t state_value(char c)
{
	static const char letters[] = "RSDZTtXI";
	const char *p = c ? strchr(letters, c) : NULL;

	return p ? (int32_t)(p - letters) + 1 : 9;
}

static size_t proc_rows(void *view)
{
	const struct proc_snapshot *s = view;

	return s ? s->nrows : 0;
}

static void proc_index(void *view, size_t row, oid *out)
{
	out[0] = (oid)proc_snapshot_row(view, row)->pid;
}

/* The snapshot in which the row last changed: proctab's generations only
 * grow over clustermond's life (one table, made once). */
static uint64_t proc_row_gen(void *view, size_t row)
{
	return proc_snapshot_row(view, row)->gen;
}

static uint64_t proc_view_gen(void *view)
{
	return ((const struct proc_snapshot *)view)->gen;
}

static size_t proc_same_since(void *view, size_t row, uint64_t since)
{
	return proc_snapshot_same_since(view, row, since);
}

static int proc_get(void *view, size_t row, unsigned col, struct mib_value *v)
{
	const struct proc_row *r = proc_snapshot_row(view, row);

	switch (col) {
	case COL_NAME: return mib_string(v, r->comm);
	case COL_STATE: return mib_u64(v, ASN_INTEGER, (uint64_t)state_value(r->state));
	case COL_USER_MS: return mib_u64(v, ASN_COUNTER64, r->user_ms);
	case COL_SYSTEM_MS: return mib_u64(v, ASN_COUNTER64, r->system_ms);
	case COL_CPU_NS:
		return r->have_schedstat ? mib_u64(v, ASN_COUNTER64, r->cpu_ns) : MIB_ABSENT;
	case COL_RUN_DELAY_NS:
		return r->have_schedstat ? mib_u64(v, ASN_COUNTER64, r->run_delay_ns) : MIB_ABSENT;
	case COL_CPU_UTIL: return mib_u64(v, ASN_GAUGE, r->util);
	case COL_RSS_KB: return mib_u64(v, ASN_COUNTER64, r->rss_kb);
	case COL_THREADS: return mib_u64(v, ASN_GAUGE, r->threads);
	case COL_MINFLT: return mib_u64(v, ASN_COUNTER64, r->minflt);
	case COL_MAJFLT: return mib_u64(v, ASN_COUNTER64, r->majflt);
	case COL_VOL_CTXSW: return mib_u64(v, ASN_COUNTER64, r->vol_ctxsw);
	case COL_INVOL_CTXSW: return mib_u64(v, ASN_COUNTER64, r->invol_ctxsw);
	case COL_SYSTEM_SHARE: return mib_u64(v, ASN_GAUGE, r->system_share);
	case COL_UID: return mib_u64(v, ASN_UNSIGNED, r->uid);
	case COL_CMDLINE: return mib_string(v, r->cmdline);
	case COL_START_TIME: return mib_u64(v, ASN_COUNTER64, r->start_time);
	case COL_CGROUP: return mib_string(v, r->cgroup);
	default: return MIB_ABSENT;
	}
}

/* ------------------------------------------------------- the filter */

/* What the last (re)load or SET asked for, kept on the SNMP thread: the
 * source applies each change on its own thread (a queued command), so a
 * GET right after a SET already says what was set. */
static struct proc_filter wanted = { .uid = -1 };

static void filter_get(struct proc_filter *out)
{
	*out = wanted;
}

static void filter_set(const struct proc_filter *f)
{
	struct source_cmd cmd = { .kind = SOURCE_CMD_PROC_FILTER, .proc_filter = *f };

	wanted = *f;
	if (sampler_post(SOURCE_PROC, &cmd, sizeof(cmd)) != 0)
		snmp_log(LOG_ERR, "clustermond: procFilter change not passed on: %s\n",
			 strerror(errno));
}

void mib_proc_configure(const struct proc_filter *f)
{
	wanted = *f;
}

static int get_filter_name(void *view, struct mib_value *v)
{
	struct proc_filter f;

	(void)view;
	filter_get(&f);
	return mib_string(v, f.name);
}

static int get_filter_uid(void *view, struct mib_value *v)
{
	struct proc_filter f;

	(void)view;
	filter_get(&f);
	return mib_u64(v, ASN_INTEGER, (uint64_t)(int64_t)f.uid);
}

static int get_filter_top(void *view, struct mib_value *v)
{
	struct proc_filter f;

	(void)view;
	filter_get(&f);
	return mib_u64(v, ASN_UNSIGNED, f.top);
}

static int get_count(void *view, struct mib_value *v)
{
	const struct proc_snapshot *s = view;

	return s ? mib_u64(v, ASN_GAUGE, s->nrows) : MIB_ABSENT;
}

/* ------------------------------------------------------- filter SETs */

static int check_name(const oid *idx, size_t len, const netsnmp_variable_list *var)
{
	(void)idx, (void)len;
	if (var->type != ASN_OCTET_STR)
		return SNMP_ERR_WRONGTYPE;
	if (var->val_len > 63)
		return SNMP_ERR_WRONGLENGTH;
	if (memchr(var->val.string, '\0', var->val_len) != NULL)
		return SNMP_ERR_WRONGVALUE;
	return SNMP_ERR_NOERROR;
}

/* The old pattern goes with the varbind: a request may set the name any
 * number of times, and each undo needs the pattern its apply replaced. */
_Static_assert(sizeof(((struct mib_undo *)0)->text) >= sizeof(((struct proc_filter *)0)->name),
	       "a saved pattern must fit the undo text");

static int apply_name(const oid *idx, size_t len, const netsnmp_variable_list *var,
		      struct mib_undo *undo)
{
	struct proc_filter f;

	(void)idx, (void)len;
	filter_get(&f);
	memcpy(undo->text, f.name, sizeof(f.name));
	memcpy(f.name, var->val.string, var->val_len);
	f.name[var->val_len] = '\0';
	filter_set(&f);
	return SNMP_ERR_NOERROR;
}

static void undo_name(const oid *idx, size_t len, const struct mib_undo *undo)
{
	struct proc_filter f;

	(void)idx, (void)len;
	filter_get(&f);
	memcpy(f.name, undo->text, sizeof(f.name));
	filter_set(&f);
}

static int check_uid(const oid *idx, size_t len, const netsnmp_variable_list *var)
{
	(void)idx, (void)len;
	if (var->type != ASN_INTEGER)
		return SNMP_ERR_WRONGTYPE;
	return *var->val.integer < -1 || *var->val.integer > 2147483647L ?
		       SNMP_ERR_WRONGVALUE : SNMP_ERR_NOERROR;
}

static int apply_uid(const oid *idx, size_t len, const netsnmp_variable_list *var,
		     struct mib_undo *undo)
{
	struct proc_filter f;

	(void)idx, (void)len;
	filter_get(&f);
	undo->num = (uint64_t)f.uid;
	f.uid = *var->val.integer;
	filter_set(&f);
	return SNMP_ERR_NOERROR;
}

static void undo_uid(const oid *idx, size_t len, const struct mib_undo *undo)
{
	struct proc_filter f;

	(void)idx, (void)len;
	filter_get(&f);
	f.uid = (int64_t)undo->num;
	filter_set(&f);
}

static int check_top(const oid *idx, size_t len, const netsnmp_variable_list *var)
{
	(void)idx, (void)len;
	if (var->type != ASN_UNSIGNED)
		return SNMP_ERR_WRONGTYPE;
	return *var->val.integer > 100000 ? SNMP_ERR_WRONGVALUE : SNMP_ERR_NOERROR;
}

static int apply_top(const oid *idx, size_t len, const netsnmp_variable_list *var,
		     struct mib_undo *undo)
{
	struct proc_filter f;

	(void)idx, (void)len;
	filter_get(&f);
	undo->num = f.top;
	f.top = (uint32_t)*var->val.integer;
	filter_set(&f);
	return SNMP_ERR_NOERROR;
}

static void undo_top(const oid *idx, size_t len, const struct mib_undo *undo)
{
	struct proc_filter f;

	(void)idx, (void)len;
	filter_get(&f);
	f.top = (uint32_t)undo->num;
	filter_set(&f);
}

static int get_sweep_fixes(void *view, struct mib_value *v)
{
	const struct proc_snapshot *s = view;

	return s ? mib_u64(v, ASN_COUNTER64, s->sweep_fixes) : MIB_ABSENT;
}

static int get_agent_rss(void *view, struct mib_value *v)
{
	const struct proc_snapshot *s = view;

	if (s == NULL || s->agent_rss_kb == 0)
		return MIB_ABSENT;
	return mib_u64(v, ASN_GAUGE, s->agent_rss_kb > UINT32_MAX ? UINT32_MAX : s->agent_rss_kb);
}

static const struct mib_setter name_setter = { check_name, apply_name, undo_name };
static const struct mib_setter uid_setter = { check_uid, apply_uid, undo_uid };
static const struct mib_setter top_setter = { check_top, apply_top, undo_top };

static const struct mib_table proc_table = {
	.min_col = COL_NAME,
	.max_col = COL_CGROUP,
	.index_len = 1,
	.rows = proc_rows,
	.row_index = proc_index,
	.get = proc_get,
	.row_gen = proc_row_gen,
	.view_gen = proc_view_gen,
	.same_since = proc_same_since,
};

static const struct mib_object proc_objects[] = {
	{ .arc = CM_ARC_clusterMonProcTable, .table = &proc_table },
	{ .arc = CM_ARC_clusterMonProcFilterName, .get = get_filter_name, .setter = &name_setter },
	{ .arc = CM_ARC_clusterMonProcFilterUid, .get = get_filter_uid, .setter = &uid_setter },
	{ .arc = CM_ARC_clusterMonProcFilterTopN, .get = get_filter_top, .setter = &top_setter },
	{ .arc = CM_ARC_clusterMonProcCount, .get = get_count },
	{ .arc = CM_ARC_clusterMonProcSweepFixes, .get = get_sweep_fixes },
	{ .arc = CM_ARC_clusterMonProcAgentRssKB, .get = get_agent_rss },
	{ .arc = CM_ARC_clusterMonProcTopTable, .table = &mib_proc_top_table },
};

static const struct mib_group proc_group = {
	.name = "clusterMonProc",
	.base = proc_oid,
	.base_len = OID_LENGTH(proc_oid),
	.objects = proc_objects,
	.nobjects = sizeof(proc_objects) / sizeof(proc_objects[0]),
	.source = SOURCE_PROC,
};

int mib_proc_register(void)
{
	return mib_group_register(&proc_group);
}
