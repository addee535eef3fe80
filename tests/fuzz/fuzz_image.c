/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fuzz_image.c - arbitrary bytes as the image file clustermon.so reads
 * inside snmpd: the header check, freshness, and GET and GETNEXT for the
 * names a walk would send (the clusterMon root and its groups, every
 * section base and registration in the file, and names just past them).
 * Each input is read twice: as a file of its own size, and as a file cut
 * short under a reader that was told the size its header promises (the
 * file truncated between fstat and pread), so every read past the end is
 * short. Each time the reader then sees the file published again under it
 * (every section's number and its first chunks' numbers moved on, a byte
 * of those chunks changed), so it brings its copies up to date by the
 * changed chunks alone, whatever they hold.
 *
 * With libFuzzer: tests/fuzz/run-fuzzers.sh (see tests/fuzz/README).
 * Without it (-DFUZZ_SMOKE_MAIN): smoke.h's TAP driver, run by make check.
 *
 * The reader's decision whether a section is served at once or waits for
 * a fresh sample reads every section record the header claims (and some
 * past them), at several times. The same bytes are also the demand record
 * clustermon.so writes and clustermond reads.
 *
 * Besides not crashing or reading outside the input, an answer must keep
 * the reader's contract; a violation aborts.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "image/image.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define ROOT 1, 3, 6, 1, 4, 1, 8072, 9999, 77, 1

static const uint32_t root[] = { ROOT };

/* clusterMonObjects' groups and the edges around them (0, 12), plus a
 * table, an entry and a column below one, as a walk reaches them whatever
 * sections the file claims. */
static const struct {
	uint32_t oid[16];
	size_t len;
} fixed[] = {
	{ { ROOT, 0 }, 11 }, { { ROOT, 1 }, 11 }, { { ROOT, 2 }, 11 }, { { ROOT, 3 }, 11 },
	{ { ROOT, 4 }, 11 }, { { ROOT, 5 }, 11 }, { { ROOT, 6 }, 11 }, { { ROOT, 7 }, 11 },
	{ { ROOT, 8 }, 11 }, { { ROOT, 9 }, 11 }, { { ROOT, 10 }, 11 }, { { ROOT, 11 }, 11 },
	{ { ROOT, 12 }, 11 }, { { ROOT, 1, 1 }, 12 }, { { ROOT, 3, 20 }, 12 },
	{ { ROOT, 3, 20, 1 }, 13 }, { { ROOT, 3, 20, 1, 2 }, 14 },
	{ { ROOT, 3, 20, 1, 2, 4294967295u }, 15 },
};
static const uint32_t table[] = { ROOT, 3, 20 };
/* Longer than any entry's name can be: the reader must not copy it. */
static const uint32_t longest[CM_IMAGE_MAX_OID + CM_IMAGE_MAX_SUB + 8] = { ROOT, 3, 20, 1, 2, 1 };

static void check(int cond, const char *what)
{
	if (!cond) {
		fprintf(stderr, "contract broken: %s\n", what);
		abort();
	}
}

/* The file as the module's pread sees it: data[0..size) and nothing after. */
static struct {
	const uint8_t *p;
	size_t n;
} file;
static struct cm_image_reader reader;

static size_t file_read(void *ctx, void *buf, size_t len, uint64_t off)
{
	(void)ctx;
	if (off >= file.n)
		return 0;
	if (len > file.n - off)
		len = file.n - off;
	memcpy(buf, file.p + off, len);
	return len;
}

