/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * format.h - how clustermonctl draws what it reads: utilisation bars and
 * log2 histograms as bcc's tools print them. Pure C: no SNMP.
 */
#ifndef CLUSTERMON_CTL_FORMAT_H
#define CLUSTERMON_CTL_FORMAT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* "[#####.....]" of width cells (plus brackets) for fraction 0..1
 * (clamped); buf holds width + 3 bytes. */
void fmt_bar(char *buf, size_t width, double fraction);

struct hist_bucket {
	uint64_t low, high, count;
};

/*
 * The buckets from the first to the last non-empty one, as
 *   "        low -> high       : count    |*****     |"
 * with stars scaled to the largest count over width cells. Prints
 * "(no values)" when every bucket is empty.
 */
void fmt_hist(FILE *out, const char *unit, const struct hist_bucket *b, size_t n,
	      size_t width);

/* A sparkline of n values, one of eight block characters (UTF-8, three
 * bytes each) per value, scaled from their minimum to their maximum; buf
 * holds 3 * n + 1 bytes. Equal values draw the lowest block. */
void fmt_sparkline(char *buf, const uint64_t *v, size_t n);

#endif
