/* SPDX-License-Identifier: BSD-2-Clause */
/* test_range.c - every Monitoring Plugins range form, its edges, and the
 * malformed ones. */
#include "range.h"
#include <string.h>

#include "tap.h"

static const struct {
	const char *range;
	double value;
	bool alerts;
} cases[] = {
	{ "10", -0.5, true }, { "10", 0, false }, { "10", 10, false }, { "10", 10.01, true },
	{ "10:", 9.99, true }, { "10:", 10, false }, { "10:", 1e12, false },
	{ "~:10", -1e12, false }, { "~:10", 10, false }, { "~:10", 11, true },
	{ "10:20", 9, true }, { "10:20", 10, false }, { "10:20", 20, false }, { "10:20", 21, true },
	{ "@10:20", 9, false }, { "@10:20", 10, true }, { "@10:20", 15, true },
	{ "@10:20", 20, true }, { "@10:20", 20.5, false },
	{ "@~:5", -3, true }, { "@~:5", 6, false }, { "@5", 3, true }, { "@5", 6, false },
	{ "-5:-1", -3, false }, { "-5:-1", 0, true }, { "0.5:1.5", 1.0, false },
	{ "1e3", 999, false }, { "1e3", 1001, true },
};

int main(void)
{
	static const char *bad[] = {
		"", "x", "10:x", ":", "20:10", "@", "~", "~10", "10::20", "1e999", "@@5", "5:4",
		"0123456789012345678901234567890123456789012345678901234567890123",
	};
	struct range w, c, r;
	char why[128];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int rc = range_parse(cases[i].range, &r, why, sizeof(why));

		ok(rc == 0 && range_alerts(&r, cases[i].value) == cases[i].alerts,
		   "range %s with %g %s", cases[i].range, cases[i].value,
		   cases[i].alerts ? "alerts" : "does not alert");
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ok(range_parse(bad[i], &r, why, sizeof(why)) == -1, "'%s' is refused: %s", bad[i], why);
	range_parse("80", &w, why, sizeof(why));
	range_parse("90", &c, why, sizeof(why));
	ok(range_state(&w, &c, 50) == STATE_OK, "50 with -w 80 -c 90 is OK");
	ok(range_state(&w, &c, 85) == STATE_WARNING, "85 is WARNING");
	ok(range_state(&w, &c, 95) == STATE_CRITICAL, "95 is CRITICAL");
	r.set = false;
	ok(range_state(&r, &r, 1e9) == STATE_OK, "no ranges: always OK");
	ok(strcmp(state_name(STATE_UNKNOWN), "UNKNOWN") == 0, "state names");
	return done_testing();
}
