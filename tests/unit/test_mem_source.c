/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_mem_source.c - the mem source's sample path: the proc-basic fixture
 * into a mem_snapshot (figures checked against the fixture's own lines),
 * then a tree written here whose counters step back and whose meminfo is
 * cut off: served counters never decrease, a failed sample keeps the last
 * snapshot.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sources/mem.h"
#include "fixture.h"
#include "tap.h"

static char dir[] = "/tmp/cm-memsrc-XXXXXX";

static void put(const char *rel, const char *text)
{
	fixture_put(dir, rel, text);
}

static struct mem_snapshot *latest(void)
{
	return (struct mem_snapshot *)snapshot_acquire(mem_source_ops.slot);
}

static void fixture(void)
{
	char root[512];
	struct mem_snapshot *s;
	void *ctx = mem_source_ops.init(fixture_root(root, sizeof(root), "proc-basic"));

	if (!ok(ctx != NULL, "init on the proc-basic fixture"))
		return;
	ok(mem_source_ops.sample(ctx) == 0, "sample succeeds");
	s = latest();
	is_u64(s->total_kb, 24684092, "MemTotal");
	is_u64(s->available_kb, 24357568, "MemAvailable");
	ok(s->have_available, "MemAvailable present");
	is_u64(s->free_kb, 23972744, "MemFree");
	is_u64(s->cached_kb, 32152, "Cached");
	is_u64(s->dirty_kb, 380, "Dirty");
	is_u64(s->minor_faults, 2895201 - 2186, "minor faults = pgfault - pgmajfault");
	is_u64(s->major_faults, 2186, "major faults = pgmajfault");
	ok(s->psi_mem.present && s->psi_mem.some10 == 123 && s->psi_mem.some60 == 50 &&
	   s->psi_mem.some300 == 10000 && s->psi_mem.full10 == 0,
	   "memory pressure in hundredths of a percent");
	snapshot_release(mem_source_ops.slot, &s->hdr);
	mem_source_ops.fini(ctx);
}

static const char meminfo[] = "MemTotal: 1000 kB\nMemFree: 400 kB\n";

static void changes(void)
{
	struct mem_snapshot *s, *before;
	char path[256];
	void *ctx;

	snprintf(path, sizeof(path), "%s/proc", dir);
	mkdir(path, 0700);
	put("proc/meminfo", meminfo);
	put("proc/vmstat", "pgfault 100\npgmajfault 10\npswpin 5\npswpout 6\n");
	ctx = mem_source_ops.init(dir);
	if (!ok(ctx != NULL, "init on a tree without pressure files"))
		return;
	ok(mem_source_ops.sample(ctx) == 0, "first sample");
	s = latest();
	ok(!s->have_available && !s->psi_mem.present, "no MemAvailable, no pressure: said so");
	ok(s->minor_faults == 90 && s->swap_ins == 5 && s->swap_outs == 6, "counters start at the kernel's");
	snapshot_release(mem_source_ops.slot, &s->hdr);

	put("proc/vmstat", "pgfault 150\npgmajfault 12\npswpin 7\npswpout 6\n");
	mem_source_ops.sample(ctx);
	s = latest();
	ok(s->minor_faults == 138 && s->major_faults == 12 && s->swap_ins == 7, "forward steps add");
	snapshot_release(mem_source_ops.slot, &s->hdr);

	put("proc/vmstat", "pgfault 20\npgmajfault 2\npswpin 1\npswpout 9\n");
	mem_source_ops.sample(ctx);
	s = latest();
	ok(s->minor_faults == 138 && s->major_faults == 12 && s->swap_ins == 7 && s->swap_outs == 9,
	   "counters that step back do not make what we serve decrease");
	snapshot_release(mem_source_ops.slot, &s->hdr);

	before = latest();
	put("proc/meminfo", "MemTotal: 2000 kB\nMemFree: 4");
	ok(mem_source_ops.sample(ctx) == -1, "a cut-off meminfo fails the sample");
	s = latest();
	ok(s == before && s->total_kb == 1000, "and the previous snapshot is still served");
	snapshot_release(mem_source_ops.slot, &s->hdr);
	snapshot_release(mem_source_ops.slot, &before->hdr);
	mem_source_ops.fini(ctx);
}

int main(void)
{
	ok(mem_source_ops.init("/nonexistent-root") == NULL, "init fails without proc/meminfo");
	fixture();
	if (mkdtemp(dir) == NULL)
		return perror("mkdtemp"), 1;
	changes();
	fixture_remove(dir);
	return done_testing();
}
