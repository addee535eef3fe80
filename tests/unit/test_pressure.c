/* SPDX-License-Identifier: BSD-2-Clause */
/* test_pressure.c - PSI files (cpu, memory, io) parsed into hundredths of a percent. */
#include <errno.h>
#include <string.h>

#include "collect/collect.h"
#include "fixture.h"

static int parse_file(const char *fixture, const char *rel, struct pressure *p)
{
	const char *text = fixture_text(fixture, rel);

	return text == NULL ? -2 : pressure_parse(text, p);
}

static int parse_text(const char *text, struct pressure *p)
{
	errno = 0;
	return pressure_parse(text, p);
}

static void fixtures(void)
{
	struct pressure p;

	ok(parse_file("proc-basic", "proc/pressure/memory", &p) == 0, "memory pressure parses");
	ok(p.have_some && p.have_full, "some and full lines");
	is_u64(p.some.avg10, 123, "1.23% is 123 hundredths");
	is_u64(p.some.avg60, 50, "0.50% is 50");
	is_u64(p.some.avg300, 10000, "100.00% is 10000");
	is_u64(p.some.total_us, 123456, "total in us");
	is_u64(p.full.avg10, 0, "full avg10");
	ok(parse_file("proc-basic", "proc/pressure/cpu", &p) == 0 && p.have_some && !p.have_full,
	   "cpu pressure without a full line (before Linux 5.13)");
	is_u64(p.some.avg10, 1200, "12.00%");
	is_u64(p.some.avg60, 310, "3.10%");
	is_u64(p.some.avg300, 7, "0.07%");
	is_u64(p.some.total_us, 987654321, "cpu total");
	ok(parse_file("proc-basic", "proc/pressure/io", &p) == 0 && p.have_some && p.have_full,
	   "io pressure parses");
	is_u64(p.full.avg60, 3, "io full avg60 0.03%");
	is_u64(p.full.total_us, 7799359, "io full total");
}

static void bad(void)
{
	struct pressure p;

	ok(parse_file("bad", "pressure-bad", &p) == -1 && errno == EINVAL, "1.2x is refused");
	ok(parse_file("bad", "pressure-over", &p) == -1 && errno == EINVAL, "101.00%% is refused");
	ok(parse_file("bad", "pressure-cut", &p) == -1 && errno == EINVAL,
	   "cut inside the full line: EINVAL, not some alone");
	ok(!p.have_some && p.some.total_us == 0, "a refused parse leaves nothing to serve");
	ok(parse_file("bad", "pressure-total-overflow", &p) == -1, "a total of 2^64 is refused");
	ok(parse_file("bad", "empty", &p) == -1 && errno == EINVAL, "empty is refused");
	ok(parse_file("bad", "garbage", &p) == -1, "garbage is refused");
	ok(parse_file("bad", "binary", &p) == -1, "binary bytes are refused");
	ok(parse_text("some avg10=1.00 avg60=0.00 avg300=0.00 total=5", &p) == -1,
	   "a line without its newline is not trusted");
	ok(parse_text("some avg10=1.0 avg60=0.00 avg300=0.00 total=5\n", &p) == -1,
	   "one decimal: EINVAL");
	ok(parse_text("some avg10=1.000 avg60=0.00 avg300=0.00 total=5\n", &p) == -1,
	   "three decimals: EINVAL");
	ok(parse_text("some avg10=-1.00 avg60=0.00 avg300=0.00 total=5\n", &p) == -1,
	   "negative: EINVAL");
	ok(parse_text("some avg10= 1.00 avg60=0.00 avg300=0.00 total=5\n", &p) == -1,
	   "a blank after '=': EINVAL");
	ok(parse_text("some avg10=1.00 avg300=0.00 avg60=0.00 total=5\n", &p) == -1,
	   "fields out of order: EINVAL");
	ok(parse_text("some avg10=1.00 avg60=0.00 avg300=0.00\n", &p) == -1, "no total: EINVAL");
	ok(parse_text("some avg10=1.00 avg60=0.00 avg300=0.00 total=5 x\n", &p) == -1,
	   "junk at the end: EINVAL");
	ok(parse_text("some avg10=1.00 avg60=0.00 avg300=0.00 total=5\nfull junk\n", &p) == -1,
	   "a malformed full line refuses the file even with a good some line");
	ok(parse_text("some avg10=1.00 avg60=0.00 avg300=0.00 total=5\n"
		      "some avg10=2.00 avg60=0.00 avg300=0.00 total=6\n", &p) == -1,
	   "two some lines: EINVAL");
	ok(parse_text("avg10=1.00\n", &p) == -1, "neither some nor full: EINVAL");
}

static void edges(void)
{
	struct pressure p;

	ok(parse_text("full avg10=100.00 avg60=99.99 avg300=0.01 total=18446744073709551615\n",
		      &p) == 0 && !p.have_some && p.have_full, "a full line alone parses");
	is_u64(p.full.avg10, 10000, "100.00 is 10000");
	is_u64(p.full.avg60, 9999, "99.99 is 9999");
	is_u64(p.full.avg300, 1, "0.01 is 1");
	is_u64(p.full.total_us, UINT64_MAX, "total 2^64-1");
	ok(parse_text("some avg10=7 avg60=0.00 avg300=0.00 total=0\n", &p) == 0 &&
	   p.some.avg10 == 700,
	   "a whole percentage without decimals is 700");
	ok(parse_text("some avg10=100.01 avg60=0.00 avg300=0.00 total=0\n", &p) == -1,
	   "100.01 is refused (the kernel never prints it)");
}

static void live(void)
{
	const char *files[] = { "proc/pressure/cpu", "proc/pressure/memory", "proc/pressure/io" };

	for (unsigned i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		struct pressure p;
		const char *text = live_text(files[i]);

		if (text == NULL) {
			skip("no PSI here (CONFIG_PSI off or psi=0)");
			continue;
		}
		ok(pressure_parse(text, &p) == 0 && p.have_some && p.some.avg10 <= 10000,
		   "the live /%s parses", files[i]);
	}
}

int main(void)
{
	fixtures();
	bad();
	edges();
	live();
	return done_testing();
}
