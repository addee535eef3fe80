/* test_meminfo.c - /proc/meminfo parsing. */
#include <errno.h>
#include <string.h>

#include "collect/collect.h"
#include "fixture.h"

static char buf[1 << 16];

static int parse_file(const char *fixture, const char *rel, struct meminfo *mi)
{
	return read_fixture(fixture, rel, buf, sizeof(buf)) ? meminfo_parse(buf, mi) : -2;
}

int main(void)
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

	ok(parse_file("proc-old", "proc/meminfo", &mi) == 0, "an old kernel without MemAvailable parses");
	ok(!mi.have_available, "MemAvailable is flagged absent, not zero");
	is_u64(mi.total_kb, 1000, "old MemTotal");

	ok(parse_file("bad", "empty", &mi) == -1 && errno == EINVAL, "empty: EINVAL");
	ok(parse_file("bad", "meminfo-cut", &mi) == -1, "cut inside MemFree: refused (MemFree missing)");
	ok(parse_file("bad", "meminfo-letters", &mi) == -1 && errno == EINVAL, "letters: EINVAL");
	ok(parse_file("bad", "garbage", &mi) == -1, "garbage: refused");
	strcpy(buf, "MemTotalX:  5 kB\nMemTotal: 7 kB\nMemFree: 1 kB\n");
	ok(meminfo_parse(buf, &mi) == 0 && mi.total_kb == 7, "a key that only starts like ours is skipped");
	return done_testing();
}
