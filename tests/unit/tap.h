/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tap.h - a tiny TAP producer for the unit tests (header only).
 *
 * Either plan(n) first or done_testing() last (which prints the plan then);
 * main returns done_testing(), non-zero when a test failed or the count
 * differs from the plan. Output is flushed per line so a test that crashes
 * still shows how far it got.
 */
#ifndef CLUSTERMON_TAP_H
#define CLUSTERMON_TAP_H

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static int tap_count, tap_failures, tap_planned = -1;

static inline void plan(int n)
{
	tap_planned = n;
	printf("1..%d\n", n);
	fflush(stdout);
}

/* A "# " comment line: TAP consumers show it but do not count it. */
static inline __attribute__((format(printf, 1, 2))) void diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

static inline __attribute__((format(printf, 2, 3))) int ok(int cond, const char *fmt, ...)
{
	va_list ap;

	tap_count++;
	printf("%s %d - ", cond ? "ok" : "not ok", tap_count);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	if (!cond)
		tap_failures++;
	return cond;
}

static inline int is_u64(uint64_t got, uint64_t want, const char *name)
{
	if (ok(got == want, "%s", name))
		return 1;
	diag("got  %" PRIu64, got);
	diag("want %" PRIu64, want);
	return 0;
}

/* A test that cannot run here: counts as passed, says why. */
static inline void skip(const char *why)
{
	printf("ok %d # SKIP %s\n", ++tap_count, why);
	fflush(stdout);
}

/* Where fixtures live: $srcdir/tests/fixtures (make check sets srcdir). */
static inline const char *fixture_root(char *buf, size_t len, const char *name)
{
	const char *src = getenv("srcdir");

	snprintf(buf, len, "%s/tests/fixtures/%s", src && *src ? src : ".", name);
	return buf;
}

static inline int done_testing(void)
{
	if (tap_planned < 0) {
		printf("1..%d\n", tap_count);
	} else if (tap_planned != tap_count) {
		diag("planned %d tests but ran %d", tap_planned, tap_count);
		return 1;
	}
	if (tap_failures)
		diag("failed %d of %d", tap_failures, tap_count);
	return tap_failures ? 1 : 0;
}

#endif