static void probe(const void *map, size_t size, const uint32_t *name, size_t len,
		  const uint32_t *prefix, size_t plen)
{
	static struct cm_image_value v;

	if (map == NULL) { /* through the persistent reader */
		if (cm_image_reader_get(&reader, name, len, &v) == CM_IMAGE_FOUND)
			check(cm_oid_compare(v.name, v.name_len, name, len) == 0 &&
			      v.len <= CM_IMAGE_MAX_VAL, "a reader's GET answers the name");
		if (cm_image_reader_next(&reader, name, len, prefix, plen, &v) == CM_IMAGE_FOUND)
			check(cm_oid_compare(v.name, v.name_len, name, len) > 0 &&
			      v.name_len >= plen && cm_oid_compare(v.name, plen, prefix, plen) == 0,
			      "a reader's GETNEXT moves forward under its prefix");
		return;
	}
	if (cm_image_get(map, size, name, len, &v) == CM_IMAGE_FOUND) {
		check(v.len <= CM_IMAGE_MAX_VAL, "a value fits its buffer");
		check(v.name_len <= CM_IMAGE_MAX_OID + CM_IMAGE_MAX_SUB, "a name fits its buffer");
		check(cm_oid_compare(v.name, v.name_len, name, len) == 0, "GET answers the name");
	}
	if (cm_image_next(map, size, name, len, prefix, plen, &v) == CM_IMAGE_FOUND) {
		check(v.len <= CM_IMAGE_MAX_VAL, "a value fits its buffer");
		check(v.name_len <= CM_IMAGE_MAX_OID + CM_IMAGE_MAX_SUB, "a name fits its buffer");
		check(cm_oid_compare(v.name, v.name_len, name, len) > 0, "GETNEXT moves forward");
		check(v.name_len >= plen && cm_oid_compare(v.name, plen, prefix, plen) == 0,
		      "GETNEXT stays under its prefix");
	}
}

/* A name and the same name one further (a walk's next request). */
static void probe_around(const void *map, size_t size, const uint32_t *name, size_t len)
{
	uint32_t next[CM_IMAGE_MAX_OID + 1];

	probe(map, size, name, len, name, len);
	probe(map, size, root, sizeof(root) / 4, name, len);
	if (len == 0 || len > CM_IMAGE_MAX_OID)
		return;
	memcpy(next, name, 4 * len);
	next[len] = 0;
	probe(map, size, next, len + 1, name, len);
	next[len - 1]++;
	probe(map, size, next, len, root, sizeof(root) / 4);
}

static void add32(uint8_t *p, size_t size, uint64_t at, uint32_t d)
{
	uint32_t v;

	if (at > size || size - at < 4)
		return;
	memcpy(&v, p + at, 4);
	v += d;
	memcpy(p + at, &v, 4);
}

/* The input as a writer would leave it after another publication: each
 * section's number and its first chunks' numbers two further on, a byte
 * of each of those chunks changed. */
static void publish_again(uint8_t *p, size_t size)
{
	struct cm_image_header h;

	if (size < CM_IMAGE_HEAD_BYTES)
		return;
	memcpy(&h, p, CM_IMAGE_HEAD_BYTES);
	for (uint32_t i = 0; i < h.nsections && i < CM_IMAGE_MAX_SECTIONS; i++) {
		const struct cm_image_section *s = &h.sec[i];

		add32(p, size, offsetof(struct cm_image_header, sec[0].seq) +
			       (uint64_t)i * sizeof(*s), 2);
		for (uint64_t k = 0; k < 4 && k < cm_image_chunks(s->len); k++) {
			uint64_t at = s->off + k * CM_IMAGE_CHUNK;

			if (s->seqs_off < size)
				add32(p, size, s->seqs_off + 4 * k, 2);
			if (s->off < size && at >= s->off && at < size)
				p[at] ^= 0x55;
		}
	}
}

/* Whether each section is held, and whether a wait for it is answered,
 * at times around anything the file may claim. */
static void sections_held(void)
{
	static const uint64_t at[] = { 0, 1, 5000000000ull, UINT64_MAX - 1, UINT64_MAX };

	for (int k = -1; k <= (int)CM_IMAGE_MAX_SECTIONS; k++)
		for (size_t t = 0; t < sizeof(at) / sizeof(at[0]); t++) {
			bool held = cm_image_reader_held(&reader, k, at[t]);

			check(!held || (k >= 0 && (uint32_t)k < reader.h.nsections),
			      "only a section the header has is held");
			check(!held || cm_image_reader_answered(&reader, k, at[t], at[t]),
			      "a held section answers any wait");
			cm_image_reader_answered(&reader, k, 1, at[t]);
		}
}

/* The bytes as a demand record: all of them, and the record's size of
 * them (a longer file read as far as the writer reads it). */
