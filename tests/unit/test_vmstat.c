/* SPDX-License-Identifier: BSD-2-Clause */
/* test_vmstat.c - /proc/vmstat parsing. */
#include <errno.h>
#include <string.h>

#include "collect/collect.h"
#include "fixture.h"

static int parse_file(const char *fixture, const char *rel, struct vmstat *vm)
{
	const char *text = fixture_text(fixture, rel);

	return text == NULL ? -2 : vmstat_parse(text, vm);
}

static int parse_text(const char *text, struct vmstat *vm)
{
	errno = 0;
	return vmstat_parse(text, vm);
}

static void real_files(void)
{
	struct vmstat vm;

	ok(parse_file("proc-basic", "proc/vmstat", &vm) == 0, "a real vmstat parses");
	is_u64(vm.pgfault, 2895201, "pgfault");
	is_u64(vm.pgmajfault, 2186, "pgmajfault");
	is_u64(vm.pswpin, 0, "pswpin");
	is_u64(vm.pswpout, 0, "pswpout");
	ok(parse_file("proc-offline", "proc/vmstat", &vm) == 0, "a vmstat with swapping parses");
	is_u64(vm.pswpin, 65536, "pswpin");
	is_u64(vm.pswpout, 131072, "pswpout");
}

static void bad_files(void)
{
	struct vmstat vm;

	ok(parse_file("bad", "empty", &vm) == -1 && errno == EINVAL, "empty: EINVAL");
	ok(parse_file("bad",
	   "vmstat-overflow", &vm) == -1 && errno == EINVAL, "2^64: EINVAL, not wrapped");
	ok(parse_file("bad", "vmstat-cut", &vm) == -1 && errno == EINVAL,
	   "cut inside pgmajfault: EINVAL, not a cut number");
	ok(vm.pgfault == 0 && vm.pswpin == 0, "a refused parse leaves nothing to serve");
	ok(parse_file("bad", "vmstat-letters", &vm) == -1 && errno == EINVAL, "letters: EINVAL");
	ok(parse_file("bad", "garbage", &vm) == -1, "garbage: refused");
	ok(parse_file("bad", "binary", &vm) == -1, "binary bytes: refused");
	ok(parse_text("pgfault 5\npgmajfault 1", &vm) == -1 && errno == EINVAL,
	   "the last line without its newline: EINVAL");
	ok(parse_text("pgfault 5\npgmajfault 1\nnr_foo 3", &vm) == -1,
	   "cut in a line that is not ours: still refused (the file is damaged)");
	ok(parse_text("pgfault 5\n", &vm) == -1 && errno == EINVAL, "pgmajfault missing: EINVAL");
	ok(parse_text("pgmajfault 1\n", &vm) == -1 && errno == EINVAL, "pgfault missing: EINVAL");
	ok(parse_text("pgfault 5\npgmajfault 1\npgfault 6\n", &vm) == -1, "a key twice: EINVAL");
	ok(parse_text("pgfault 5 6\npgmajfault 1\n", &vm) == -1, "two numbers: EINVAL");
	ok(parse_text("pgfault\npgmajfault 1\n", &vm) == -1, "no number: EINVAL");
}

static void edges(void)
{
	struct vmstat vm;

	ok(parse_text("pgfault_extra 9\npgfault 5\npgmajfault 1\n", &vm) == 0 && vm.pgfault == 5,
	   "a longer key with our prefix is not ours");
	ok(parse_text("pgmajfault 18446744073709551615\npgfault 0\n", &vm) == 0 &&
	   vm.pgmajfault == UINT64_MAX, "2^64-1 parses, in any order");
	ok(vm.pswpin == 0 && vm.pswpout == 0, "absent swap counters read 0 (CONFIG_SWAP off)");
}

static void live(void)
{
	struct vmstat vm = { 0 };
	const char *text = live_text("proc/vmstat");

	ok(text != NULL && vmstat_parse(text, &vm) == 0, "the live /proc/vmstat parses");
	ok(vm.pgfault > 0 && vm.pgmajfault <= vm.pgfault, "live pgfault %llu >= pgmajfault %llu",
	   (unsigned long long)vm.pgfault, (unsigned long long)vm.pgmajfault);
}

int main(void)
{
	real_files();
	bad_files();
	edges();
	live();
	return done_testing();
}
