/* test_vmstat.c - /proc/vmstat parsing. */
#include <errno.h>
#include <string.h>

#include "collect/collect.h"
#include "fixture.h"

static char buf[1 << 16];

static int parse_file(const char *fixture, const char *rel, struct vmstat *vm)
{
	return read_fixture(fixture, rel, buf, sizeof(buf)) ? vmstat_parse(buf, vm) : -2;
}

int main(void)
{
	struct vmstat vm;

	ok(parse_file("proc-basic", "proc/vmstat", &vm) == 0, "a real vmstat parses");
	is_u64(vm.pgfault, 2895201, "pgfault");
	is_u64(vm.pgmajfault, 2186, "pgmajfault");
	is_u64(vm.pswpin, 0, "pswpin");
	ok(parse_file("bad", "empty", &vm) == -1 && errno == EINVAL, "empty: EINVAL");
	ok(parse_file("bad", "vmstat-overflow", &vm) == -1 && errno == EINVAL, "overflow: EINVAL");
	strcpy(buf, "pgfault_extra 9\npgfault 5\npgmajfault 1\n");
	ok(vmstat_parse(buf, &vm) == 0 && vm.pgfault == 5, "a longer key with our prefix is not ours");
	strcpy(buf, "pgfault 5\npgmajfault 1");
	ok(vmstat_parse(buf, &vm) == -1, "the required last line cut off: refused");
	return done_testing();
}
