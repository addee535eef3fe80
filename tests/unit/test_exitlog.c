/* SPDX-License-Identifier: BSD-2-Clause */
/* test_exitlog.c - the exit log's core: indexes that only grow, the cap
 * and the age-out, the filters, and views that stay whole while the log
 * goes on (what a poller that remembers the last index relies on). */
#include <stdio.h>
#include <string.h>

#include "tap.h"
#include "core/exitlog.h"

#define MS 1000000ull

static struct exit_entry entry(uint32_t pid, const char *comm, uint64_t life_ms,
			       uint64_t cpu_ms, const char *cgroup)
{
	struct exit_entry e;

	memset(&e, 0, sizeof(e));
	e.pid = pid;
	e.start_ms = 1000;
	e.end_ms = 1000 + life_ms;
	e.cpu_ns = cpu_ms * MS;
	snprintf(e.comm, sizeof(e.comm), "%s", comm);
	snprintf(e.cgroup, sizeof(e.cgroup), "%s", cgroup);
	return e;
}

/* Every entry of v: indexes consecutive from first_index, pids as added. */
static int view_whole(const struct exit_view *v, uint32_t first, uint32_t first_pid)
{
	for (size_t i = 0; i < v->n; i++) {
		const struct exit_entry *e = exit_view_at(v, i);

		if (e->index != first + i || e->pid != first_pid + i ||
		    exit_view_find(v, e->index) != i)
			return 0;
	}
	return v->first_index == first;
}

static void test_cap_and_views(void)
{
	struct exit_conf c = { .entries = 100 };
	struct exitlog l;
	struct exit_view *old, *now;
	int added = 0;

	exitlog_init(&l);
	for (uint32_t i = 1; i <= 50; i++) {
		struct exit_entry e = entry(i, "cc1", 5, 1, "");

		added += exitlog_add(&l, &c, &e, i * MS);
	}
	old = exitlog_view(&l);
	ok(added == 50 && old->n == 50 && view_whole(old, 1, 1), "50 entries get indexes 1..50");
	for (uint32_t i = 51; i <= 1000; i++) {
		struct exit_entry e = entry(i, "cc1", 5, 1, "");

		exitlog_add(&l, &c, &e, i * MS);
	}
	now = exitlog_view(&l);
	ok(now->n == 100 && view_whole(now, 901, 901) && now->bumped == 900 && now->logged == 1000,
	   "capped at 100: the newest, 901..1000, and 900 bumped");
	ok(old->n == 50 && view_whole(old, 1, 1), "an older view is unchanged by 950 more entries");
	ok(exit_view_find(now, 900) == now->n && exit_view_find(now, 1001) == now->n &&
	   exit_view_find(now, 0) == now->n, "indexes outside the log are not found");
	exit_view_drop(old);
	exit_view_drop(now);
	exitlog_free(&l);
}

static void test_age(void)
{
	struct exit_conf c = { .entries = 1000, .age_s = 10 };
	struct exitlog l;
	struct exit_view *v;

	exitlog_init(&l);
	for (uint32_t i = 1; i <= 20; i++) {
		struct exit_entry e = entry(i, "x", 5, 0, "");

		exitlog_add(&l, &c, &e, (uint64_t)i * 1000 * MS); /* one a second */
	}
	exitlog_expire(&l, &c, 20500 * MS);
	v = exitlog_view(&l);
	ok(v->n == 10 && view_whole(v, 11, 11), "age 10 s: the entries of the last 10 s stay");
	exit_view_drop(v);
	exitlog_expire(&l, &c, 40000 * MS);
	v = exitlog_view(&l);
	ok(v->n == 0 && v->first_index == 21, "all aged out: empty, the next index is 21");
	exit_view_drop(v);
	{
		struct exit_entry e = entry(77, "x", 5, 0, "");

		exitlog_add(&l, &c, &e, 40001 * MS);
	}
	v = exitlog_view(&l);
	ok(v->n == 1 && exit_view_at(v, 0)->index == 21, "the next entry gets 21: never reused");
	exit_view_drop(v);
	c.entries = 1;
	exitlog_expire(&l, &c, 40002 * MS);
	ok(l.n == 1, "a lower cap on reload keeps the newest");
	exitlog_free(&l);
}

static void test_filters(void)
{
	struct exit_conf c = { .min_life_ms = 10, .min_cpu_ms = 2, .name = "cc*",
			       .cgroup = "slurm/**" };
	struct exit_entry a = entry(1, "cc1", 50, 5, "slurm/uid_1/job_7");
	struct exit_entry short_life = entry(2, "cc1", 5, 5, "slurm/uid_1/job_7");
	struct exit_entry idle = entry(3, "cc1", 50, 1, "slurm/uid_1/job_7");
	struct exit_entry other = entry(4, "ld", 50, 5, "slurm/uid_1/job_7");
	struct exit_entry elsewhere = entry(5, "cc1", 50, 5, "system.slice/x.service");
	struct exitlog l;

	ok(exitlog_passes(&c, &a), "a process passing every filter is logged");
	ok(!exitlog_passes(&c, &short_life), "one shorter than minLifetime is not");
	ok(!exitlog_passes(&c, &idle), "nor one below minCpu");
	ok(!exitlog_passes(&c, &other), "nor one whose name the glob refuses");
	ok(!exitlog_passes(&c, &elsewhere), "nor one in another cgroup");
	ok(exitlog_passes_unnamed(&c, &elsewhere) && !exitlog_passes_unnamed(&c, &other) &&
	   !exitlog_passes_unnamed(&c, &short_life) && !exitlog_passes_unnamed(&c, &idle),
	   "the filters that need no cgroup path refuse the same, but for the cgroup");
	exitlog_init(&l);
	exitlog_add(&l, &c, &other, MS);
	exitlog_add(&l, &c, &a, MS);
	ok(l.filtered == 1 && l.n == 1 && a.index == 1, "filtered exits are counted and use no index");
	exitlog_free(&l);
}

int main(void)
{
	plan(15);
	test_cap_and_views();
	test_age();
	test_filters();
	return done_testing();
}
