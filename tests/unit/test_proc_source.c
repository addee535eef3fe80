/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_proc_source.c - the proc source's sample path on a copy of the
 * proc-procs fixture, with a fake clock (core/clock.h) so each interval is
 * exactly one second: rows and their units, start times from btime, one
 * process's CPU share over an interval, and the procFilter rules (uid, name
 * glob, top N busiest).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sources/sources.h"
#include "fixture.h"
#include "fake_clock.h"
#include "tap.h"

#define SEC FAKE_SEC

static char dir[] = "/tmp/cm-procsrc-XXXXXX";
static void put(const char *rel, const char *text)
{
	fixture_put(dir, rel, text);
}

static const struct proc_row *row(const struct proc_snapshot *s, int32_t pid)
{
	for (size_t i = 0; i < s->nrows; i++)
		if (s->rows[i].pid == pid)
			return &s->rows[i];
	return NULL;
}

/* Samples one second after the last, under filter f; returns the pids. */
static struct proc_snapshot *sample(void *ctx, const struct proc_filter *f, char *pids,
				    size_t len)
{
	struct proc_snapshot *s;
	size_t at = 0;

	struct source_cmd cmd = { .kind = SOURCE_CMD_PROC_FILTER, .proc_filter = *f };

	proc_source_ops.command(ctx, &cmd);
	fake_now += SEC;
	ok(proc_source_ops.sample(ctx) == 0, "sample succeeds");
	s = (struct proc_snapshot *)snapshot_acquire(&proc_slot);
	pids[0] = '\0';
	for (size_t i = 0; i < s->nrows && at < len; i++)
		at += (size_t)snprintf(pids + at, len - at, "%s%d", i ? " " : "",
				       (int)s->rows[i].pid);
	return s;
}

static void first(void *ctx, const struct proc_filter *all)
{
	char pids[128];
	struct proc_snapshot *s = sample(ctx, all, pids, sizeof(pids));
	const struct proc_row *r = row(s, 4242);
	long page_kb = sysconf(_SC_PAGESIZE) / 1024;

	ok(strcmp(pids, "1 2 812 4242 5000") == 0 && s->followed == 5,
	   "every readable process, ascending pid; the cut one skipped (got %s)", pids);
	if (r != NULL) {
		ok(strcmp(r->comm, "a b) c") == 0 && r->state == 'R' && r->uid == 1000 &&
		   r->threads == 3, "comm with parentheses, state, uid, threads");
		ok(r->user_ms == 7000 && r->system_ms == 3000, "700 and 300 ticks in ms");
		is_u64(r->rss_kb, 512 * (uint64_t)page_kb, "rss in kB");
		is_u64(r->start_time, 1700000000 + 99999 / 100, "start time = btime + ticks / hz");
		ok(r->util == 0, "no CPU share before a second sample");
		is_u64(r->system_share, 3000, "system share over its lifetime: 300 of 1000 ticks");
		ok(!r->have_schedstat && r->vol_ctxsw == 12 && r->invol_ctxsw == 4,
		   "status figures; no schedstat for a multi-threaded process");
		ok(row(s, 1)->have_schedstat && row(s, 1)->cpu_ns == 480000000,
		   "a single-threaded process has its schedstat CPU time");
	}
	snapshot_release(&proc_slot, &s->hdr);
}

static void filters(void *ctx, const struct proc_filter *all)
{
	struct proc_filter top1 = *all, mine = *all, glob = *all;
	struct proc_snapshot *s;
	char pids[128];

	/* 4242 ran 50 ticks (0.5 s) of CPU in the next one-second interval. */
	put("proc/4242/stat", "4242 (a b) c) R 1 4242 4242 34816 4242 4194304 1234 0 5 0 "
	    "725 325 0 0 -2 0 3 0 99999 2000000 512 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 "
	    "17 1 1 1 0 0 0 0 0 0 0 0 0 0 0\n");
	top1.top = 1;
	s = sample(ctx, &top1, pids, sizeof(pids));
	ok(strcmp(pids, "4242") == 0, "top=1 keeps the busiest process (got %s)", pids);
	ok(s->nrows == 1 && s->rows[0].util == 5000,
	   "50 ticks of CPU time in 1 s: 50.00%% of one CPU");
	snapshot_release(&proc_slot, &s->hdr);

	mine.uid = 1000;
	s = sample(ctx, &mine, pids, sizeof(pids));
	ok(strcmp(pids, "812 4242 5000") == 0, "uid=1000 (got %s)", pids);
	ok(row(s, 4242) != NULL && row(s, 4242)->util == 0, "no CPU used in the last interval");
	snapshot_release(&proc_slot, &s->hdr);

	snprintf(glob.name, sizeof(glob.name), "*d");
	s = sample(ctx, &glob, pids, sizeof(pids));
	ok(strcmp(pids, "1 2") == 0, "name=*d matches systemd and kthreadd (got %s)", pids);
	ok(s->followed == 5, "filters hide rows, not processes followed");
	snapshot_release(&proc_slot, &s->hdr);
}

int main(void)
{
	struct proc_filter all = { .name = "", .uid = -1, .top = 0 };
	char root[512], cmd[1200];
	void *ctx;

	if (sysconf(_SC_CLK_TCK) != 100 || mkdtemp(dir) == NULL) {
		printf("1..0 # SKIP needs USER_HZ 100 and /tmp\n");
		return 0;
	}
	snprintf(cmd, sizeof(cmd), "cp -r '%s/proc' '%s/'",
		 fixture_root(root, sizeof(root), "proc-procs"), dir);
	if (!ok(system(cmd) == 0, "copied the proc-procs fixture"))
		return done_testing();
	put("proc/stat", "cpu  1 0 0 1 0 0 0 0\nbtime 1700000000\n");
	fake_clock_start(5 * SEC);
	ctx = proc_source_ops.init(dir);
	if (ok(ctx != NULL, "init on the copy")) {
		first(ctx, &all);
		filters(ctx, &all);
		proc_source_ops.fini(ctx);
	}
	fake_clock_stop();
	fixture_remove(dir);
	return done_testing();
}
