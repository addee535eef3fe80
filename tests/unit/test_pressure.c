/* test_pressure.c - PSI files (cpu, memory, io) parsed into hundredths of a percent. */
#include <errno.h>
#include <string.h>

#include "collect/collect.h"
#include "fixture.h"

static char buf[4096];

static int parse_file(const char *fixture, const char *rel, struct pressure *p)
{
	return read_fixture(fixture, rel, buf, sizeof(buf)) ? pressure_parse(buf, p) : -2;
}

int main(void)
{
	struct pressure p;

	ok(parse_file("proc-basic", "proc/pressure/memory", &p) == 0, "memory pressure parses");
	ok(p.have_some && p.have_full, "some and full lines");
	is_u64(p.some.avg10, 123, "1.23% is 123 hundredths");
	is_u64(p.some.avg60, 50, "0.50% is 50");
	is_u64(p.some.avg300, 10000, "100.00% is 10000");
	is_u64(p.some.total_us, 123456, "total in us");
	ok(parse_file("proc-basic", "proc/pressure/cpu", &p) == 0 && p.have_some && !p.have_full,
	   "cpu pressure without a full line (older kernels)");
	is_u64(p.some.avg10, 1200, "12.00%");
	is_u64(p.some.avg300, 7, "0.07%");
	ok(parse_file("bad", "pressure-bad", &p) == -1 && errno == EINVAL, "1.2x is refused");
	ok(parse_file("bad", "pressure-over", &p) == -1, "101.00% is refused");
	ok(parse_file("bad", "empty", &p) == -1, "empty is refused");
	strcpy(buf, "some avg10=1.00 avg60=0.00 avg300=0.00 total=5");
	ok(pressure_parse(buf, &p) == -1, "a line without its newline is not trusted");
	return done_testing();
}
