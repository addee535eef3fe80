/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_image.c - the published image (image/image.h): what the writer
 * encodes the reader finds, by GET and by GETNEXT within a registered
 * subtree; sections never published or published empty answer nothing; a
 * second publication moves the section's number on; a section or chunk
 * being written is never read; stale and malformed images are refused,
 * never crash.
 *
 * With an argument it writes the image it builds there (the fuzz seed in
 * tests/fixtures/image/ was made so), its cpu section held until 7 s and
 * fresh since 6 s; with a second, a demand record.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "image/image.h"
#include "tap.h"

#define ROOT 1, 3, 6, 1, 4, 1, 8072, 9999, 77, 1
#define CAP 2048u
#define NSEC 4u
#define SEC_SYS 0u
#define SEC_CPU 1u
#define SEC_SAMPLING 2u /* laid out, never published */
#define SEC_MEM 3u      /* published with no entries */
#define ASN_INT 0x02
#define ASN_STR 0x04
#define ASN_OID 0x06
#define ASN_GAUGE 0x42
#define ASN_C64 0x46

static const uint32_t bases[NSEC][11] = {
	[SEC_SYS] = { ROOT, 1 }, [SEC_CPU] = { ROOT, 3 },
	[SEC_SAMPLING] = { ROOT, 2 }, [SEC_MEM] = { ROOT, 4 },
};
static size_t image_size, header_bytes;

/* As subagent/imagefile.c's lay_out: the header rounded to a page, then
 * each section's data and its chunk numbers (a page), so offsets here are
 * the real ones. */
static struct cm_image_header *new_image(void)
{
	struct cm_image_header *h;
	size_t at;

	header_bytes = (sizeof(*h) + 4095) / 4096 * 4096;
	image_size = header_bytes + NSEC * (CAP + 4096);
	h = aligned_alloc(4096, image_size);
	if (h == NULL)
		abort();
	memset(h, 0, image_size);
	memcpy(h->magic, CM_IMAGE_MAGIC, 8);
	h->version = CM_IMAGE_VERSION;
	h->header_size = sizeof(*h);
	h->file_size = image_size;
	h->state = CM_IMAGE_LIVE;
	h->stale_after_ms = 1000;
	h->heartbeat_ns = 5000000000ull;
	h->nsections = NSEC;
	at = header_bytes;
	for (unsigned s = 0; s < NSEC; s++) {
		h->sec[s].base_len = 11;
		memcpy(h->sec[s].base, bases[s], sizeof(bases[s]));
		h->sec[s].cap = CAP;
		h->sec[s].off = at;
		h->sec[s].seqs_off = at + CAP;
		at += CAP + 4096;
	}
	h->nregs = 3;
	h->reg[0] = (struct cm_image_reg){ .kind = CM_REG_SCALAR, .len = 12,
					   .oid = { ROOT, 1, 1 } };
	h->reg[1] = (struct cm_image_reg){ .kind = CM_REG_TABLE, .min_col = 2, .max_col = 12,
					   .len = 12, .oid = { ROOT, 3, 20 } };
	h->reg[2] = (struct cm_image_reg){ .kind = CM_REG_TABLE, .min_col = 1, .max_col = 4,
					   .len = 12, .oid = { ROOT, 4, 10 } };
	return h;
}

/* As imagefile.c does before publishing: cm_image_write_section trusts
 * the caller that the section fits its data area. */
static void publish(struct cm_image_header *h, unsigned sec, struct cm_image_enc *e)
{
	size_t len = cm_image_enc_end(e);

	if (len == 0 || len > h->sec[sec].cap)
		abort();
	cm_image_write_section(h, sec, e->buf, len);
	cm_image_enc_free(e);
}

static void num(struct cm_image_enc *e, const uint32_t *sub, size_t n, uint8_t type, uint64_t v)
{
	cm_image_enc_add(e, sub, n, type, &v, sizeof(v));
}

/* The cpu section: two scalars and two columns of a two-row table. */
static void publish_cpu(struct cm_image_header *h, uint64_t util1)
{
	struct cm_image_enc e = { 0 };

	cm_image_enc_begin(&e);
	num(&e, (uint32_t[]){ 1, 0 }, 2, ASN_GAUGE, 2);
	num(&e, (uint32_t[]){ 6, 0 }, 2, ASN_C64, 1ull << 40);
	num(&e, (uint32_t[]){ 20, 1, 2, 1 }, 4, ASN_C64, 111);
	num(&e, (uint32_t[]){ 20, 1, 2, 2 }, 4, ASN_C64, 222);
	num(&e, (uint32_t[]){ 20, 1, 10, 1 }, 4, ASN_GAUGE, util1);
	num(&e, (uint32_t[]){ 20, 1, 10, 2 }, 4, ASN_GAUGE, 7);
	publish(h, SEC_CPU, &e);
}

static const uint32_t sys_oid[] = { 1, 3, 6, 1, 4, 1, 8072, 3, 2, 10 };

