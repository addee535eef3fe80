/* SPDX-License-Identifier: BSD-2-Clause */
/* test_meminfo.c - /proc/meminfo parsing. */
#include <errno.h>
#include <string.h>

#include "collect/collect.h"
#include "fixture.h"

static int parse_file(const char *fixture, const char *rel, struct meminfo *mi)
{
	const char *text = fixture_text(fixture, rel);

	return text == NULL ? -2 : meminfo_parse(text, mi);
}

static int parse_text(const char *text, struct meminfo *mi)
{
	errno = 0;
	return meminfo_parse(text, mi);
}

static void real_files(void)
{
	struct meminfo mi;

	ok(parse_file("proc-basic", "proc/meminfo", &mi) == 0, "a real meminfo parses");
	is_u64(mi.total_kb, 24684092, "MemTotal");
	is_u64(mi.free_kb, 23972744, "MemFree");
	is_u64(mi.available_kb, 24357568, "MemAvailable");
	ok(mi.have_available, "MemAvailable is flagged present");
	is_u64(mi.buffers_kb, 560, "Buffers");
	is_u64(mi.cached_kb, 32152, "Cached (not SwapCached)");
	is_u64(mi.dirty_kb, 380, "Dirty");
	is_u64(mi.swap_total_kb, 0, "SwapTotal");

	ok(parse_file("proc-offline",
	   "proc/meminfo", &mi) == 0, "a meminfo with swap in use parses");
	is_u64(mi.swap_total_kb, 4194300, "SwapTotal");
	is_u64(mi.swap_free_kb, 3932156, "SwapFree");
	is_u64(mi.cached_kb, 32152, "Cached, not SwapCached, which comes after it");

	ok(parse_file("proc-old",
	   "proc/meminfo", &mi) == 0, "an old kernel without MemAvailable parses");
	ok(!mi.have_available, "MemAvailable is flagged absent, not zero");
	is_u64(mi.total_kb, 1000, "old MemTotal");
	is_u64(mi.free_kb, 400, "old MemFree");
}

static void bad_files(void)
{
	struct meminfo mi;

	ok(parse_file("bad", "empty", &mi) == -1 && errno == EINVAL, "empty: EINVAL");
	ok(parse_file("bad",
	   "meminfo-cut", &mi) == -1 && errno == EINVAL, "cut inside MemFree: EINVAL");
	ok(parse_text("MemTotal: 7 kB\nMemFree: 1 kB\nCached: 5 kB\nDirty: 3", &mi) == -1 &&
	   errno == EINVAL, "cut after the required keys: still refused (Dirty is not 0)");
	ok(mi.total_kb == 0 && mi.free_kb == 0, "a refused parse leaves nothing to serve");
	ok(parse_file("bad", "meminfo-letters", &mi) == -1 && errno == EINVAL, "letters: EINVAL");
	ok(parse_file("bad", "meminfo-overflow", &mi) == -1 && errno == EINVAL,
	   "2^64 kB is refused, not wrapped");
	ok(parse_file("bad", "meminfo-dup", &mi) == -1 && errno == EINVAL, "a key twice: EINVAL");
	ok(parse_file("bad", "garbage", &mi) == -1, "garbage: refused");
	ok(parse_file("bad", "binary", &mi) == -1, "binary bytes: refused");
	ok(parse_text("MemTotal: 7 kB\n", &mi) == -1 && errno == EINVAL, "MemFree missing: EINVAL");
	ok(parse_text("MemTotal: 7 MB\nMemFree: 1 kB\n", &mi) == -1,
	   "a unit other than kB: EINVAL");
	ok(parse_text("MemTotal: 7 kB junk\nMemFree: 1 kB\n", &mi) == -1, "junk after kB: EINVAL");
	ok(parse_text("MemTotal:\nMemFree: 1 kB\n", &mi) == -1, "a key without a value: EINVAL");
}

static void edges(void)
{
	struct meminfo mi;

	ok(parse_text("MemTotalX:  5 kB\nMemTotal: 7 kB\nMemFree: 1 kB\n", &mi) == 0 &&
	   mi.total_kb == 7,
	   "a key that only starts like ours is skipped");
	ok(parse_text("MemTotal:\t18446744073709551615 kB\nMemFree: 0\n", &mi) == 0 &&
	   mi.total_kb == UINT64_MAX && mi.free_kb == 0, "2^64-1, tabs, and a value without unit");
	ok(parse_text("Weird line without colon\nMemTotal: 7 kB\nMemFree: 1 kB\n", &mi) == 0,
	   "lines that are not ours are skipped unparsed");
}

static void live(void)
{
	struct meminfo mi = { 0 };
	const char *text = live_text("proc/meminfo");

	ok(text != NULL && meminfo_parse(text, &mi) == 0, "the live /proc/meminfo parses");
	ok(mi.total_kb > 0 && mi.free_kb <= mi.total_kb && mi.have_available,
	   "live MemTotal %llu kB, MemFree %llu kB", (unsigned long long)mi.total_kb,
	   (unsigned long long)mi.free_kb);
}

int main(void)
{
	real_files();
	bad_files();
	edges();
	live();
	return done_testing();
}
