/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * smoke.h - a libFuzzer-free driver for the fuzz targets, included by each
 * target under -DFUZZ_SMOKE_MAIN: the seed files (named on the command
 * line, or the target's fuzz_seeds[] under $srcdir/tests/fixtures), then a
 * fixed number of deterministic mutations of each (cuts, byte flips, digit
 * runs, spliced tokens from the target's fuzz_splices[]), reported as TAP,
 * so `make check` runs a short smoke under the sanitizers.
 *
 * A target defines fuzz_seeds[], fuzz_nseeds, fuzz_splices[] and
 * fuzz_nsplices before including this (and MUTATIONS, if not 20,000).
 */
#ifndef CLUSTERMON_FUZZ_SMOKE_H
#define CLUSTERMON_FUZZ_SMOKE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A target whose inputs are slow (whole requests through the agent) may
 * define fewer before including this. */
#ifndef MUTATIONS
#define MUTATIONS 20000
#endif

static uint64_t rng = 0x2545f4914f6cdd1dull;

static uint64_t next_random(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* One random edit of buf[0..*len), which has room for cap bytes. */
static void mutate(uint8_t *buf, size_t *len, size_t cap)
{
	size_t at = *len ? next_random() % *len : 0;

	switch (next_random() % 4) {
	case 0: /* cut anywhere: mid-line, mid-number, mid-message */
		*len = at;
		break;
	case 1: /* flip a byte to anything, NUL included */
		if (*len)
			buf[at] = (uint8_t)next_random();
		break;
	case 2: /* overwrite with a run of digits */
		for (size_t i = at; i < *len && i < at + 1 + next_random() % 24; i++)
			buf[i] = (uint8_t)('0' + next_random() % 10);
		break;
	default: { /* splice in a token or a boundary number */
		const char *s = fuzz_splices[next_random() % fuzz_nsplices];
		size_t n = strlen(s);

		if (*len + n > cap)
			break;
		memmove(buf + at + n, buf + at, *len - at);
		memcpy(buf + at, s, n);
		*len += n;
	}
	}
}

/* The original, then MUTATIONS edited copies; -1 if it cannot be read. */
static int smoke_file(const char *path)
{
	static uint8_t orig[1 << 16], buf[(1 << 16) + 4096];
	FILE *f = fopen(path, "rb");
	size_t n;

	if (f == NULL)
		return -1;
	n = fread(orig, 1, sizeof(orig), f);
	fclose(f);
	LLVMFuzzerTestOneInput(orig, n);
	for (int i = 0; i < MUTATIONS; i++) {
		size_t len = n;

		memcpy(buf, orig, n);
		for (uint64_t k = 1 + next_random() % 4; k > 0; k--)
			mutate(buf, &len, sizeof(buf));
		LLVMFuzzerTestOneInput(buf, len);
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *srcdir = getenv("srcdir");
	int n = argc > 1 ? argc - 1 : (int)fuzz_nseeds;
	int failed = 0;

	printf("1..%d\n", n);
	for (int i = 0; i < n; i++) {
		char path[1024];

		if (argc > 1)
			snprintf(path, sizeof(path), "%s", argv[i + 1]);
		else
			snprintf(path, sizeof(path), "%s/tests/fixtures/%s",
				 srcdir && *srcdir ? srcdir : ".", fuzz_seeds[i]);
		if (smoke_file(path) != 0) {
			printf("not ok %d - %s: cannot read it\n", i + 1, path);
			failed = 1;
			continue;
		}
		printf("ok %d - %s and %d mutations of it\n", i + 1, path, MUTATIONS);
		fflush(stdout);
	}
	return failed;
}

#endif
