/*
 * test_image.c - the published image (core/image.h): what the writer
 * encodes the reader finds, by GET and by GETNEXT within a registered
 * subtree; a second publication flips buffers; a buffer being written is
 * never read; stale and malformed images are refused, never crash.
 *
 * With an argument it writes the image it builds there (the fuzz seed in
 * tests/fixtures/image/ was made so).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/image.h"
#include "tap.h"

#define ROOT 1, 3, 6, 1, 4, 1, 8072, 9999, 77, 1
#define CAP 1024u
#define ASN_INT 0x02
#define ASN_STR 0x04
#define ASN_OID 0x06
#define ASN_GAUGE 0x42
#define ASN_C64 0x46

static const uint32_t sys_base[] = { ROOT, 1 };
static const uint32_t cpu_base[] = { ROOT, 3 };
static size_t image_size;

static void *new_image(void)
{
	size_t hs = (sizeof(struct cm_image_header) + 4095) / 4096 * 4096;
	struct cm_image_header *h;

	image_size = hs + 4 * CAP;
	h = aligned_alloc(4096, image_size);
	memset(h, 0, image_size);
	memcpy(h->magic, CM_IMAGE_MAGIC, 8);
	h->version = CM_IMAGE_VERSION;
	h->header_size = sizeof(*h);
	h->file_size = image_size;
	h->state = CM_IMAGE_LIVE;
	h->stale_after_ms = 1000;
	h->heartbeat_ns = 5000000000ull;
	h->nsections = 2;
	for (unsigned s = 0; s < 2; s++) {
		const uint32_t *b = s ? cpu_base : sys_base;

		h->sec[s].base_len = 11;
		memcpy(h->sec[s].base, b, 11 * 4);
		h->sec[s].cap = CAP;
		for (unsigned k = 0; k < 2; k++)
			h->sec[s].buf[k].off = hs + (2 * s + k) * CAP;
	}
	h->nregs = 2;
	h->reg[0] = (struct cm_image_reg){ .kind = CM_REG_SCALAR, .len = 12,
					   .oid = { ROOT, 1, 1 } };
	h->reg[1] = (struct cm_image_reg){ .kind = CM_REG_TABLE, .min_col = 2, .max_col = 12,
					   .len = 12, .oid = { ROOT, 3, 20 } };
	return h;
}

static void num(struct cm_image_enc *e, const uint32_t *sub, size_t n, uint8_t type, uint64_t v)
{
	cm_image_enc_add(e, sub, n, type, &v, sizeof(v));
}

/* The cpu section: two scalars and two columns of a two-row table. */
static void publish_cpu(struct cm_image_header *h, uint64_t util1)
{
	struct cm_image_enc e = { 0 };
	size_t len;

	cm_image_enc_begin(&e);
	num(&e, (uint32_t[]){ 1, 0 }, 2, ASN_GAUGE, 2);
	num(&e, (uint32_t[]){ 6, 0 }, 2, ASN_C64, 1ull << 40);
	num(&e, (uint32_t[]){ 20, 1, 2, 1 }, 4, ASN_C64, 111);
	num(&e, (uint32_t[]){ 20, 1, 2, 2 }, 4, ASN_C64, 222);
	num(&e, (uint32_t[]){ 20, 1, 10, 1 }, 4, ASN_GAUGE, util1);
	num(&e, (uint32_t[]){ 20, 1, 10, 2 }, 4, ASN_GAUGE, 7);
	len = cm_image_enc_end(&e);
	cm_image_write_section(h, 1, e.buf, len);
	cm_image_enc_free(&e);
}

static void publish_sys(struct cm_image_header *h)
{
	struct cm_image_enc e = { 0 };
	uint32_t ids[] = { 1, 3, 6, 1 };

	cm_image_enc_begin(&e);
	cm_image_enc_add(&e, (uint32_t[]){ 1, 0 }, 2, ASN_STR, "node7", 5);
	cm_image_enc_add(&e, (uint32_t[]){ 2, 0 }, 2, ASN_STR, "", 0);
	cm_image_enc_add(&e, (uint32_t[]){ 5, 0 }, 2, ASN_OID, ids, sizeof(ids));
	cm_image_write_section(h, 0, e.buf, cm_image_enc_end(&e));
	cm_image_enc_free(&e);
}

static uint64_t value_num(const struct cm_image_value *v)
{
	uint64_t n = 0;

	memcpy(&n, v->data, v->len == 8 ? 8 : 0);
	return n;
}

#define NAME(...) ((const uint32_t[]){ __VA_ARGS__ }), \
	sizeof((const uint32_t[]){ __VA_ARGS__ }) / 4

struct get_case {
	const char *what;
	const uint32_t *name;
	size_t len;
	enum cm_image_find want;
	uint64_t value;
};

