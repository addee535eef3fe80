/* SPDX-License-Identifier: BSD-2-Clause */
/* budget.c - the ring, disk and reserve budgets of trace sessions (see
 * budget.h); retain.c measures and prunes the finished traces. */
#include "budget.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "common/number.h"

/*
 * The defaults, for a node whose operator never heard of them:
 * - ring 64 MiB, or 1/16 of RAM when that is less: sixteen default
 *   sessions (256 KiB a CPU) on a 16-CPU node, and never a noticeable share
 *   of a small one's memory, which the kernel pins while they run;
 * - disk 1 GiB: sixteen traces at the default MaxBytes (64 MiB), a few
 *   hours of a busy sched_switch on one CPU;
 * - reserve 5% of the filesystem, on top of what ext4 keeps for root: a
 *   trace never takes the last space the node's services write to;
 * - 20 finished traces, at most 7 days old: a week of investigations, the
 *   quota and not the count bounding the bytes.
 */
#define DEFAULT_RING (64ull << 20)
#define DEFAULT_DISK (1ull << 30)
#define DEFAULT_RESERVE_PCT 5
#define DEFAULT_KEEP 20
#define DEFAULT_AGE_S (7ull * 86400)

void budget_defaults(struct budget_limits *l)
{
	long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
	uint64_t sixteenth = pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page / 16 : 0;

	l->ring_bytes = sixteenth > 0 && sixteenth < DEFAULT_RING ? sixteenth : DEFAULT_RING;
	l->disk_bytes = DEFAULT_DISK;
	l->reserve_pct = DEFAULT_RESERVE_PCT;
	l->keep = DEFAULT_KEEP;
	l->max_age_s = DEFAULT_AGE_S;
}

int budget_parse_bytes(const char *s, uint64_t *out)
{
	static const char units[] = "KMGT";
	const char *end, *u;
	uint64_t n;
	unsigned shift = 0;

	if (num_scan_u64(s, &end, &n) != NUM_OK)
		return -1;
	if (*end != '\0') {
		u = strchr(units, *end);
		if (u == NULL || end[1] != '\0')
			return -1;
		shift = 10 * (unsigned)(u - units + 1);
	}
	if (shift > 0 && n > (UINT64_MAX >> shift))
		return -1;
	*out = n << shift;
	return 0;
}

int budget_option(int opt, const char *arg, struct budget_limits *l)
{
	uint64_t n;
	uint32_t u;

	switch (opt) {
	case 'B': return budget_parse_bytes(arg, &l->ring_bytes);
	case 'Q': return budget_parse_bytes(arg, &l->disk_bytes);
	case 'A': return num_parse_u64(arg, UINT64_MAX, &l->max_age_s) == NUM_OK ? 0 : -1;
	case 'K':
		if (num_parse_u32(arg, UINT32_MAX, &u) != NUM_OK)
			return -1;
		l->keep = u;
		return 0;
	case 'R':
		n = strlen(arg);
		if (n > 0 && arg[n - 1] == '%')
			n--;
		if (n == 0 || n > 2 || strspn(arg, "0123456789") != n)
			return -1;
		l->reserve_pct = (unsigned)atoi(arg);
		return l->reserve_pct <= 90 ? 0 : -1;
	default: return -1;
	}
}

static unsigned long long ull(uint64_t v)
{
	return (unsigned long long)v;
}

int budget_admit(struct trace_budget *b, int basefd, unsigned ncpu, uint64_t buffer,
		 uint64_t start, char *why, size_t whylen)
{
	uint64_t ring = (uint64_t)ncpu * buffer, used;

	if (b->lim.ring_bytes > 0 && b->ring_used + ring > b->lim.ring_bytes) {
		snprintf(why, whylen, "ring budget: %u CPUs x %llu bytes of buffer, with the "
			 "running traces' %llu, would pass the node's %llu bytes (-B)", ncpu,
			 ull(buffer), ull(b->ring_used), ull(b->lim.ring_bytes));
		return -1;
	}
	budget_retain(b, basefd, time(NULL));
	budget_look(b, basefd);
	used = b->disk_done + b->disk_live;
	if (b->lim.disk_bytes > 0 && used + start > b->lim.disk_bytes) {
		snprintf(why, whylen, "disk quota: the traces under the base hold %llu of their "
			 "%llu bytes (-Q); remove finished ones", ull(used), ull(b->lim.disk_bytes));
		return -1;
	}
	if (b->lim.reserve_pct > 0 && start > b->fs_room) {
		snprintf(why, whylen, "disk reserve: the trace base's filesystem is down to its "
			 "%u%% kept free (-R)", b->lim.reserve_pct);
		return -1;
	}
	return 0;
}

int budget_take(struct trace_budget *b, const char *name, uint64_t ring)
{
	for (int i = 0; i < BUDGET_SLOTS; i++) {
		struct budget_slot *s = &b->slot[i];

		if (s->used)
			continue;
		*s = (struct budget_slot){ .used = true, .ring = ring };
		snprintf(s->name, sizeof(s->name), "%s", name);
		b->ring_used += ring;
		return i;
	}
	return -1;
}

const char *budget_charge(struct trace_budget *b, int slot, uint64_t total)
{
	struct budget_slot *s;
	uint64_t more;

	if (slot < 0)
		return NULL;
	s = &b->slot[slot];
	if (total <= s->disk)
		return NULL;
	more = total - s->disk;
	if (b->lim.disk_bytes > 0 && b->disk_done + b->disk_live + more > b->lim.disk_bytes)
		return "quota: the disk quota of all traces (-Q) reached";
	if (b->lim.reserve_pct > 0 && b->fs_spent + more > b->fs_room)
		return "reserve: the trace base's filesystem down to its reserve (-R)";
	s->disk = total;
	b->disk_live += more;
	b->fs_spent += more;
	return NULL;
}

void budget_look(struct trace_budget *b, int fd)
{
	struct statvfs vfs;
	uint64_t avail, keep;

	b->fs_spent = 0;
	if (fd < 0 || fstatvfs(fd, &vfs) != 0) {
		b->fs_room = UINT64_MAX;  /* unknown: a full disk still ends a session */
		return;
	}
	avail = (uint64_t)vfs.f_bavail * vfs.f_frsize;
	keep = (uint64_t)vfs.f_blocks * vfs.f_frsize / 100 * b->lim.reserve_pct;
	b->fs_room = avail > keep ? avail - keep : 0;
}

void budget_release(struct trace_budget *b, int slot, uint64_t bytes)
{
	struct budget_slot *s;

	if (slot < 0)
		return;
	s = &b->slot[slot];
	b->ring_used -= s->ring;
	b->disk_live -= s->disk;
	b->disk_done += bytes;
	*s = (struct budget_slot){ .used = false };
}
