/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_number.c - core/number.c, the one strict decimal parser: every reason
 * for a refusal, the edges of 64 and 32 bits, and what scanning leaves.
 */
#include <string.h>

#include "core/number.h"
#include "tap.h"

static void refused(const char *s, uint64_t max, enum num_status want)
{
	uint64_t v = 7;
	enum num_status st = num_parse_u64(s, max, &v);

	ok(st == want && v == 7, "'%s' refused as %s", s ? s : "(null)", num_status_str(want));
}

int main(void)
{
	const char *end;
	uint64_t v = 0;
	uint32_t w = 0;

	ok(num_parse_u64("0", UINT64_MAX, &v) == NUM_OK && v == 0, "0");
	ok(num_parse_u64("18446744073709551615", UINT64_MAX, &v) == NUM_OK && v == UINT64_MAX,
	   "UINT64_MAX");
	ok(num_parse_u64("007", UINT64_MAX, &v) == NUM_OK && v == 7, "leading zeros are decimal");
	refused(NULL, UINT64_MAX, NUM_EMPTY);
	refused("", UINT64_MAX, NUM_EMPTY);
	refused(" 5", UINT64_MAX, NUM_GARBAGE);
	refused("-1", UINT64_MAX, NUM_GARBAGE);
	refused("+1", UINT64_MAX, NUM_GARBAGE);
	refused("0x10", UINT64_MAX, NUM_TRAILING);
	refused("1s", UINT64_MAX, NUM_TRAILING);
	refused("12 ", UINT64_MAX, NUM_TRAILING);
	refused("18446744073709551616", UINT64_MAX, NUM_OVERFLOW);
	refused("99999999999999999999999", UINT64_MAX, NUM_OVERFLOW);
	refused("3600001", 3600000, NUM_OVERFLOW);
	ok(num_parse_u64("3600000", 3600000, &v) == NUM_OK && v == 3600000, "the maximum itself");

	ok(num_parse_u32("4294967295", UINT32_MAX, &w) == NUM_OK && w == UINT32_MAX, "UINT32_MAX");
	ok(num_parse_u32("4294967296", UINT32_MAX, &w) == NUM_OVERFLOW && w == UINT32_MAX,
	   "2^32 refused, output untouched");

	ok(num_scan_u64("123 kB", &end, &v) == NUM_OK && v == 123 && strcmp(end, " kB") == 0,
	   "scan stops after the digits");
	ok(num_scan_u64("x1", &end, &v) == NUM_GARBAGE, "scan refuses a non-digit start");
	ok(num_scan_u64("42", NULL, &v) == NUM_OK && v == 42, "scan without an end pointer");

	ok(strcmp(num_status_str(NUM_TRAILING), "junk after the number") == 0 &&
	   strcmp(num_status_str(NUM_EMPTY), "empty") == 0 &&
	   strcmp(num_status_str(NUM_GARBAGE), "not a number") == 0 &&
	   strcmp(num_status_str(NUM_OVERFLOW), "too large") == 0, "each reason has its words");
	return done_testing();
}
