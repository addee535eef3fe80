/* SPDX-License-Identifier: BSD-2-Clause */
/* test_ctlfmt.c - clustermonctl's bars and histograms, character for character. */
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "tap.h"

static char *hist_text(const struct hist_bucket *b, size_t n)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	fmt_hist(f, "ns", b, n, 10);
	fclose(f);
	return text;
}

int main(void)
{
	char bar[64], *t;
	struct hist_bucket b[5] = {
		{ 0, 1, 0 }, { 2, 3, 5 }, { 4, 7, 10 }, { 8, 15, 0 }, { 16, UINT64_MAX, 0 },
	};
	struct hist_bucket empty[2] = { { 0, 1, 0 }, { 2, 3, 0 } };

	fmt_bar(bar, 10, 0);
	ok(strcmp(bar, "[..........]") == 0, "an idle CPU: %s", bar);
	fmt_bar(bar, 10, 0.5);
	ok(strcmp(bar, "[#####.....]") == 0, "half busy: %s", bar);
	fmt_bar(bar, 10, 1.7);
	ok(strcmp(bar, "[##########]") == 0, "over 100%% is clamped: %s", bar);
	fmt_bar(bar, 10, -1);
	ok(strcmp(bar, "[..........]") == 0, "negative is clamped: %s", bar);
	t = hist_text(b, 5);
	ok(t && strcmp(t,
		"                                      ns : count     distribution\n"
		"                  2 -> 3                  : 5         |*****     |\n"
		"                  4 -> 7                  : 10        |**********|\n") == 0,
	   "a histogram prints from its first to its last non-empty bucket");
	if (t)
		diag("%s", t);
	free(t);
	b[4].count = 1;
	t = hist_text(b, 5);
	ok(t && strstr(t, "                 16 ->                    : 1         |*         |\n"),
	   "the overflow bucket has no upper edge");
	free(t);
	t = hist_text(empty, 2);
	ok(t && strcmp(t, "(no values)\n") == 0, "an empty histogram says so");
	free(t);
	{
		uint64_t v[4] = { 10, 20, 80, 10 }, flat[3] = { 5, 5, 5 };
		char line[64];

		fmt_sparkline(line, v, 4);
		ok(strcmp(line, "\u2581\u2582\u2588\u2581") == 0, "a sparkline from min to max: %s", line);
		fmt_sparkline(line, flat, 3);
		ok(strcmp(line, "\u2581\u2581\u2581") == 0, "equal values draw the lowest block: %s", line);
		fmt_sparkline(line, v, 0);
		ok(line[0] == '\0', "no values draw nothing");
	}
	return done_testing();
}
