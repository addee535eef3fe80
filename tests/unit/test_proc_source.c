/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_proc_source.c - the proc source's sample path on a copy of the
 * proc-procs fixture, with a fake clock (common/clock.h) so each interval is
 * exactly one second: rows and their units, start times from btime, a
 * process's CPU share over its lifetime when first seen and over an
 * interval after, and the procFilter rules (uid, name
 * glob, top N busiest).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sources/source_cmd.h"
#include "sources/proc.h"
#include "sources/sources.h"
#include "sources/top.h"
#include "fixture.h"
#include "fake_clock.h"
#include "tap.h"

#define SEC FAKE_SEC

static char dir[] = "/tmp/cm-procsrc-XXXXXX";
static void put(const char *rel, const char *text)
{
	fixture_put(dir, rel, text);
}

static void mkdirs(const char *rel)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "mkdir -p '%s/%s'", dir, rel);
	if (system(cmd) != 0)
		diag("mkdir %s failed", rel);
}

static void rmtree(const char *rel)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s/%s'", dir, rel);
	if (system(cmd) != 0)
		diag("rm %s failed", rel);
}

/* The boot-time clock: 1019.99 s since boot, 20 s after 4242 started (at
 * 99999 ticks). */
static uint64_t fake_boot(void)
{
	return 1019990 * FAKE_MS;
}

static const struct proc_row *row(const struct proc_snapshot *s, int32_t pid)
{
	for (size_t i = 0; i < s->nrows; i++)
		if (proc_snapshot_row(s, i)->pid == pid)
			return proc_snapshot_row(s, i);
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
	s = (struct proc_snapshot *)snapshot_acquire(proc_source_ops.slot);
	pids[0] = '\0';
	for (size_t i = 0; i < s->nrows && at < len; i++)
		at += (size_t)snprintf(pids + at, len - at, "%s%d", i ? " " : "",
				       (int)proc_snapshot_row(s, i)->pid);
	return s;
}

static void first(void *ctx, const struct proc_filter *all)
{
	char pids[128];
	struct proc_snapshot *s = sample(ctx, all, pids, sizeof(pids));
	const struct proc_row *r = row(s, 4242);
	long page_kb = sysconf(_SC_PAGESIZE) / 1024;

	ok(!s->helper_fed, "without a helper the snapshot says scanner");
	ok(strcmp(pids, "1 2 812 4242 5000") == 0 && s->followed == 5,
	   "every readable process, ascending pid; the cut one skipped (got %s)", pids);
	if (r != NULL) {
		ok(strcmp(r->comm, "a b) c") == 0 && r->state == 'R' && r->uid == 1000 &&
		   r->threads == 3, "comm with parentheses, state, uid, threads");
		ok(r->user_ms == 7000 && r->system_ms == 3000, "700 and 300 ticks in ms");
		is_u64(r->rss_kb, 512 * (uint64_t)page_kb, "rss in kB");
		is_u64(r->start_time, 1700000000 + 99999 / 100, "start time = btime + ticks / hz");
		is_u64(r->util, 5000, "first sight: its lifetime's share, as ps prints it "
		       "(1000 ticks of CPU in the 20 s since it started: 50.00%)");
		is_u64(r->system_share, 3000, "system share over its lifetime: 300 of 1000 ticks");
		ok(!r->have_schedstat && r->vol_ctxsw == 12 && r->invol_ctxsw == 4,
		   "status figures; no schedstat for a multi-threaded process");
		ok(row(s, 1)->have_schedstat && row(s, 1)->cpu_ns == 480000000,
		   "a single-threaded process has its schedstat CPU time");
		is_u64(row(s, 1)->util, 5, "and its first share from it: 0.48 s in 1019.87 s");
	}
	snapshot_release(proc_source_ops.slot, &s->hdr);
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
	ok(s->nrows == 1 && proc_snapshot_row(s, 0)->util == 5000,
	   "50 ticks of CPU time in 1 s: 50.00%% of one CPU");
	/* The top table ranks every process followed, not the filtered rows:
	 * the busiest first, then the idle ones by RSS, then pid. */
	ok(s->top != NULL && s->top->n == s->nall && s->top->rows[0]->pid == 4242,
	   "the top table has every process, the busiest at rank 1");
	if (s->top != NULL) {
		bool sorted = true;

		for (size_t i = 1; i < s->top->n; i++) {
			const struct proc_row *a = s->top->rows[i - 1], *b = s->top->rows[i];

			if (a->util < b->util || (a->util == b->util && (a->rss_kb < b->rss_kb ||
			    (a->rss_kb == b->rss_kb && a->pid > b->pid))))
				sorted = false;
		}
		ok(sorted, "ranked by CPU, then RSS, then pid");
	}
	snapshot_release(proc_source_ops.slot, &s->hdr);

	mine.uid = 1000;
	s = sample(ctx, &mine, pids, sizeof(pids));
	ok(strcmp(pids, "812 4242 5000") == 0, "uid=1000 (got %s)", pids);
	ok(row(s, 4242) != NULL && row(s, 4242)->util == 0, "no CPU used in the last interval");
	snapshot_release(proc_source_ops.slot, &s->hdr);

	snprintf(glob.name, sizeof(glob.name), "*d");
	s = sample(ctx, &glob, pids, sizeof(pids));
	ok(strcmp(pids, "1 2") == 0, "name=*d matches systemd and kthreadd (got %s)", pids);
	ok(s->followed == 5, "filters hide rows, not processes followed");
	snapshot_release(proc_source_ops.slot, &s->hdr);
}

/* One helper-fed sample, DT after the last, from a procs reply whose
 * lines follow the hello and count lines. */
