/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * mem.c - the "mem" source: /proc/meminfo, fault and swap counters from
 * /proc/vmstat, and memory pressure, turned into a mem_snapshot.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../collect/collect.h"
#include "../core/counter.h"
#include "mem.h"

static struct snapshot_slot mem_slot = SNAPSHOT_SLOT_INIT;

struct mem_source {
	struct procfile meminfo, vmstat, psi_mem;
	char buf[32 * 1024]; /* meminfo and vmstat are a few kB and bounded */
	struct mono_counter minor, major, swpin, swpout;
};

static void mem_fini(void *ctx)
{
	struct mem_source *ms = ctx;

	if (ms == NULL)
		return;
	procfile_close(&ms->meminfo);
	procfile_close(&ms->vmstat);
	procfile_close(&ms->psi_mem);
	free(ms);
}

static void *mem_init(const char *root)
{
	struct mem_source *ms = calloc(1, sizeof(*ms));

	if (ms == NULL)
		return NULL;
	ms->meminfo.fd = ms->vmstat.fd = ms->psi_mem.fd = -1;
	if (procfile_open(&ms->meminfo, root, "proc/meminfo") != 0 ||
	    procfile_open(&ms->vmstat, root, "proc/vmstat") != 0) {
		mem_fini(ms);
		return NULL;
	}
	procfile_open(&ms->psi_mem, root, "proc/pressure/memory");
	return ms;
}

static int fill_meminfo(struct mem_source *ms, struct mem_snapshot *snap)
{
	struct meminfo mi;

	if (procfile_read(&ms->meminfo, ms->buf, sizeof(ms->buf)) < 0 ||
	    meminfo_parse(ms->buf, &mi) != 0)
		return -1;
	snap->total_kb = mi.total_kb;
	snap->available_kb = mi.available_kb;
	snap->have_available = mi.have_available;
	snap->free_kb = mi.free_kb;
	snap->cached_kb = mi.cached_kb;
	snap->buffers_kb = mi.buffers_kb;
	snap->dirty_kb = mi.dirty_kb;
	snap->swap_total_kb = mi.swap_total_kb;
	snap->swap_free_kb = mi.swap_free_kb;
	return 0;
}

static int fill_vmstat(struct mem_source *ms, struct mem_snapshot *snap)
{
	struct vmstat vm;
	uint64_t minor;

	if (procfile_read(&ms->vmstat, ms->buf, sizeof(ms->buf)) < 0 ||
	    vmstat_parse(ms->buf, &vm) != 0)
		return -1;
	/* pgfault counts every fault; minor ones are the rest. */
	minor = vm.pgfault >= vm.pgmajfault ? vm.pgfault - vm.pgmajfault : 0;
	mono_counter_feed(&ms->minor, minor, NULL);
	mono_counter_feed(&ms->major, vm.pgmajfault, NULL);
	mono_counter_feed(&ms->swpin, vm.pswpin, NULL);
	mono_counter_feed(&ms->swpout, vm.pswpout, NULL);
	snap->minor_faults = ms->minor.value;
	snap->major_faults = ms->major.value;
	snap->swap_ins = ms->swpin.value;
	snap->swap_outs = ms->swpout.value;
	return 0;
}

static void fill_psi(struct mem_source *ms, struct mem_snapshot *snap)
{
	struct pressure p;

	if (ms->psi_mem.fd < 0 || procfile_read(&ms->psi_mem, ms->buf, sizeof(ms->buf)) < 0 ||
	    pressure_parse(ms->buf, &p) != 0 || !p.have_some)
		return;
	snap->psi_mem.present = true;
	snap->psi_mem.some10 = p.some.avg10;
	snap->psi_mem.some60 = p.some.avg60;
	snap->psi_mem.some300 = p.some.avg300;
	snap->psi_mem.full10 = p.have_full ? p.full.avg10 : 0;
}

static void mem_snapshot_destroy(struct snapshot *s)
{
	free(s);
}

static int mem_sample(void *ctx)
{
	struct mem_source *ms = ctx;
	struct mem_snapshot *snap = calloc(1, sizeof(*snap));

	if (snap == NULL)
		return -1;
	snap->hdr.refs = 1;
	snap->hdr.destroy = mem_snapshot_destroy;
	if (fill_meminfo(ms, snap) != 0 || fill_vmstat(ms, snap) != 0) {
		free(snap);
		return -1;
	}
	fill_psi(ms, snap);
	snapshot_publish(&mem_slot, &snap->hdr);
	return 0;
}

const struct source_ops mem_source_ops = {
	.index = SOURCE_MEM,
	.name = "mem",
	.slot = &mem_slot,
	.default_interval_ms = 1000,
	.init = mem_init,
	.sample = mem_sample,
	.fini = mem_fini,
};