static void demand_records(const uint8_t *data, size_t size)
{
	struct cm_image_demand d;
	size_t len[2] = { size, size < sizeof(d) ? size : sizeof(d) };

	for (int i = 0; i < 2; i++)
		if (cm_image_demand_check(data, len[i], &d) == 0)
			check(len[i] == sizeof(d) && d.version == CM_IMAGE_VERSION &&
			      memcmp(d.magic, CM_IMAGE_DEMAND_MAGIC, sizeof(d.magic)) == 0,
			      "an accepted demand record is one this version writes");
}

/* The names a walk sends, through the persistent reader. */
static void walk_names(void)
{
	static struct cm_image_reg regs[CM_IMAGE_MAX_REGS];
	int n;

	cm_image_reader_fresh(&reader, 5000000000ull);
	sections_held();
	n = cm_image_reader_regs(&reader, regs);
	check(n <= (int)CM_IMAGE_MAX_REGS, "registrations fit their table");
	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		probe_around(NULL, 0, fixed[i].oid, fixed[i].len);
	for (int i = 0; i < n; i++)
		probe_around(NULL, 0, regs[i].oid, regs[i].len);
	/* sections copied by the probes above are read again unchanged */
	probe(NULL, 0, table, sizeof(table) / 4, root, sizeof(root) / 4);
}

/* The names a walk sends, through the persistent reader told the file
 * holds claimed bytes; then again after another publication. */
static void read_as_file(const uint8_t *data, size_t size, uint64_t claimed)
{
	uint8_t *again = malloc(size + 1);

	file.p = data;
	file.n = size;
	cm_image_reader_init(&reader, file_read, NULL);
	if (cm_image_reader_refresh(&reader, claimed))
		walk_names();
	if (again != NULL) {
		memcpy(again, data, size);
		publish_again(again, size);
		file.p = again;
		if (cm_image_reader_refresh(&reader, claimed))
			walk_names();
	}
	cm_image_reader_free(&reader);
	free(again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cm_image_header head;
	uint64_t promised = size;
	/* The module maps the file page-aligned: so is our copy. */
	void *map = aligned_alloc(4096, (size + 4095) / 4096 * 4096 + 4096);
	const struct cm_image_header *h;

	if (map == NULL)
		return 0;
	if (size > 0)
		memcpy(map, data, size);
	h = cm_image_header(map, size);
	/* The hot path reads without the full header check: so do these. */
	probe_around(map, size, root, sizeof(root) / 4);
	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		probe_around(map, size, fixed[i].oid, fixed[i].len);
	probe(map, size, root, 0, table, sizeof(table) / 4);
	probe(map, size, longest, sizeof(longest) / 4, table, sizeof(table) / 4);
	if (h != NULL) {
		cm_image_fresh(h, 5000000000ull);
		for (uint32_t i = 0; i < h->nsections; i++)
			probe_around(map, size, h->sec[i].base, h->sec[i].base_len);
		for (uint32_t i = 0; i < h->nregs; i++)
			probe_around(map, size, h->reg[i].oid, h->reg[i].len);
	}
	free(map);
	demand_records(data, size);
	read_as_file(data, size, size);
	if (size >= offsetof(struct cm_image_header, state)) {
		memcpy(&head, data, offsetof(struct cm_image_header, state));
		promised = head.file_size;
	}
	/* A header that promises more than the file holds. */
	read_as_file(data, size, promised > size ? promised : (uint64_t)size + 65536);
	return 0;
}

#ifdef FUZZ_SMOKE_MAIN
static const char *const fuzz_seeds[] = { "image/seed.bin", "image/demand.bin" };
static const size_t fuzz_nseeds = 2;
static const char *const fuzz_splices[] = {
	/* smoke.h splices C strings: counts and offsets made of non-NUL bytes */
	"\xff\xff\xff\xff", "\x7f\xff\xff\xff", "\x01", "\x10", "\x40", "\x0c", "CMIMAGE",
};
static const size_t fuzz_nsplices = sizeof(fuzz_splices) / sizeof(fuzz_splices[0]);
#define MUTATIONS 5000
#include "smoke.h"
#endif