static struct proc_snapshot *feed(void *ctx, uint64_t dt, const char *lines)
{
	char reply[1024];
	int n = 0;

	for (const char *p = lines; *p; p++)
		n += *p == '\n';
	snprintf(reply, sizeof(reply), "ok clustermon-kprobe 1 test-1\nok %d\n%s", n, lines);
	fake_now += dt;
	ok(proc_source_feed(ctx, reply) == 0, "helper-fed sample");
	return (struct proc_snapshot *)snapshot_acquire(proc_source_ops.slot);
}

static void done(struct proc_snapshot *s)
{
	snapshot_release(proc_source_ops.slot, &s->hdr);
}

#define MS (FAKE_SEC / 1000)

/* The helper's news: ran (MARK 1), exited (2), new or exec'd (3). */
static void fed(void *ctx, const struct proc_filter *all)
{
	struct source_cmd cmd = { .kind = SOURCE_CMD_PROC_FILTER, .proc_filter = *all };
	struct proc_snapshot *s, *before;
	const struct proc_row *r;
	uint64_t rss;

	proc_source_ops.command(ctx, &cmd);
	/* Two threads that used 3 ms and 4 ms before the helper counted. */
	mkdirs("proc/4242/task/4242");
	mkdirs("proc/4242/task/4243");
	put("proc/4242/task/4242/schedstat", "3000000 100 5\n");
	put("proc/4242/task/4243/schedstat", "4000000 200 5\n");
	s = feed(ctx, SEC, "");
	ok(s->helper_fed, "a helper-fed sample's snapshot says helper");
	r = row(s, 4242);
	ok(r && r->have_schedstat && r->cpu_ns == 7000000 && r->run_delay_ns == 300,
	   "joining: CpuNs is its threads' schedstat summed (%llu)",
	   r ? (unsigned long long)r->cpu_ns : 0ull);
	ok(r && r->util == 4, "and its first share is of its lifetime: 7 ms in 20 s, 0.04%% (%u)",
	   r ? r->util : 0);
	ok(s->sweep_fixes == 0 && s->followed == 5, "the first sweep joins, fixing nothing");
	rss = r ? r->rss_kb : 0;
	before = s;

	put("proc/4242/stat", "4242 (a b) c) R 1 4242 4242 34816 4242 4194304 1234 0 5 0 "
	    "800 400 0 0 -2 0 3 0 99999 2000000 999 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 "
	    "17 1 1 1 0 0 0 0 0 0 0 0 0 0 0\n");
	s = feed(ctx, 10 * MS, "proc 4242 5000000 0 1\n");
	r = row(s, 4242);
	ok(r && r->cpu_ns == 12000000 && r->util == 5000,
	   "it ran 5 ms of 10: CpuNs 7 + 5 ms, 50.00%% of a CPU (%u)", r ? r->util : 0);
	ok(r && r->rss_kb == rss, "its slow fields wait for their second");
	ok(r && r->gen == s->gen && row(s, 1)->gen < s->gen,
	   "only its row is new in this sample");
	ok(row(before, 4242)->cpu_ns == 7000000, "a reader of the older snapshot sees it unchanged");
	done(before);
	done(s);

	s = feed(ctx, 10 * MS, "");
	r = row(s, 4242);
	ok(r && r->util == 0 && r->cpu_ns == 12000000, "not run since: util 0, CpuNs kept");
	done(s);
	s = feed(ctx, SEC, "");
	r = row(s, 4242);
	ok(r && r->rss_kb != rss && r->user_ms == 8000, "a second later its slow fields are read");
	done(s);

	mkdirs("proc/7777");
	fixture_put(dir, "proc/7777/stat", "7777 (newbie) S 1 1 1 0 -1 1 1 0 0 0 1 1 0 0 20 0 1 0 "
		    "555 1 1 1\n");
	put("proc/7777/status", "Name:\tnewbie\nUid:\t7\t7\t7\t7\n");
	put("proc/7777/cmdline", "newbie");
	s = feed(ctx, 10 * MS, "proc 7777 1000 5 3\n");
	r = row(s, 7777);
	ok(r && strcmp(r->comm, "newbie") == 0 && r->uid == 7 && strcmp(r->cmdline, "newbie") == 0,
	   "MARK 3: a new process's row, with its identity");
	done(s);
	put("proc/7777/stat", "");
	rmtree("proc/7777");
	s = feed(ctx, 10 * MS, "proc 7777 2000 5 2\n");
	ok(row(s, 7777) == NULL, "MARK 2: gone once reaped");
	done(s);

	mkdirs("proc/8888");
	fixture_put(dir, "proc/8888/stat", "8888 (quiet) S 1 1 1 0 -1 1 1 0 0 0 1 1 0 0 20 0 1 0 "
		    "556 1 1 1\n");
	put("proc/8888/status", "Name:\tquiet\nUid:\t0\t0\t0\t0\n");
	put("proc/8888/cmdline", "quiet");
	s = feed(ctx, 10 * MS, "");
	ok(row(s, 8888) == NULL, "a process no event announced waits for the sweep");
	done(s);
	s = feed(ctx, 31 * SEC, "");
	ok(row(s, 8888) != NULL && s->sweep_fixes == 1, "the sweep adds it and counts one fix");
	done(s);
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
	cm_boottime_set(fake_boot);
	ctx = proc_source_ops.init(dir);
	if (ok(ctx != NULL, "init on the copy")) {
		first(ctx, &all);
		filters(ctx, &all);
		fed(ctx, &all);
		proc_source_ops.fini(ctx);
	}
	fake_clock_stop();
	cm_boottime_set(NULL);
	fixture_remove(dir);
	return done_testing();
}