static void publish_sys(struct cm_image_header *h)
{
	static const unsigned char big[CM_IMAGE_MAX_VAL + 1];
	static const uint32_t deep[CM_IMAGE_MAX_SUB + 1] = { 3 };
	struct cm_image_enc e = { 0 };

	cm_image_enc_begin(&e);
	cm_image_enc_add(&e, (uint32_t[]){ 1, 0 }, 2, ASN_STR, "node7", 5);
	cm_image_enc_add(&e, (uint32_t[]){ 2, 0 }, 2, ASN_STR, "", 0);
	/* The writer drops what the reader would refuse, keeping the rest. */
	cm_image_enc_add(&e, deep, CM_IMAGE_MAX_SUB + 1, ASN_INT, "", 0);
	cm_image_enc_add(&e, (uint32_t[]){ 4, 0 }, 2, ASN_STR, big, sizeof(big));
	cm_image_enc_add(&e, (uint32_t[]){ 5, 0 }, 2, ASN_OID, sys_oid, sizeof(sys_oid));
	cm_image_enc_add(&e, (uint32_t[]){ 6, 0 }, 2, ASN_STR, big, CM_IMAGE_MAX_VAL);
	publish(h, SEC_SYS, &e);
}

static size_t publish_empty(struct cm_image_header *h)
{
	struct cm_image_enc e = { 0 };
	size_t len;

	cm_image_enc_begin(&e);
	len = cm_image_enc_end(&e);
	cm_image_write_section(h, SEC_MEM, e.buf, len);
	cm_image_enc_free(&e);
	return len;
}

static uint64_t value_num(const struct cm_image_value *v)
{
	uint64_t n = 0;

	memcpy(&n, v->data, v->len == 8 ? 8 : 0);
	return n;
}

#define NAME(...) ((const uint32_t[]){ __VA_ARGS__ }), \
	sizeof((const uint32_t[]){ __VA_ARGS__ }) / 4

