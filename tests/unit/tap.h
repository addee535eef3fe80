/* tap.h - a tiny TAP producer for the unit tests (header only). */
#ifndef CLUSTERMON_TAP_H
#define CLUSTERMON_TAP_H

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static int tap_count, tap_failures;

static inline int ok(int cond, const char *fmt, ...)
{
	va_list ap;

	tap_count++;
	printf("%s %d - ", cond ? "ok" : "not ok", tap_count);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (!cond)
		tap_failures++;
	return cond;
}

static inline void is_u64(uint64_t got, uint64_t want, const char *name)
{
	if (!ok(got == want, "%s", name))
		printf("# got  %" PRIu64 "\n# want %" PRIu64 "\n", got, want);
}

static inline void skip(const char *why)
{
	printf("ok %d # SKIP %s\n", ++tap_count, why);
}

/* Where fixtures live: $srcdir/tests/fixtures (make check sets srcdir). */
static inline const char *fixture_root(char *buf, size_t len, const char *name)
{
	const char *src = getenv("srcdir");

	snprintf(buf, len, "%s/tests/fixtures/%s", src ? src : ".", name);
	return buf;
}

static inline int done_testing(void)
{
	printf("1..%d\n", tap_count);
	return tap_failures ? 1 : 0;
}

#endif