static void test_get(struct cm_image_header *h)
{
	static struct cm_image_value v;
	const struct get_case cases[] = {
		{ "scalar", NAME(ROOT, 3, 1, 0), CM_IMAGE_FOUND, 2 },
		{ "Counter64 past 32 bits", NAME(ROOT, 3, 6, 0), CM_IMAGE_FOUND, 1ull << 40 },
		{ "table cell", NAME(ROOT, 3, 20, 1, 2, 2), CM_IMAGE_FOUND, 222 },
		{ "last cell", NAME(ROOT, 3, 20, 1, 10, 2), CM_IMAGE_FOUND, 7 },
		{ "missing row", NAME(ROOT, 3, 20, 1, 2, 3), CM_IMAGE_NONE, 0 },
		{ "scalar without .0", NAME(ROOT, 3, 1), CM_IMAGE_NONE, 0 },
		{ "longer than an entry", NAME(ROOT, 3, 1, 0, 0), CM_IMAGE_NONE, 0 },
		{ "the section base itself", NAME(ROOT, 3), CM_IMAGE_NONE, 0 },
		{ "outside every section", NAME(ROOT, 4, 1, 0), CM_IMAGE_NONE, 0 },
		{ "before the root", NAME(1, 3, 6), CM_IMAGE_NONE, 0 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct get_case *c = &cases[i];
		enum cm_image_find rc = cm_image_get(h, image_size, c->name, c->len, &v);

		ok(rc == c->want && (rc != CM_IMAGE_FOUND || value_num(&v) == c->value),
		   "GET %s: %d (want %d)", c->what, rc, c->want);
	}
	ok(cm_image_get(h, image_size, NAME(ROOT, 1, 1, 0), &v) == CM_IMAGE_FOUND &&
	   v.type == ASN_STR && v.len == 5 && memcmp(v.data, "node7", 5) == 0,
	   "GET of a string gives its bytes and type");
	ok(cm_image_get(h, image_size, NAME(ROOT, 1, 2, 0), &v) == CM_IMAGE_FOUND && v.len == 0,
	   "an empty string is found, with no bytes");
	ok(cm_image_get(h, image_size, NAME(ROOT, 1, 5, 0), &v) == CM_IMAGE_FOUND &&
	   v.type == ASN_OID && v.len == 16, "an OBJECT IDENTIFIER value round-trips");
}

struct next_case {
	const char *what;
	const uint32_t *name;
	size_t len;
	const uint32_t *prefix;
	size_t plen;
	enum cm_image_find want;
	uint32_t last_sub, col; /* of the answer's name */
};

static void test_next(struct cm_image_header *h)
{
	static struct cm_image_value v;
	const struct next_case cases[] = {
		{ "from the table's prefix", NAME(ROOT, 3, 20), NAME(ROOT, 3, 20),
		  CM_IMAGE_FOUND, 1, 2 },
		{ "a name before the prefix starts at it", NAME(ROOT, 3, 1, 0), NAME(ROOT, 3, 20),
		  CM_IMAGE_FOUND, 1, 2 },
		{ "within a column", NAME(ROOT, 3, 20, 1, 2, 1), NAME(ROOT, 3, 20),
		  CM_IMAGE_FOUND, 2, 2 },
		{ "across columns", NAME(ROOT, 3, 20, 1, 2, 2), NAME(ROOT, 3, 20),
		  CM_IMAGE_FOUND, 1, 10 },
		{ "between rows", NAME(ROOT, 3, 20, 1, 2, 1, 5), NAME(ROOT, 3, 20),
		  CM_IMAGE_FOUND, 2, 2 },
		{ "after the last entry", NAME(ROOT, 3, 20, 1, 10, 2), NAME(ROOT, 3, 20),
		  CM_IMAGE_NONE, 0, 0 },
		{ "never past the prefix", NAME(ROOT, 3, 1, 0), NAME(ROOT, 3, 1),
		  CM_IMAGE_NONE, 0, 0 },
		{ "past the section", NAME(ROOT, 4), NAME(ROOT, 3, 20), CM_IMAGE_NONE, 0, 0 },
		{ "a prefix in no section", NAME(ROOT, 3), NAME(ROOT, 4, 1), CM_IMAGE_NONE, 0, 0 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct next_case *c = &cases[i];
		enum cm_image_find rc = cm_image_next(h, image_size, c->name, c->len, c->prefix,
						      c->plen, &v);
		int right = rc == c->want;

		if (right && rc == CM_IMAGE_FOUND)
			right = v.name_len == 15 && v.name[14] == c->last_sub &&
				v.name[13] == c->col &&
				cm_oid_compare(v.name, v.name_len, c->name, c->len) > 0;
		ok(right, "GETNEXT %s: %d (want %d)", c->what, rc, c->want);
	}
}

static void test_publication(struct cm_image_header *h)
{
	static struct cm_image_value v;
	unsigned before = h->sec[1].active;
	struct cm_image_buf *b;

	publish_cpu(h, 9999);
	ok(h->sec[1].active != before, "a second publication flips the section's buffer");
	ok(cm_image_get(h, image_size, NAME(ROOT, 3, 20, 1, 10, 1), &v) == CM_IMAGE_FOUND &&
	   value_num(&v) == 9999, "and readers see the new value");
	b = &h->sec[1].buf[h->sec[1].active];
	b->seq++;
	ok(cm_image_get(h, image_size, NAME(ROOT, 3, 1, 0), &v) == CM_IMAGE_BUSY,
	   "a buffer whose writer is midway (odd sequence) is never read");
	b->seq++;
	ok(cm_image_get(h, image_size, NAME(ROOT, 3, 1, 0), &v) == CM_IMAGE_FOUND,
	   "and is read again once written");
}

static void test_fresh(struct cm_image_header *h)
{
	uint64_t beat = h->heartbeat_ns;

	ok(cm_image_fresh(h, beat + 999000000u), "fresh within stale_after_ms");
	ok(!cm_image_fresh(h, beat + 1001000000u), "stale after it");
	ok(!cm_image_fresh(h, beat - 1), "a heartbeat from the future is not trusted");
	h->state = CM_IMAGE_STOPPED;
	ok(!cm_image_fresh(h, beat), "a stopped image is not served");
	h->state = CM_IMAGE_LIVE;
}

/* Damage one field, check the reader refuses the image, undo it. */
static void test_malformed(struct cm_image_header *h)
{
	static struct cm_image_value v;
	struct cm_image_buf *b = &h->sec[1].buf[h->sec[1].active];
	unsigned char *sec = (unsigned char *)h + b->off;
	uint32_t saved;
	uint64_t off = b->off;

	ok(cm_image_header(h, image_size) == h, "the built image passes the header check");
	ok(cm_image_header(h, sizeof(*h) - 1) == NULL, "cut inside the header: refused");
	ok(cm_image_header((char *)h + 4, image_size - 4) == NULL, "misaligned: refused");
	h->magic[0] ^= 1;
	ok(cm_image_header(h, image_size) == NULL &&
	   cm_image_get(h, image_size, NAME(ROOT, 3, 1, 0), &v) == CM_IMAGE_BUSY,
	   "bad magic: refused");
	h->magic[0] ^= 1;
	h->nsections = 1000;
	ok(cm_image_header(h, image_size) == NULL, "too many sections: refused");
	ok(cm_image_get(h, image_size, NAME(ROOT, 3, 1, 0), &v) == CM_IMAGE_FOUND,
	   "while a request reads no section past the table's room");
	h->nsections = 2;
	h->reg[1].len = CM_IMAGE_MAX_OID + 1;
	ok(cm_image_header(h, image_size) == NULL, "a registration longer than allowed: refused");
	h->reg[1].len = 12;
	b->off = image_size - 4;
	ok(cm_image_get(h, image_size, NAME(ROOT, 3, 1, 0), &v) == CM_IMAGE_BUSY,
	   "a buffer past the end of the file: busy");
	b->off = off;
	ok(cm_image_get(h, image_size - CAP * 2, NAME(ROOT, 3, 1, 0), &v) == CM_IMAGE_BUSY,
	   "a file cut before its buffers: busy");
	memcpy(&saved, sec, 4);
	memcpy(sec, &(uint32_t){ 0x7fffffff }, 4);
	ok(cm_image_get(h, image_size, NAME(ROOT, 3, 1, 0), &v) == CM_IMAGE_BUSY,
	   "a count larger than the buffer: busy");
	memcpy(sec, &saved, 4);
	memcpy(&saved, sec + 8 + 4 * 0 + 0, 4);
	sec[9] = CM_IMAGE_MAX_SUB + 1; /* the first entry's sub_len */
	ok(cm_image_get(h, image_size, NAME(ROOT, 3, 1, 0), &v) == CM_IMAGE_BUSY,
	   "an entry with too many sub-identifiers: busy");
	memcpy(sec + 8, &saved, 4);
	ok(cm_image_get(h, image_size, NAME(ROOT, 3, 1, 0), &v) == CM_IMAGE_FOUND,
	   "undamaged again: found");
}

int main(int argc, char **argv)
{
	struct cm_image_header *h = new_image();

	publish_sys(h);
	publish_cpu(h, 5000);
	if (argc > 1) {
		FILE *f = fopen(argv[1], "wb");
		int failed = f == NULL || fwrite(h, image_size, 1, f) != 1 || fclose(f) != 0;

		free(h);
		return failed;
	}
	test_get(h);
	test_next(h);
	test_publication(h);
	test_fresh(h);
	test_malformed(h);
	free(h);
	return done_testing();
}