static void test_compare(void)
{
	const struct {
		const uint32_t *a;
		size_t alen;
		const uint32_t *b;
		size_t blen;
		int want;
	} cases[] = {
		{ NAME(1, 3, 6), NAME(1, 3, 6), 0 },
		{ NAME(1, 3), NAME(1, 3, 6), -1 },
		{ NAME(1, 3, 7), NAME(1, 3, 6, 9), 1 },
		{ NAME(1, 4294967295u), NAME(1, 2), 1 },
		{ NULL, 0, NAME(0), -1 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		ok(cm_oid_compare(cases[i].a, cases[i].alen, cases[i].b, cases[i].blen) ==
		   cases[i].want, "cm_oid_compare case %zu: %d", i, cases[i].want);
}

struct get_case {
	const char *what;
	const uint32_t *name;
	size_t len;
	enum cm_image_find want;
	uint8_t type;
	uint64_t value;
};

static void test_get(struct cm_image_header *h)
{
	static struct cm_image_value v;
	const struct get_case cases[] = {
		{ "scalar", NAME(ROOT, 3, 1, 0), CM_IMAGE_FOUND, ASN_GAUGE, 2 },
		{ "Counter64 past 32 bits", NAME(ROOT, 3, 6, 0), CM_IMAGE_FOUND, ASN_C64, 1ull << 40 },
		{ "first cell", NAME(ROOT, 3, 20, 1, 2, 1), CM_IMAGE_FOUND, ASN_C64, 111 },
		{ "table cell", NAME(ROOT, 3, 20, 1, 2, 2), CM_IMAGE_FOUND, ASN_C64, 222 },
		{ "last cell", NAME(ROOT, 3, 20, 1, 10, 2), CM_IMAGE_FOUND, ASN_GAUGE, 7 },
		{ "missing row", NAME(ROOT, 3, 20, 1, 2, 3), CM_IMAGE_NONE, 0, 0 },
		{ "missing column", NAME(ROOT, 3, 20, 1, 5, 1), CM_IMAGE_NONE, 0, 0 },
		{ "before the first entry", NAME(ROOT, 3, 0, 0), CM_IMAGE_NONE, 0, 0 },
		{ "after the last entry", NAME(ROOT, 3, 99, 0), CM_IMAGE_NONE, 0, 0 },
		{ "scalar without .0", NAME(ROOT, 3, 1), CM_IMAGE_NONE, 0, 0 },
		{ "longer than an entry", NAME(ROOT, 3, 1, 0, 0), CM_IMAGE_NONE, 0, 0 },
		{ "the section base itself", NAME(ROOT, 3), CM_IMAGE_NONE, 0, 0 },
		{ "the root", NAME(ROOT), CM_IMAGE_NONE, 0, 0 },
		{ "a section never published", NAME(ROOT, 2, 1, 0), CM_IMAGE_NONE, 0, 0 },
		{ "a section published empty", NAME(ROOT, 4, 10, 1, 1), CM_IMAGE_NONE, 0, 0 },
		{ "outside every section", NAME(ROOT, 5, 1, 0), CM_IMAGE_NONE, 0, 0 },
		{ "before the root", NAME(1, 3, 6), CM_IMAGE_NONE, 0, 0 },
		{ "an entry the writer dropped (too deep)", NAME(ROOT, 1, 3), CM_IMAGE_NONE, 0, 0 },
		{ "an entry the writer dropped (too long)", NAME(ROOT, 1, 4, 0), CM_IMAGE_NONE, 0, 0 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct get_case *c = &cases[i];
		enum cm_image_find rc = cm_image_get(h, image_size, c->name, c->len, &v);

		ok(rc == c->want && (rc != CM_IMAGE_FOUND || (v.type == c->type &&
		   value_num(&v) == c->value && v.name_len == c->len &&
		   cm_oid_compare(v.name, v.name_len, c->name, c->len) == 0)),
		   "GET %s: %d (want %d)", c->what, rc, c->want);
	}
	ok(cm_image_get(h, image_size, NAME(ROOT, 1, 1, 0), &v) == CM_IMAGE_FOUND &&
	   v.type == ASN_STR && v.len == 5 && memcmp(v.data, "node7", 5) == 0,
	   "GET of a string gives its bytes and type");
	ok(cm_image_get(h, image_size, NAME(ROOT, 1, 2, 0), &v) == CM_IMAGE_FOUND && v.len == 0,
	   "an empty string is found, with no bytes");
	ok(cm_image_get(h, image_size, NAME(ROOT, 1, 5, 0), &v) == CM_IMAGE_FOUND &&
	   v.type == ASN_OID && v.len == sizeof(sys_oid) &&
	   memcmp(v.data, sys_oid, sizeof(sys_oid)) == 0,
	   "an OBJECT IDENTIFIER value round-trips");
	ok(cm_image_get(h, image_size, NAME(ROOT, 1, 6, 0), &v) == CM_IMAGE_FOUND &&
	   v.len == CM_IMAGE_MAX_VAL, "a value of the largest size round-trips");
}

struct next_case {
	const char *what;
	const uint32_t *name;
	size_t len;
	const uint32_t *prefix;
	size_t plen;
	enum cm_image_find want;
	uint32_t col, row;      /* of the answer's name */
	uint64_t value;
};

static void test_next(struct cm_image_header *h)
{
	static struct cm_image_value v;
	const struct next_case cases[] = {
		{ "from the table's prefix", NAME(ROOT, 3, 20), NAME(ROOT, 3, 20),
		  CM_IMAGE_FOUND, 2, 1, 111 },
		{ "a name before the prefix starts at it", NAME(ROOT, 3, 1, 0), NAME(ROOT, 3, 20),
		  CM_IMAGE_FOUND, 2, 1, 111 },
		{ "a name before every section starts at the prefix", NAME(1, 3), NAME(ROOT, 3, 20),
		  CM_IMAGE_FOUND, 2, 1, 111 },
		{ "an empty name starts at the prefix", NULL, 0, NAME(ROOT, 3, 20),
		  CM_IMAGE_FOUND, 2, 1, 111 },
		{ "within a column", NAME(ROOT, 3, 20, 1, 2, 1), NAME(ROOT, 3, 20),
		  CM_IMAGE_FOUND, 2, 2, 222 },
		{ "across columns", NAME(ROOT, 3, 20, 1, 2, 2), NAME(ROOT, 3, 20),
		  CM_IMAGE_FOUND, 10, 1, 5000 },
		{ "a column's OID gives its first cell", NAME(ROOT, 3, 20, 1, 10), NAME(ROOT, 3, 20),
		  CM_IMAGE_FOUND, 10, 1, 5000 },
		{ "a missing column skips to the next", NAME(ROOT, 3, 20, 1, 3), NAME(ROOT, 3, 20),
		  CM_IMAGE_FOUND, 10, 1, 5000 },
		{ "between rows", NAME(ROOT, 3, 20, 1, 2, 1, 5), NAME(ROOT, 3, 20),
		  CM_IMAGE_FOUND, 2, 2, 222 },
		{ "after the last entry", NAME(ROOT, 3, 20, 1, 10, 2), NAME(ROOT, 3, 20),
		  CM_IMAGE_NONE, 0, 0, 0 },
		{ "never past the prefix", NAME(ROOT, 3, 1, 0), NAME(ROOT, 3, 1),
		  CM_IMAGE_NONE, 0, 0, 0 },
		{ "a name past the section", NAME(ROOT, 4), NAME(ROOT, 3, 20),
		  CM_IMAGE_NONE, 0, 0, 0 },
		{ "a prefix in no section", NAME(ROOT, 3), NAME(ROOT, 5, 1),
		  CM_IMAGE_NONE, 0, 0, 0 },
		/* Registrations lie within one section; the root spans them all. */
		{ "a prefix above every section", NAME(ROOT), NAME(ROOT),
		  CM_IMAGE_NONE, 0, 0, 0 },
		{ "in a section never published", NAME(ROOT, 2), NAME(ROOT, 2, 1),
		  CM_IMAGE_NONE, 0, 0, 0 },
		{ "in a section published empty", NAME(ROOT, 4), NAME(ROOT, 4, 10),
		  CM_IMAGE_NONE, 0, 0, 0 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct next_case *c = &cases[i];
		enum cm_image_find rc = cm_image_next(h, image_size, c->name, c->len, c->prefix,
						      c->plen, &v);
		int right = rc == c->want;

		if (right && rc == CM_IMAGE_FOUND)
			right = v.name_len == 15 && v.name[13] == c->col && v.name[14] == c->row &&
				cm_oid_compare(v.name, c->plen, c->prefix, c->plen) == 0 &&
				cm_oid_compare(v.name, v.name_len, c->name, c->len) > 0 &&
				value_num(&v) == c->value;
		ok(right, "GETNEXT %s: %d (want %d)", c->what, rc, c->want);
	}
}

/* A walk of the table by GETNEXT visits every cell once, in order. */
static void test_walk(struct cm_image_header *h)
{
	static struct cm_image_value v;
	uint32_t name[CM_IMAGE_MAX_OID + CM_IMAGE_MAX_SUB] = { ROOT, 3, 20 };
	size_t len = 12, n = 0;
	int ordered = 1;

	while (n < 10 && cm_image_next(h, image_size, name, len, NAME(ROOT, 3, 20), &v) ==
	       CM_IMAGE_FOUND) {
		ordered &= cm_oid_compare(v.name, v.name_len, name, len) > 0;
		memcpy(name, v.name, 4 * v.name_len);
		len = v.name_len;
		n++;
	}
	ok(n == 4 && ordered, "a walk of the table gives its 4 cells in order (%zu)", n);
}

static void test_publication(struct cm_image_header *h)
{
	static struct cm_image_value v;
	struct cm_image_section *s = &h->sec[SEC_CPU];
	uint32_t before = s->seq, *chunk = (uint32_t *)((unsigned char *)h + s->seqs_off);

	publish_cpu(h, 9999);
	ok(s->seq == before + 2 && *chunk == s->seq,
	   "a second publication moves the section's number on by two, and its chunk's with it");
	ok(cm_image_get(h, image_size, NAME(ROOT, 3, 20, 1, 10, 1), &v) == CM_IMAGE_FOUND &&
	   value_num(&v) == 9999, "and readers see the new value");
	s->seq++;
	ok(cm_image_get(h, image_size, NAME(ROOT, 3, 1, 0), &v) == CM_IMAGE_BUSY,
	   "a section whose writer is midway (odd number) is never read: GET busy");
	ok(cm_image_next(h, image_size, NAME(ROOT, 3, 20), NAME(ROOT, 3, 20), &v) == CM_IMAGE_BUSY,
	   "nor by GETNEXT");
	s->seq++;
	ok(cm_image_get(h, image_size, NAME(ROOT, 3, 1, 0), &v) == CM_IMAGE_FOUND,
	   "and is read again once written");
	publish_cpu(h, 4242);
	ok(cm_image_get(h, image_size, NAME(ROOT, 3, 20, 1, 10, 1), &v) == CM_IMAGE_FOUND &&
	   value_num(&v) == 4242, "a third publication, with the third's values");
}

static void test_fresh(struct cm_image_header *h)
{
	const uint64_t beat = h->heartbeat_ns;
	const struct {
		const char *what;
		uint32_t state, stale_ms;
		uint64_t now;
		bool want;
	} cases[] = {
		{ "fresh at the heartbeat", CM_IMAGE_LIVE, 1000, beat, true },
		{ "fresh within stale_after_ms", CM_IMAGE_LIVE, 1000, beat + 999999999u, true },
		{ "fresh at exactly stale_after_ms", CM_IMAGE_LIVE, 1000, beat + 1000000000u, true },
		{ "stale after it", CM_IMAGE_LIVE, 1000, beat + 1000000001u, false },
		{ "a heartbeat from the future is not trusted", CM_IMAGE_LIVE, 1000, beat - 1, false },
		{ "stale_after_ms 0: only at the heartbeat", CM_IMAGE_LIVE, 0, beat + 1, false },
		{ "the largest stale_after_ms does not overflow", CM_IMAGE_LIVE, UINT32_MAX,
		  beat + (uint64_t)UINT32_MAX * 1000000u, true },
		{ "a stopped image is not served", CM_IMAGE_STOPPED, 1000, beat, false },
		{ "a superseded image is not served", CM_IMAGE_SUPERSEDED, 1000, beat, false },
		{ "an unknown state is not served", 0, 1000, beat, false },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		h->state = cases[i].state;
		h->stale_after_ms = cases[i].stale_ms;
		ok(cm_image_fresh(h, cases[i].now) == cases[i].want, "%s", cases[i].what);
	}
	h->state = CM_IMAGE_LIVE;
	h->stale_after_ms = 1000;
}

#define ANY 99 /* a reader answer the case does not pin */

struct damage {
	const char *what;
	size_t at;              /* byte of the image to overwrite */
	unsigned width;         /* 0: nothing */
	uint64_t bad;
	size_t size;            /* the size the reader is told */
	bool header;            /* cm_image_header accepts it */
	int get, next;          /* what GET and GETNEXT of a cpu entry answer */
};

static void poke(unsigned char *p, unsigned width, uint64_t v)
{
	uint8_t u8 = (uint8_t)v;
	uint16_t u16 = (uint16_t)v;
	uint32_t u32 = (uint32_t)v;

	switch (width) {
	case 1: memcpy(p, &u8, 1); break;
	case 2: memcpy(p, &u16, 2); break;
	case 4: memcpy(p, &u32, 4); break;
	case 8: memcpy(p, &v, 8); break;
	}
}

#define HDR(field) offsetof(struct cm_image_header, field)
/* A field of the cpu section's record. */
#define SEC(field) (HDR(sec[SEC_CPU]) + offsetof(struct cm_image_section, field))

/* Damage one field, check what the reader makes of it, undo it. */
static void test_malformed(struct cm_image_header *h)
{
	static struct cm_image_value v;
	unsigned char *img = (unsigned char *)h;
	const size_t boff = h->sec[SEC_CPU].off, blen = h->sec[SEC_CPU].len;
	const size_t soff = h->sec[SEC_CPU].seqs_off;
	uint32_t at;
	const size_t n = image_size;

	memcpy(&at, img + boff + 4, 4);
	const struct damage cases[] = {
		{ "intact", 0, 0, 0, n, true, CM_IMAGE_FOUND, CM_IMAGE_FOUND },
		{ "empty", 0, 0, 0, 0, false, CM_IMAGE_BUSY, CM_IMAGE_BUSY },
		{ "cut inside the header", 0, 0, 0, sizeof(*h) - 1, false,
		  CM_IMAGE_BUSY, CM_IMAGE_BUSY },
		{ "cut inside the buffer", 0, 0, 0, boff + blen - 1, true,
		  CM_IMAGE_BUSY, CM_IMAGE_BUSY },
		{ "cut before the buffer", 0, 0, 0, boff, true, CM_IMAGE_BUSY, CM_IMAGE_BUSY },
		{ "bad magic", HDR(magic), 1, 'X', n, false, CM_IMAGE_BUSY, CM_IMAGE_BUSY },
		/* The reader checks its copy of the header whole at every refresh:
		 * a count out of range makes the image invalid. */
		{ "the version before", HDR(version), 4, 1, n, false, CM_IMAGE_BUSY, CM_IMAGE_BUSY },
		{ "another header size", HDR(header_size), 4, 64, n, false,
		  CM_IMAGE_BUSY, CM_IMAGE_BUSY },
		{ "too many sections", HDR(nsections), 4, 1000, n, false,
		  CM_IMAGE_BUSY, CM_IMAGE_BUSY },
		{ "sections past the table's room", HDR(nsections), 4, CM_IMAGE_MAX_SECTIONS + 1,
		  n, false, CM_IMAGE_BUSY, CM_IMAGE_BUSY },
		{ "too many registrations", HDR(nregs), 4, CM_IMAGE_MAX_REGS + 1, n, false,
		  CM_IMAGE_BUSY, CM_IMAGE_BUSY },
		/* Registrations are read apart (cm_image_reader_regs). */
		{ "an empty registration", HDR(reg[1].len), 4, 0, n, false,
		  CM_IMAGE_FOUND, CM_IMAGE_FOUND },
		{ "a registration too long", HDR(reg[1].len), 4, CM_IMAGE_MAX_OID + 1, n, false,
		  CM_IMAGE_FOUND, CM_IMAGE_FOUND },
		{ "an empty section base", HDR(sec[SEC_CPU].base_len), 4, 0, n, false,
		  CM_IMAGE_BUSY, CM_IMAGE_BUSY },
		{ "a section base too long", HDR(sec[SEC_CPU].base_len), 4, CM_IMAGE_MAX_OID + 1,
		  n, false, CM_IMAGE_BUSY, CM_IMAGE_BUSY },
		{ "a data area past the end", SEC(off), 8, n - 4, n, true,
		  CM_IMAGE_BUSY, CM_IMAGE_BUSY },
		{ "a data area at the end", SEC(off), 8, n, n, true,
		  CM_IMAGE_BUSY, CM_IMAGE_BUSY },
		{ "a data offset that wraps", SEC(off), 8, UINT64_MAX - 3, n,
		  true, CM_IMAGE_BUSY, CM_IMAGE_BUSY },
		{ "data longer than the file", SEC(len), 4, UINT32_MAX, n,
		  true, CM_IMAGE_BUSY, CM_IMAGE_BUSY },
		{ "data longer than its area", SEC(len), 4, CAP + 4, n,
		  true, CM_IMAGE_BUSY, CM_IMAGE_BUSY },
		{ "an area larger than the file", SEC(cap), 8, n, n,
		  true, CM_IMAGE_BUSY, CM_IMAGE_BUSY },
		{ "an area size that wraps", SEC(cap), 8, UINT64_MAX - 3, n,
		  true, CM_IMAGE_BUSY, CM_IMAGE_BUSY },
		{ "data shorter than its head", SEC(len), 4, 7, n, true,
		  CM_IMAGE_BUSY, CM_IMAGE_BUSY },
		{ "chunk numbers past the end", SEC(seqs_off), 8, n - 2, n, true,
		  CM_IMAGE_BUSY, CM_IMAGE_BUSY },
		{ "chunk numbers' offset that wraps", SEC(seqs_off), 8, UINT64_MAX - 1, n, true,
		  CM_IMAGE_BUSY, CM_IMAGE_BUSY },
		/* A one-shot reader copies every chunk, whatever its number. */
		{ "a chunk number odd", soff, 4, 3, n, true, CM_IMAGE_FOUND, CM_IMAGE_FOUND },
		{ "a count larger than the buffer", boff, 4, 0x7fffffff, n, true,
		  CM_IMAGE_BUSY, CM_IMAGE_BUSY },
		{ "a count one too large", boff, 4, (blen - at) / 4 + 1, n, true,
		  CM_IMAGE_BUSY, CM_IMAGE_BUSY },
		{ "offsets inside the section head", boff + 4, 4, 4, n, true,
		  CM_IMAGE_BUSY, CM_IMAGE_BUSY },
		{ "offsets past the buffer", boff + 4, 4, blen + 4, n, true,
		  CM_IMAGE_BUSY, CM_IMAGE_BUSY },
		{ "offsets at the buffer's end", boff + 4, 4, blen, n, true,
		  CM_IMAGE_BUSY, CM_IMAGE_BUSY },
		/* The first entry damaged: GET of it is refused, while GETNEXT
		 * into the table still answers, since a binary search reads only
		 * the entries it visits. */
		{ "an entry past the buffer", boff + at, 4, 0xffffff00u, n, true,
		  CM_IMAGE_BUSY, CM_IMAGE_FOUND },
		{ "an entry inside the section head", boff + at, 4, 4, n, true,
		  CM_IMAGE_BUSY, CM_IMAGE_FOUND },
		{ "an entry cut by the buffer's end", boff + at, 4, blen - 2, n, true,
		  CM_IMAGE_BUSY, CM_IMAGE_FOUND },
		{ "an entry with too many sub-identifiers", boff + 8 + 1, 1, CM_IMAGE_MAX_SUB + 1,
		  n, true, CM_IMAGE_BUSY, CM_IMAGE_FOUND },
		{ "sub-identifiers past the buffer", boff + 8 + 1, 1, CM_IMAGE_MAX_SUB, n, true,
		  CM_IMAGE_BUSY, CM_IMAGE_FOUND },
		{ "a value longer than allowed", boff + 8 + 2, 2, CM_IMAGE_MAX_VAL + 1, n, true,
		  CM_IMAGE_BUSY, CM_IMAGE_FOUND },
		{ "a value past the buffer", boff + 8 + 2, 2, CM_IMAGE_MAX_VAL, n, true,
		  CM_IMAGE_BUSY, CM_IMAGE_FOUND },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct damage *c = &cases[i];
		unsigned char saved[8];
		int get, next;
		bool header;

		memcpy(saved, img + c->at, c->width);
		poke(img + c->at, c->width, c->bad);
		header = cm_image_header(h, c->size) == h;
		get = cm_image_get(h, c->size, NAME(ROOT, 3, 1, 0), &v);
		next = cm_image_next(h, c->size, NAME(ROOT, 3, 20), NAME(ROOT, 3, 20), &v);
		memcpy(img + c->at, saved, c->width);
		ok(header == c->header && (c->get == ANY || get == c->get) &&
		   (c->next == ANY || next == c->next),
		   "%s: header %s, GET %d, GETNEXT %d", c->what, header ? "accepted" : "refused",
		   get, next);
	}
	ok(cm_image_header(NULL, n) == NULL && cm_image_get(NULL, n, NAME(ROOT, 3, 1, 0), &v) ==
	   CM_IMAGE_BUSY, "no map: refused");
	ok(cm_image_header(img + 4, n - 4) == NULL &&
	   cm_image_get(img + 4, n - 4, NAME(ROOT, 3, 1, 0), &v) == CM_IMAGE_BUSY,
	   "misaligned: refused");
	ok(cm_image_header(h, n) == h &&
	   cm_image_get(h, n, NAME(ROOT, 3, 1, 0), &v) == CM_IMAGE_FOUND,
	   "undamaged again: found");
}

/* A file as the module sees it through pread: its bytes may change or be
 * cut between reads; a writer may strike in the middle of a section copy. */
static struct {
	unsigned char *p;
	size_t n;           /* bytes the file holds */
	unsigned reads;
	unsigned strike_at; /* on this read, publish the cpu section again */
	struct cm_image_header *h;
} F;

static size_t file_read(void *ctx, void *buf, size_t len, uint64_t off)
{
	(void)ctx;
	if (++F.reads == F.strike_at) { /* twice: the buffer being copied is rewritten */
		publish_cpu(F.h, 1111);
		publish_cpu(F.h, 1234);
	}
	if (off >= F.n)
		return 0;
	if (len > F.n - off)
		len = F.n - off;
	memcpy(buf, F.p + off, len);
	return len;
}

static void test_reader(struct cm_image_header *h)
{
	static struct cm_image_value v;
	struct cm_image_reader r;
	const struct cm_image_section *s = &h->sec[SEC_CPU];
	size_t boff;

	memset(&F, 0, sizeof(F));
	F.p = (unsigned char *)h;
	F.n = image_size;
	F.h = h;
	cm_image_reader_init(&r, file_read, NULL);
	ok(cm_image_reader_refresh(&r, image_size) &&
	   cm_image_reader_get(&r, NAME(ROOT, 3, 20, 1, 10, 2), &v) == CM_IMAGE_FOUND &&
	   value_num(&v) == 7, "a reader over a file finds what was published");
	boff = s->off;
	memset(F.p + boff, 0xff, 16);
	ok(cm_image_reader_refresh(&r, image_size) &&
	   cm_image_reader_get(&r, NAME(ROOT, 3, 20, 1, 10, 2), &v) == CM_IMAGE_FOUND &&
	   value_num(&v) == 7, "a section scribbled over under the same sequence: its copy is kept");
	publish_cpu(h, 4321);
	ok(cm_image_reader_refresh(&r, image_size) &&
	   cm_image_reader_get(&r, NAME(ROOT, 3, 20, 1, 10, 1), &v) == CM_IMAGE_FOUND &&
	   value_num(&v) == 4321, "a new publication is copied again");
	F.reads = 0;
	F.strike_at = 3; /* header, chunk numbers, section data, then the record again */
	publish_cpu(h, 5555);
	ok(cm_image_reader_refresh(&r, image_size) &&
	   cm_image_reader_get(&r, NAME(ROOT, 3, 20, 1, 10, 1), &v) == CM_IMAGE_FOUND &&
	   value_num(&v) == 1234 && F.reads == 8,
	   "a copy the writer overtook is taken again (%u reads)", F.reads);
	F.strike_at = 0;
	publish_cpu(h, 6666);
	ok(cm_image_reader_refresh(&r, image_size) && (F.n = s->off + 8, true) &&
	   cm_image_reader_get(&r, NAME(ROOT, 3, 1, 0), &v) == CM_IMAGE_BUSY && !r.valid,
	   "the file cut after its size was taken: a short read makes the image invalid");
	ok(!cm_image_reader_refresh(&r, sizeof(*h) - 1) && !cm_image_reader_fresh(&r, h->heartbeat_ns),
	   "a file shorter than a header is refused");
	F.n = 4096;
	ok(cm_image_reader_refresh(&r, image_size) &&
	   cm_image_reader_get(&r, NAME(ROOT, 3, 1, 0), &v) == CM_IMAGE_BUSY && !r.valid,
	   "a header promising more bytes than the file holds: nothing served");
	F.n = image_size;
	ok(cm_image_reader_refresh(&r, image_size) &&
	   cm_image_reader_get(&r, NAME(ROOT, 3, 20, 1, 10, 1), &v) == CM_IMAGE_FOUND &&
	   value_num(&v) == 6666, "whole again: served again");
	cm_image_reader_free(&r);
}

/* Issue 40: sizes in the image drive what snmpd allocates. A header whose
 * sections claim more than the reader's budget is refused, whatever the
 * (sparse) file's size; an image in the budget is served. (grow() holds
 * the budget too when records change under the reader.) */
static void test_budget(struct cm_image_header *h)
{
	static struct cm_image_value v;
	struct cm_image_reader r;
	struct cm_image_header saved = *h;
	uint64_t huge = 1ull << 40;
	bool served;

	memset(&F, 0, sizeof(F));
	F.p = (unsigned char *)h;
	F.n = image_size;
	F.h = h;
	for (unsigned i = 0; i < h->nsections; i++)
		h->sec[i].cap = CM_IMAGE_MAX_SECTION_BYTES;
	cm_image_reader_init(&r, file_read, NULL);
	ok(!cm_image_reader_refresh(&r, huge) && r.too_big && r.held == 0,
	   "sections claiming %u x 256 MiB: refused as too big, nothing allocated",
	   (unsigned)h->nsections);
	*h = saved;
	cm_image_reader_free(&r);
	cm_image_reader_init(&r, file_read, NULL);
	served = cm_image_reader_refresh(&r, image_size) && !r.too_big &&
		 cm_image_reader_get(&r, NAME(ROOT, 3, 20, 1, 10, 2), &v) == CM_IMAGE_FOUND;
	ok(served && r.held > 0 && r.held <= CM_IMAGE_MAX_READER_BYTES,
	   "the image as built is in the budget (%zu bytes held)", r.held);
	*h = saved;
	cm_image_reader_free(&r);
}

/* cm_image_put_section's stores: what a dirty map costs in system calls
 * (dirty chunks across gaps of up to four clean ones share a store, the
 * chunk numbers one store each way, the length only when it changed), and
 * the file ends as the writer's copy whatever is rewritten with it. */
struct store_log {
	unsigned char *file;
	unsigned n;
};

static int log_store(void *ctx, const void *buf, size_t len, uint64_t off)
{
	struct store_log *l = ctx;

	memmove(l->file + off, buf, len);
	l->n++;
	return 0;
}

/* Whether a reader serves a section at once or waits for a sample newer
 * than its wake: the section's flags, held_ns and fresh_ns. */
static void test_held(struct cm_image_header *h)
{
	struct cm_image_section *s = &h->sec[SEC_CPU];
	const uint64_t t = 7000000000ull, wake = t - 100;
	const struct {
		const char *what;
		uint32_t flags;
		uint64_t held, fresh;
		bool held_now, answered;
	} cases[] = {
		{ "held: served at once", 0, t + 1, 0, true, true },
		{ "held until now: no longer", 0, t, 0, false, false },
		{ "held, but asleep: waits", CM_SEC_ASLEEP, UINT64_MAX, wake, false, false },
		{ "never held (0)", 0, 0, 0, false, false },
		{ "pinned (UINT64_MAX)", 0, UINT64_MAX, 0, true, true },
		{ "fresh since the wake answers it", 0, 0, wake, false, true },
		{ "fresh since before the wake does not", 0, 0, wake - 1, false, false },
		{ "fresh since the wake, but asleep again, does not", CM_SEC_ASLEEP, 0, wake + 50, false, false },
		{ "a fresh time from the future is not trusted", 0, 0, t + 1, false, false },
	};
	struct cm_image_reader r;
	struct cm_image_demand d = { .magic = CM_IMAGE_DEMAND_MAGIC, .version = CM_IMAGE_VERSION },
			       got;

	memset(&F, 0, sizeof(F));
	F.p = (unsigned char *)h;
	F.n = image_size;
	F.h = h;
	cm_image_reader_init(&r, file_read, NULL);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		s->flags = cases[i].flags;
		s->held_ns = cases[i].held;
		s->fresh_ns = cases[i].fresh;
		ok(cm_image_reader_refresh(&r, image_size) &&
		   cm_image_reader_held(&r, SEC_CPU, t) == cases[i].held_now &&
		   cm_image_reader_answered(&r, SEC_CPU, wake, t) == cases[i].answered, "%s",
		   cases[i].what);
	}
	ok(!cm_image_reader_held(&r, -1, t) && !cm_image_reader_held(&r, NSEC, t) &&
	   !cm_image_reader_answered(&r, NSEC, 1, t), "no section, never held");
	s->flags = 0;
	s->held_ns = s->fresh_ns = 0;
	cm_image_reader_free(&r);

	d.wake_ns[3] = wake;
	ok(cm_image_demand_check(&d, sizeof(d), &got) == 0 && got.wake_ns[3] == wake,
	   "a demand record is read back");
	ok(cm_image_demand_check(&d, sizeof(d) - 1, &got) != 0 &&
	   cm_image_demand_check(&d, sizeof(d) + 1, &got) != 0, "a record of another size is not");
	d.version = CM_IMAGE_VERSION - 1;
	ok(cm_image_demand_check(&d, sizeof(d), &got) != 0, "nor one of another version");
	d.version = CM_IMAGE_VERSION;
	d.magic[0] ^= 1;
	ok(cm_image_demand_check(&d, sizeof(d), &got) != 0, "nor one with another magic");
}

static void test_spans(void)
{
	enum { CHUNKS = 10, DATA = CHUNKS * CM_IMAGE_CHUNK };
	static unsigned char data[DATA];
	static const unsigned char dirty[CHUNKS] = { 1, 0, 0, 1, 0, 0, 0, 0, 0, 1 };
	struct cm_image_header h;
	uint32_t seqs[CHUNKS] = { 0 };
	size_t off = (sizeof(h) + 4095) / 4096 * 4096;
	struct store_log l = { calloc(1, off + DATA + 4096), 0 };
	int rc;

	if (l.file == NULL)
		abort();
	memset(&h, 0, sizeof(h));
	h.sec[0].cap = DATA;
	h.sec[0].off = off;
	h.sec[0].seqs_off = off + DATA;
	for (size_t i = 0; i < DATA; i++)
		data[i] = (unsigned char)(i * 7);
	rc = cm_image_put_section(&h, 0, data, DATA, NULL, seqs, log_store, &l);
	ok(rc == 0 && l.n == 6, "a whole section: six stores (%u)", l.n);
	for (size_t i = 0; i < DATA; i++)
		data[i] = (unsigned char)(i * 13);
	l.n = 0;
	rc = cm_image_put_section(&h, 0, data, DATA, dirty, seqs, log_store, &l);
	ok(rc == 0 && l.n == 6, "chunks 0, 3 and 9 dirty: 0-3 in one store, 9 in another, the length as it was: six stores in all (%u)",
	   l.n);
	ok(memcmp(l.file + off, data, 4 * CM_IMAGE_CHUNK) == 0 &&
	   memcmp(l.file + off + 9 * CM_IMAGE_CHUNK, data + 9 * CM_IMAGE_CHUNK, CM_IMAGE_CHUNK) == 0 &&
	   memcmp(l.file + off + 4 * CM_IMAGE_CHUNK, data + 4 * CM_IMAGE_CHUNK, CM_IMAGE_CHUNK) != 0,
	   "the dirty chunks and the clean ones between them are the writer's, the rest untouched");
	ok(memcmp(l.file + off + DATA, seqs, sizeof(seqs)) == 0 && seqs[0] == seqs[3] &&
	   seqs[0] == seqs[9] && seqs[1] != seqs[0] && (seqs[0] & 1u) == 0,
	   "the chunk numbers in the file are the writer's: the dirty ones moved on, even");
	{
		static const unsigned char none[CHUNKS] = { 0 };
		uint32_t seq = h.sec[0].seq;

		l.n = 0;
		rc = cm_image_put_section(&h, 0, data, DATA, none, seqs, log_store, &l);
		ok(rc == 0 && l.n == 0 && h.sec[0].seq == seq,
		   "no chunk dirty, the same length: no store, the section's number stays (%u stores)", l.n);
		rc = cm_image_put_section(&h, 0, data, DATA - 8, none, seqs, log_store, &l);
		ok(rc == 0 && l.n == 3 && h.sec[0].seq == seq + 2 && h.sec[0].len == DATA - 8,
		   "no chunk dirty, a shorter length: the length is published (%u stores)", l.n);
	}
	free(l.file);
}

int main(int argc, char **argv)
{
	struct cm_image_header *h = new_image();
	size_t empty;

	publish_sys(h);
	publish_cpu(h, 5000);
	empty = publish_empty(h);
	if (argc > 1) {
		struct cm_image_demand d = { .magic = CM_IMAGE_DEMAND_MAGIC,
					     .version = CM_IMAGE_VERSION,
					     .reads = { 3, 9 }, .wake_ns = { 0, 6000000000ull } };
		FILE *f = fopen(argv[1], "wb");
		int failed;

		h->sec[SEC_CPU].held_ns = 7000000000ull;
		h->sec[SEC_CPU].fresh_ns = 6000000000ull;
		failed = f == NULL || fwrite(h, image_size, 1, f) != 1 || fclose(f) != 0;
		if (argc > 2) {
			f = fopen(argv[2], "wb");
			failed |= f == NULL || fwrite(&d, sizeof(d), 1, f) != 1 || fclose(f) != 0;
		}
		free(h);
		return failed;
	}
	ok(empty == 8 && h->sec[SEC_MEM].len == 8,
	   "an empty section is its head alone");
	ok(cm_image_header(h, image_size) == h, "the built image passes the header check");
	test_compare();
	test_get(h);
	test_next(h);
	test_walk(h);
	test_publication(h);
	test_fresh(h);
	test_malformed(h);
	test_reader(h);
	test_held(h);
	test_budget(h);
	test_spans();
	free(h);
	return done_testing();
}
