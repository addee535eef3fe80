/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_cpu_source.c - the cpu source on a fake /proc tree whose stat file
 * changes between samples: utilisation per interval, milliseconds, a CPU
 * that goes offline and comes back with smaller counters.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sources/cpu.h"
#include "fixture.h"
#include "tap.h"

static char dir[] = "/tmp/cm-cpusrc-XXXXXX";
static char stat_path[256];

static void write_stat(const char *text)
{
	fixture_put(dir, "proc/stat", text);
}

static struct cpu_snapshot *sample(void *ctx)
{
	ok(cpu_source_ops.sample(ctx) == 0, "sample succeeds");
	return (struct cpu_snapshot *)snapshot_acquire(cpu_source_ops.slot);
}

int main(void)
{
	struct cpu_snapshot *s;
	unsigned hz = (unsigned)sysconf(_SC_CLK_TCK);
	void *ctx;
	char path[256];

	if (mkdtemp(dir) == NULL || hz != 100) {
		printf("1..0 # SKIP needs USER_HZ 100 (have %u)\n", hz);
		return 0;
	}
	snprintf(path, sizeof(path), "%s/proc", dir);
	mkdir(path, 0700);
	snprintf(stat_path, sizeof(stat_path), "%s/proc/stat", dir);
	write_stat("cpu  200 0 0 800 0 0 0 0\ncpu0 100 0 0 400 0 0 0 0\n"
		   "cpu1 100 0 0 400 0 0 0 0\nctxt 10\nprocs_running 2\nprocs_blocked 0\n");
	ctx = cpu_source_ops.init(dir);
	ok(ctx != NULL, "init on a fake tree without pressure files");

	s = sample(ctx);
	ok(s->ncpu == 2 && s->rows[0].ms[CPU_USER] == 1000, "first sample: 100 ticks user = 1000 ms");
	is_u64(s->rows[0].util, 2000, "the first sample measures from boot: 100 busy of 500 ticks");
	is_u64(s->total_util, 2000, "and so does the total");
	ok(!s->psi_cpu.present, "pressure absent without /proc/pressure");
	snapshot_release(cpu_source_ops.slot, &s->hdr);

	/* cpu0 fully busy for 10 ticks, cpu1 a quarter busy. */
	write_stat("cpu  213 0 0 809 0 0 0 0\ncpu0 110 0 0 400 0 0 0 0\n"
		   "cpu1 103 0 0 409 0 0 0 0\nctxt 20\nprocs_running 2\nprocs_blocked 0\n");
	s = sample(ctx);
	is_u64(s->rows[0].util, 10000, "cpu0 busy all interval: 10000");
	is_u64(s->rows[1].util, 2500, "cpu1 busy 3 of 12 ticks: 2500");
	is_u64(s->total_util, 5909, "total: 13 busy of 22 ticks");
	is_u64(s->ctxt, 20, "ctxt");
	snapshot_release(cpu_source_ops.slot, &s->hdr);

	/* cpu1 goes offline: its row disappears. */
	write_stat("cpu  220 0 0 817 0 0 0 0\ncpu0 120 0 0 400 0 0 0 0\nctxt 30\n"
		   "procs_running 1\nprocs_blocked 0\n");
	s = sample(ctx);
	ok(s->ncpu == 1 && s->rows[0].cpu == 0, "an offline CPU has no row");
	snapshot_release(cpu_source_ops.slot, &s->hdr);

	/* cpu1 comes back with counters smaller than before. */
	write_stat("cpu  230 0 0 820 0 0 0 0\ncpu0 125 0 0 405 0 0 0 0\n"
		   "cpu1 5 0 0 20 0 0 0 0\nctxt 40\nprocs_running 1\nprocs_blocked 0\n");
	s = sample(ctx);
	ok(s->ncpu == 2 && s->rows[1].cpu == 1, "the CPU is back");
	is_u64(s->rows[1].ms[CPU_USER], 1030, "its user ms did not go backwards (1030 served)");
	is_u64(s->rows[1].util, 0, "no utilisation across the backward step");
	snapshot_release(cpu_source_ops.slot, &s->hdr);

	write_stat("cpu  230 0 0 820 0 0 0 0\ncpu0 125 0 0 405 0 0 0 0\n"
		   "cpu1 10 0 0 20 0 0 0 0\nctxt 40\nprocs_running 1\nprocs_blocked 0\n");
	s = sample(ctx);
	is_u64(s->rows[1].ms[CPU_USER], 1080, "and then grows by the new deltas");
	is_u64(s->rows[1].util, 10000, "5 busy ticks of 5");
	snapshot_release(cpu_source_ops.slot, &s->hdr);

	/* Less than a tick later nothing moved: the last figures stay. */
	s = sample(ctx);
	is_u64(s->rows[1].util, 10000, "a sample within the same tick keeps the last utilisation");
	is_u64(s->total_util, 7692, "and so does the total (10 busy of 13 ticks, two samples back)");
	snapshot_release(cpu_source_ops.slot, &s->hdr);
	write_stat("cpu  240 0 0 820 0 0 0 0\ncpu0 125 0 0 405 0 0 0 0\n"
		   "cpu1 20 0 0 20 0 0 0 0\nctxt 40\nprocs_running 1\nprocs_blocked 0\n");
	s = sample(ctx);
	is_u64(s->rows[0].util, 5000, "cpu0 had no tick for three samples: still its last figure");
	is_u64(s->rows[1].util, 10000, "cpu1 measured from the sample before the empty one");
	snapshot_release(cpu_source_ops.slot, &s->hdr);

	write_stat("garbage\n");
	ok(cpu_source_ops.sample(ctx) == -1, "a broken stat file fails the sample");
	s = (struct cpu_snapshot *)snapshot_acquire(cpu_source_ops.slot);
	is_u64(s->rows[1].ms[CPU_USER], 1180, "and the last good snapshot stays served");
	snapshot_release(cpu_source_ops.slot, &s->hdr);

	cpu_source_ops.fini(ctx);
	snapshot_clear(cpu_source_ops.slot);
	unlink(stat_path);
	rmdir(path);
	rmdir(dir);
	return done_testing();
}
