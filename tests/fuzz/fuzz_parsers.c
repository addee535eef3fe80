/*
 * fuzz_parsers.c - feeds arbitrary bytes to the four /proc text parsers.
 *
 * With libFuzzer:
 *   clang -fsanitize=fuzzer,address,undefined -D_GNU_SOURCE -Isubagent \
 *     tests/fuzz/fuzz_parsers.c subagent/collect/{parse,cpustat,meminfo,vmstat,pressure}.c
 *   ./a.out -max_total_time=60 CORPUS-DIR tests/fixtures/proc-basic/proc ...
 * Without it (any compiler; -DFUZZ_SMOKE_MAIN adds a main): each file named
 * on the command line, or the fixture seeds under $srcdir when none is, then
 * a fixed number of deterministic mutations of it (cuts, byte flips, digit
 * runs, spliced keys), reported as TAP, so `make check` can run a short
 * smoke under the sanitizers with no libFuzzer around.
 *
 * Besides not crashing, every accepted input must obey the parsers'
 * contracts; a violation aborts, which both drivers report.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect/collect.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int cond, const char *what)
{
	if (!cond) {
		fprintf(stderr, "contract broken: %s\n", what);
		abort();
	}
}

static void fuzz_cpustat(const char *text)
{
	struct cpustat_cpu cpus[4];
	struct cpustat st = { .cpus = cpus, .cap = 4 };

	if (cpustat_parse(text, &st) != 0) {
		check(st.ncpu == 0, "refused /proc/stat leaves no rows");
		return;
	}
	check(st.ncpu <= st.cap, "ncpu within cap");
	for (unsigned i = 1; i < st.ncpu; i++)
		check(cpus[i].cpu > cpus[i - 1].cpu, "cpu numbers increase");
}

static void fuzz_meminfo(const char *text)
{
	struct meminfo mi;

	if (meminfo_parse(text, &mi) != 0)
		check(mi.total_kb == 0 && mi.free_kb == 0, "refused meminfo is zeroed");
}

static void fuzz_vmstat(const char *text)
{
	struct vmstat vm;

	if (vmstat_parse(text, &vm) != 0)
		check(vm.pgfault == 0 && vm.pgmajfault == 0, "refused vmstat is zeroed");
}

static void fuzz_pressure(const char *text)
{
	struct pressure p;

	if (pressure_parse(text, &p) != 0) {
		check(!p.have_some && !p.have_full, "refused pressure is zeroed");
		return;
	}
	check(p.have_some || p.have_full, "an accepted pressure file has a line");
	check(p.some.avg10 <= 10000 && p.some.avg60 <= 10000 && p.some.avg300 <= 10000,
	      "some averages within 0..10000");
	check(p.full.avg10 <= 10000 && p.full.avg60 <= 10000 && p.full.avg300 <= 10000,
	      "full averages within 0..10000");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* An exact-size heap copy: ASan catches any read past the NUL. */
	char *text = malloc(size + 1);

	if (text == NULL)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	fuzz_cpustat(text);
	fuzz_meminfo(text);
	fuzz_vmstat(text);
	fuzz_pressure(text);
	free(text);
	return 0;
}

#ifdef FUZZ_SMOKE_MAIN
#define MUTATIONS 20000

static uint64_t rng = 0x2545f4914f6cdd1dull;

static uint64_t next_random(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static const char *const splices[] = {
	"cpu ", "cpu7 ", "ctxt ", "procs_running ", "MemTotal:", "MemFree:", " kB",
	"pgfault ", "pgmajfault ", "some ", "full ", "avg10=", "total=", "\n", " ",
	"18446744073709551615", "18446744073709551616", "99999999999999999999999", ".", "-",
};

/* One random edit of buf[0..*len), which has room for cap bytes. */
static void mutate(uint8_t *buf, size_t *len, size_t cap)
{
	size_t at = *len ? next_random() % *len : 0;

	switch (next_random() % 4) {
	case 0: /* cut anywhere: mid-line, mid-number */
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
	default: { /* splice in a key or a boundary number */
		const char *s = splices[next_random() % (sizeof(splices) / sizeof(splices[0]))];
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

/* Seeds when no file is named: $srcdir/tests/fixtures/... */
static const char *const seeds[] = {
	"proc-basic/proc/stat", "proc-basic/proc/meminfo", "proc-basic/proc/vmstat",
	"proc-basic/proc/pressure/memory", "proc-offline/proc/stat", "proc-old/proc/stat",
	"proc-old/proc/meminfo", "bad/binary",
};

/* TAP, one test per seed file, so `make check` can run it as it is. */
int main(int argc, char **argv)
{
	const char *srcdir = getenv("srcdir");
	int n = argc > 1 ? argc - 1 : (int)(sizeof(seeds) / sizeof(seeds[0]));
	int failed = 0;

	printf("1..%d\n", n);
	for (int i = 0; i < n; i++) {
		char path[1024];

		if (argc > 1)
			snprintf(path, sizeof(path), "%s", argv[i + 1]);
		else
			snprintf(path, sizeof(path), "%s/tests/fixtures/%s",
				 srcdir && *srcdir ? srcdir : ".", seeds[i]);
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
