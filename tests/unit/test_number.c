/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_number.c - common/number.c, the one strict decimal parser: every reason
 * for a refusal, the edges of 64 and 32 bits and of signed numbers, and what
 * scanning leaves. One table per parser: input, range, verdict, value.
 */
#include <string.h>

#include "common/number.h"
#include "tap.h"

static const struct {
	const char *in;
	uint64_t max;
	enum num_status want;
	uint64_t value;              /* when want is NUM_OK */
} u64_cases[] = {
	{ "0", UINT64_MAX, NUM_OK, 0 },
	{ "18446744073709551615", UINT64_MAX, NUM_OK, UINT64_MAX },
	{ "007", UINT64_MAX, NUM_OK, 7 },
	{ "3600000", 3600000, NUM_OK, 3600000 },
	{ NULL, UINT64_MAX, NUM_EMPTY, 0 },
	{ "", UINT64_MAX, NUM_EMPTY, 0 },
	{ " 5", UINT64_MAX, NUM_GARBAGE, 0 },
	{ "-1", UINT64_MAX, NUM_GARBAGE, 0 },
	{ "+1", UINT64_MAX, NUM_GARBAGE, 0 },
	{ "0x10", UINT64_MAX, NUM_TRAILING, 0 },
	{ "1s", UINT64_MAX, NUM_TRAILING, 0 },
	{ "12 ", UINT64_MAX, NUM_TRAILING, 0 },
	{ "1e3", UINT64_MAX, NUM_TRAILING, 0 },
	{ "18446744073709551616", UINT64_MAX, NUM_OVERFLOW, 0 },
	{ "99999999999999999999999", UINT64_MAX, NUM_OVERFLOW, 0 },
	{ "3600001", 3600000, NUM_OVERFLOW, 0 },
};

static const struct {
	const char *in;
	int64_t min, max;
	enum num_status want;
	int64_t value;
} i64_cases[] = {
	{ "-1", -1, INT32_MAX, NUM_OK, -1 },
	{ "0", -1, INT32_MAX, NUM_OK, 0 },
	{ "-0", -1, 5, NUM_OK, 0 },
	{ "2147483647", -1, INT32_MAX, NUM_OK, INT32_MAX },
	{ "-9223372036854775808", INT64_MIN, INT64_MAX, NUM_OK, INT64_MIN },
	{ "9223372036854775807", INT64_MIN, INT64_MAX, NUM_OK, INT64_MAX },
	{ "-2", -1, INT32_MAX, NUM_UNDERFLOW, 0 },
	{ "2147483648", -1, INT32_MAX, NUM_OVERFLOW, 0 },
	{ "-9223372036854775809", INT64_MIN, INT64_MAX, NUM_UNDERFLOW, 0 },
	{ "9223372036854775808", INT64_MIN, INT64_MAX, NUM_OVERFLOW, 0 },
	{ "-18446744073709551617", INT64_MIN, INT64_MAX, NUM_UNDERFLOW, 0 },
	{ "4294967295", -1, INT32_MAX, NUM_OVERFLOW, 0 },  /* what %d would wrap */
	{ "-", -1, 5, NUM_GARBAGE, 0 },
	{ "--1", -1, 5, NUM_GARBAGE, 0 },
	{ "- 1", -1, 5, NUM_GARBAGE, 0 },
	{ "+1", -1, 5, NUM_GARBAGE, 0 },
	{ "-1x", -1, 5, NUM_TRAILING, 0 },
	{ "", -1, 5, NUM_EMPTY, 0 },
	{ NULL, -1, 5, NUM_EMPTY, 0 },
};

/* One word off a saved row's line: where *s ends up ("=" means unmoved). */
static const struct {
	const char *in;
	enum num_status want;
	int64_t value;
	const char *rest;
} take_cases[] = {
	{ "12 -1 7", NUM_OK, 12, "-1 7" },
	{ "-1 7", NUM_OK, -1, "7" },
	{ "7", NUM_OK, 7, "" },
	{ "5\t\t6", NUM_OK, 5, "6" },
	{ "12x 3", NUM_TRAILING, 0, "=" },
	{ "-2 3", NUM_UNDERFLOW, 0, "=" },
	{ "2147483648 3", NUM_OVERFLOW, 0, "=" },
	{ " 5", NUM_GARBAGE, 0, "=" },
	{ "", NUM_EMPTY, 0, "=" },
};

int main(void)
{
	const char *end;
	uint64_t v = 0;
	uint32_t w = 0;

	for (size_t i = 0; i < sizeof(u64_cases) / sizeof(u64_cases[0]); i++) {
		uint64_t got = 7;
		enum num_status st = num_parse_u64(u64_cases[i].in, u64_cases[i].max, &got);
		uint64_t want = u64_cases[i].want == NUM_OK ? u64_cases[i].value : 7;

		ok(st == u64_cases[i].want && got == want, "u64 '%s' (max %llu): %s",
		   u64_cases[i].in ? u64_cases[i].in : "(null)",
		   (unsigned long long)u64_cases[i].max, num_status_str(u64_cases[i].want));
	}
	for (size_t i = 0; i < sizeof(i64_cases) / sizeof(i64_cases[0]); i++) {
		int64_t got = 7;
		enum num_status st = num_parse_i64(i64_cases[i].in, i64_cases[i].min,
						   i64_cases[i].max, &got);
		int64_t want = i64_cases[i].want == NUM_OK ? i64_cases[i].value : 7;

		ok(st == i64_cases[i].want && got == want, "i64 '%s' (%lld..%lld): %s",
		   i64_cases[i].in ? i64_cases[i].in : "(null)", (long long)i64_cases[i].min,
		   (long long)i64_cases[i].max, num_status_str(i64_cases[i].want));
	}

	for (size_t i = 0; i < sizeof(take_cases) / sizeof(take_cases[0]); i++) {
		const char *at = take_cases[i].in;
		int64_t got = 7;
		enum num_status st = num_take_i64(&at, -1, INT32_MAX, &got);
		const char *rest = strcmp(take_cases[i].rest, "=") == 0 ? take_cases[i].in :
									  take_cases[i].rest;
		int64_t want = take_cases[i].want == NUM_OK ? take_cases[i].value : 7;

		ok(st == take_cases[i].want && got == want && strcmp(at, rest) == 0,
		   "take '%s': %s, '%s' left", take_cases[i].in, num_status_str(take_cases[i].want),
		   rest);
	}

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
	   strcmp(num_status_str(NUM_OVERFLOW), "too large") == 0 &&
	   strcmp(num_status_str(NUM_UNDERFLOW), "too small") == 0, "each reason has its words");
	return done_testing();
}
