/* SPDX-License-Identifier: BSD-2-Clause */
/* format.c - bars and histograms for clustermonctl. */
#include "format.h"

#include <string.h>

void fmt_bar(char *buf, size_t width, double fraction)
{
	size_t full;

	if (!(fraction > 0))      /* also NaN */
		fraction = 0;
	if (fraction > 1)
		fraction = 1;
	full = (size_t)(fraction * (double)width + 0.5);
	buf[0] = '[';
	memset(buf + 1, '#', full);
	memset(buf + 1 + full, '.', width - full);
	buf[width + 1] = ']';
	buf[width + 2] = '\0';
}

void fmt_hist(FILE *out, const char *unit, const struct hist_bucket *b, size_t n,
	      size_t width)
{
	size_t first = n, last = 0;
	uint64_t max = 0;
	char stars[256];

	for (size_t i = 0; i < n; i++) {
		if (b[i].count == 0)
			continue;
		if (first == n)
			first = i;
		last = i;
		if (b[i].count > max)
			max = b[i].count;
	}
	if (first == n) {
		fprintf(out, "(no values)\n");
		return;
	}
	if (width > sizeof(stars) - 1)
		width = sizeof(stars) - 1;
	fprintf(out, "%*s : count     distribution\n", 40, unit);
	for (size_t i = first; i <= last; i++) {
		size_t k = (size_t)((double)b[i].count * (double)width / (double)max + 0.5);

		memset(stars, '*', k);
		memset(stars + k, ' ', width - k);
		stars[width] = '\0';
		if (b[i].high == UINT64_MAX)
			fprintf(out, "%19llu -> %-18s : %-9llu |%s|\n", (unsigned long long)b[i].low,
				"", (unsigned long long)b[i].count, stars);
		else
			fprintf(out, "%19llu -> %-18llu : %-9llu |%s|\n", (unsigned long long)b[i].low,
				(unsigned long long)b[i].high, (unsigned long long)b[i].count, stars);
	}
}

void fmt_sparkline(char *buf, const uint64_t *v, size_t n)
{
	static const char *const blocks[] = { "\u2581", "\u2582", "\u2583", "\u2584",
					      "\u2585", "\u2586", "\u2587", "\u2588" };
	uint64_t lo = UINT64_MAX, hi = 0;
	char *p = buf;

	for (size_t i = 0; i < n; i++) {
		lo = v[i] < lo ? v[i] : lo;
		hi = v[i] > hi ? v[i] : hi;
	}
	for (size_t i = 0; i < n; i++) {
		size_t k = hi > lo ? (size_t)((double)(v[i] - lo) * 7.0 / (double)(hi - lo) + 0.5) : 0;

		memcpy(p, blocks[k], 3);
		p += 3;
	}
	*p = '\0';
}
