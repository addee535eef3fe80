/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_imagesec.c - a section kept up to date by change (image/imagesec.h):
 * after thousands of random row changes (values, string lengths, columns
 * coming and going, one of them above 63, rows added and removed, with and
 * without generations)
 * the section the builder keeps, and the copy a reader keeps by reading
 * only the chunks whose numbers moved, are byte for byte the full encoding
 * of the same table; a publication that changed one value writes and
 * copies the one or two chunks its row lies in.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "image/image.h"
#include "image/imagesec.h"
#include "tap.h"

#define ROOT 1, 3, 6, 1, 4, 1, 8072, 9999, 77, 1, 5
#define BASE_LEN 11u
#define MAXROWS 400u
#define COLS 6u          /* columns 2..6, and 7 or WIDE_COL */
/* Above 63: a row that has it is indexed from its entries, one without
 * from its column mask (imagesec.c), both in one table. */
#define WIDE_COL 70u
#define TABLE_ARC 1u      /* rows below MAXROWS / 2; the rest in the next arc */
#define SCALAR_ARC 3u
#define CAP (4u << 20)
#define ASN_STR 0x04
#define ASN_GAUGE 0x42

struct row {
	bool live;
	uint64_t gen;
	bool present[COLS];
	uint64_t num[COLS];
	char str[48];          /* column 3's value */
};

static struct row rows[MAXROWS];
static uint64_t scalar, next_gen = 1;
static unsigned rng_state = 12345;

static unsigned rnd(unsigned n)
{
	rng_state = rng_state * 1103515245u + 12345u;
	return (rng_state >> 8) % n;
}

/* Column c of row i as an entry into e (nothing when absent). */
/* Two tables, so that rows moving in one leave the other's offsets be. */
static uint32_t arc_of(unsigned i)
{
	return TABLE_ARC + (i >= MAXROWS / 2);
}

static void add_cell(struct cm_image_enc *e, unsigned i, unsigned c)
{
	const struct row *r = &rows[i];
	/* The first table's columns all below 64 (gapped), the second's not. */
	uint32_t last = arc_of(i) == TABLE_ARC ? COLS + 1 : WIDE_COL;
	uint32_t sub[4] = { arc_of(i), 1, c == COLS - 1 ? last : c + 2, i + 1 };

	if (!r->present[c])
		return;
	if (c == 1)
		cm_image_enc_add(e, sub, 4, ASN_STR, r->str, strlen(r->str));
	else
		cm_image_enc_add(e, sub, 4, ASN_GAUGE, &r->num[c], 8);
}

/* The whole tables as publish.c encoded them before: column by column. */
static size_t full_encode(struct cm_image_enc *e)
{
	cm_image_enc_begin(e);
	for (unsigned t = 0; t < 2; t++)
		for (unsigned c = 0; c < COLS; c++)
			for (unsigned i = t * MAXROWS / 2; i < (t + 1) * MAXROWS / 2; i++)
				if (rows[i].live)
					add_cell(e, i, c);
	cm_image_enc_add(e, (uint32_t[]){ SCALAR_ARC, 0 }, 2, ASN_GAUGE, &scalar, 8);
	return cm_image_enc_end(e);
}

/* Rows changed since the last build; with use_runs, build hands runs of
 * the others to cm_isec_keep, runs that cross rows gone since included
 * (which it must refuse). */
static bool dirty[MAXROWS], use_runs;
static unsigned runs_kept, runs_refused;

/* The live rows from i on that did not change, within i's table: the
 * count, and the last of them in *last. */
static unsigned clean_run(unsigned i, unsigned *last)
{
	unsigned n = 0;

	for (unsigned j = i; j < MAXROWS && arc_of(j) == arc_of(i); j++) {
		if (!rows[j].live)
			continue;
		if (dirty[j])
			break;
		*last = j;
		n++;
	}
	return n;
}

/* One publication through the builder: rows with a generation are
 * encoded only when it moved; with gens false every row is. */
static size_t build(struct cm_isec *b, bool gens)
{
	static struct cm_image_enc e;
	size_t len;

	cm_isec_begin(b);
	for (unsigned i = 0; i < MAXROWS; i++) {
		uint32_t key[2] = { arc_of(i), i + 1 }, last[2] = { arc_of(i) };
		unsigned n, j = i;

		if (use_runs && rows[i].live && (n = clean_run(i, &j)) > 1) {
			last[1] = j + 1;
			if (cm_isec_keep(b, key, last, 2, n)) {
				runs_kept++;
				i = j;
				continue;
			}
			runs_refused++;
		}
		if (!rows[i].live || !cm_isec_next(b, key, 2, gens ? rows[i].gen : 0))
			continue;
		cm_image_enc_begin(&e);
		for (unsigned c = 0; c < COLS; c++)
			add_cell(&e, i, c);
		cm_isec_put(b, e.buf + 8, e.len - 8, true);
	}
	if (cm_isec_next(b, (uint32_t[]){ SCALAR_ARC }, 1, 0)) {
		cm_image_enc_begin(&e);
		cm_image_enc_add(&e, (uint32_t[]){ SCALAR_ARC, 0 }, 2, ASN_GAUGE, &scalar, 8);
		cm_isec_put(b, e.buf + 8, e.len - 8, false);
	}
	len = cm_isec_end(b);
	memset(dirty, 0, sizeof(dirty));
	return len;
}

/* Every instance of a section's data in its offsets' order, encoded
 * again: equal to full_encode's when the builder kept it right. */
static size_t flatten(const unsigned char *d, size_t n, struct cm_image_enc *e)
{
	uint32_t count, at;

	memcpy(&count, d, 4);
	memcpy(&at, d + 4, 4);
	cm_image_enc_begin(e);
	if (at > n || count > (n - at) / 4)
		return 0;
	for (uint32_t k = 0, last = 0; k < count; k++) {
		uint32_t off, sub[CM_IMAGE_MAX_SUB];
		uint16_t vl;

		memcpy(&off, d + at + 4 * k, 4);
		if (off + 4 > n)
			return 0;
		if (k > 0 && off == last)
			continue; /* a gapped table's repeat: the same instance */
		last = off;
		memcpy(&vl, d + off + 2, 2);
		memcpy(sub, d + off + 4, 4 * (size_t)d[off + 1]);
		cm_image_enc_add(e, sub, d[off + 1], d[off], d + off + 4 + 4 * (size_t)d[off + 1], vl);
	}
	return cm_image_enc_end(e);
}

/* ------------------------------------------------------------ a file */

static unsigned char *img;
static size_t img_size;
static uint32_t seqs[CAP / CM_IMAGE_CHUNK];

static int mem_write(void *ctx, const void *buf, size_t len, uint64_t off)
{
	(void)ctx;
	memcpy(img + off, buf, len);
	return 0;
}

static size_t mem_read(void *ctx, void *buf, size_t len, uint64_t off)
{
	(void)ctx;
	if (off >= img_size)
		return 0;
	if (len > img_size - off)
		len = img_size - off;
	memcpy(buf, img + off, len);
	return len;
}

static struct cm_image_header *new_image(void)
{
	struct cm_image_header *h;
	static const uint32_t base[BASE_LEN] = { ROOT };

	img_size = 4096 * ((sizeof(*h) + 4095) / 4096) + CAP + CAP / CM_IMAGE_CHUNK * 4;
	img = calloc(1, img_size);
	if (img == NULL)
		abort();
	h = (struct cm_image_header *)img;
	memcpy(h->magic, CM_IMAGE_MAGIC, 8);
	h->version = CM_IMAGE_VERSION;
	h->header_size = sizeof(*h);
	h->file_size = img_size;
	h->state = CM_IMAGE_LIVE;
	h->nsections = 1;
	h->sec[0].base_len = BASE_LEN;
	memcpy(h->sec[0].base, base, sizeof(base));
	h->sec[0].cap = CAP;
	h->sec[0].off = 4096 * ((sizeof(*h) + 4095) / 4096);
	h->sec[0].seqs_off = h->sec[0].off + CAP;
	return h;
}

/* The whole section as the reader's copy has it, by walking it. */
static size_t walk(struct cm_image_reader *r, struct cm_image_enc *e)
{
	static struct cm_image_value v;
	static const uint32_t base[BASE_LEN] = { ROOT };
	uint32_t name[CM_IMAGE_MAX_OID + CM_IMAGE_MAX_SUB];
	size_t len = BASE_LEN;

	memcpy(name, base, sizeof(base));
	cm_image_enc_begin(e);
	if (!cm_image_reader_refresh(r, img_size))
		return 0;
	while (cm_image_reader_next(r, name, len, base, BASE_LEN, &v) == CM_IMAGE_FOUND) {
		cm_image_enc_add(e, v.name + BASE_LEN, v.name_len - BASE_LEN, v.type, v.data, v.len);
		memcpy(name, v.name, 4 * v.name_len);
		len = v.name_len;
	}
	return cm_image_enc_end(e);
}

/* ------------------------------------------------------------ changes */

static void random_row(unsigned i)
{
	struct row *r = &rows[i];

	dirty[i] = true;
	r->live = true;
	r->gen = next_gen++;
	for (unsigned c = 0; c < COLS; c++) {
		r->present[c] = rnd(8) != 0;
		r->num[c] = rnd(1000);
	}
	snprintf(r->str, sizeof(r->str), "%.*s", (int)rnd(40), "abcdefghijklmnopqrstuvwxyz0123456789ABCD");
}

/* One random change (its row's generation moves with it). */
static void change(void)
{
	unsigned i = rnd(MAXROWS), c = rnd(COLS);
	struct row *r = &rows[i];

	dirty[i] = true;
	switch (rnd(6)) {
	case 0: /* a row comes or goes */
		if (r->live)
			r->live = false;
		else
			random_row(i);
		return;
	case 1: /* a string changes length */
		snprintf(r->str, sizeof(r->str), "%.*s", (int)rnd(40), "zyxwvutsrqponmlkjihgfedcba0123456789WXYZ");
		break;
	case 2: /* a column comes or goes */
		r->present[c] = !r->present[c];
		break;
	case 3: /* generation moved, nothing changed */
		break;
	default: /* a number */
		r->num[c] = rnd(100000);
		break;
	}
	r->gen = next_gen++;
	scalar++;
}

static void test_random(bool gens, unsigned passes)
{
	struct cm_image_header *h = new_image();
	static struct cm_isec b;
	static struct cm_image_enc full, flat, seen;
	struct cm_image_reader r;
	unsigned bad_build = 0, bad_read = 0, changes = 0;

	memset(rows, 0, sizeof(rows));
	memset(seqs, 0, sizeof(seqs));
	for (unsigned i = 0; i < MAXROWS; i += 2)
		random_row(i);
	cm_isec_init(&b);
	cm_image_reader_init(&r, mem_read, NULL);
	for (unsigned p = 0; p < passes; p++) {
		size_t len, flen, slen, want;
		unsigned n = rnd(p % 50 == 0 ? 200 : 6);

		for (unsigned k = 0; k < n; k++)
			change();
		changes += n;
		len = build(&b, gens);
		want = full_encode(&full);
		flen = flatten(b.data, len, &flat);
		if (len == 0 || flen != want || memcmp(flat.buf, full.buf, want) != 0)
			bad_build++;
		if (len > CAP || cm_image_put_section(h, 0, b.data, len, b.dirty, seqs, mem_write,
						       NULL) != 0)
			abort();
		cm_isec_mark_all(&b, false);
		slen = walk(&r, &seen);
		if (slen != want || memcmp(seen.buf, full.buf, want) != 0)
			bad_read++;
	}
	ok(bad_build == 0, "%s: after %u random changes over %u publications the builder's "
	   "section is the full encoding, flattened, every time (%u differed)",
	   gens ? "with generations" : "without", changes, passes, bad_build);
	ok(bad_read == 0, "%s: a reader copying only changed chunks walks exactly the full "
	   "encoding every time (%u differed)", gens ? "with generations" : "without", bad_read);
	ok(b.table_updates > passes / 4,
	   "%s: rows that came, went or moved redid their table's places by change in %llu "
	   "publications, every offset was laid out in %llu of %u", gens ? "with generations" : "without",
	   (unsigned long long)b.table_updates, (unsigned long long)b.layouts, passes);

	/* One number in one row: one chunk written, one copied. */
	{
		uint64_t before = r.chunks_read;
		size_t written = 0, len;
		unsigned i = 0;

		while (!rows[i].live || !rows[i].present[0])
			i++;
		rows[i].num[0] = rows[i].num[0] + 1;
		rows[i].gen = next_gen++;
		dirty[i] = true;
		len = build(&b, gens);
		for (size_t k = 0; k < cm_image_chunks(len); k++)
			written += b.dirty[k] != 0;
		cm_image_put_section(h, 0, b.data, len, b.dirty, seqs, mem_write, NULL);
		cm_isec_mark_all(&b, false);
		walk(&r, &seen);
		/* Two when the row's slot straddles a chunk boundary. */
		ok(written >= 1 && written <= 2 && r.chunks_read - before == written,
		   "%s: one value changed: %zu of %zu chunks written, %llu copied",
		   gens ? "with generations" : "without",
		   written, cm_image_chunks(len), (unsigned long long)(r.chunks_read - before));
	}
	/* A row of the gapped table gone and another come: their places
	 * and the repeats around them written, not the table's offsets. */
	{
		uint64_t layouts = b.layouts;
		size_t written = 0, len, flen, want;
		unsigned i = 0, j = 0;

		while (!rows[i].live || arc_of(i) != TABLE_ARC)
			i++;
		while (rows[j].live || arc_of(j) != TABLE_ARC)
			j++;
		rows[i].live = false;
		dirty[i] = true;
		random_row(j);
		len = build(&b, gens);
		for (size_t k = 0; k < cm_image_chunks(len); k++)
			written += b.dirty[k] != 0;
		want = full_encode(&full);
		flen = flatten(b.data, len, &flat);
		cm_isec_mark_all(&b, false);
		ok(b.layouts == layouts && written <= 8 && flen == want &&
		   memcmp(flat.buf, full.buf, want) == 0,
		   "%s: a row gone and a row new: no full layout (%llu), %zu of %zu chunks written, "
		   "the full encoding", gens ? "with generations" : "without",
		   (unsigned long long)(b.layouts - layouts), written, cm_image_chunks(len));
	}
	cm_image_reader_free(&r);
	cm_isec_free(&b);
	cm_image_enc_free(&full);
	cm_image_enc_free(&flat);
	cm_image_enc_free(&seen);
	free(img);
}

/* Generations skip encoding: a publication with none moved encodes no row. */
static void test_skip(void)
{
	static struct cm_isec b;
	uint64_t before;

	memset(rows, 0, sizeof(rows));
	for (unsigned i = 0; i < MAXROWS; i++)
		random_row(i);
	cm_isec_init(&b);
	build(&b, true);
	before = b.units_encoded;
	build(&b, true);
	ok(b.units_encoded - before == 1, "nothing changed: only the scalar (no generation) "
	   "is encoded again (%llu units)", (unsigned long long)(b.units_encoded - before));
	rows[7].gen = next_gen++;
	rows[7].num[2]++;
	before = b.units_encoded;
	build(&b, true);
	ok(b.units_encoded - before == 2, "one row's generation moved: it and the scalar (%llu)",
	   (unsigned long long)(b.units_encoded - before));
	cm_isec_free(&b);
}

/* The fingerprint that stands for a generation: any changed word moves it. */
static void test_fingerprint(void)
{
	uint64_t row[40] = { 0 }, base;
	unsigned moved = 0;

	base = cm_isec_fingerprint(row, sizeof(row));
	for (unsigned w = 0; w < 40; w++)
		for (unsigned bit = 0; bit < 64; bit += 7) {
			row[w] ^= 1ull << bit;
			moved += cm_isec_fingerprint(row, sizeof(row)) != base;
			row[w] ^= 1ull << bit;
		}
	ok(base != 0 && moved == 40 * 10, "a fingerprint moves with every bit tried (%u of %u)",
	   moved, 40 * 10);
}

int main(void)
{
	test_fingerprint();
	test_random(true, 3000);
	test_random(false, 1000);
	use_runs = true;
	test_random(true, 3000);
	ok(runs_kept > 0 && runs_refused > 0, "runs of unchanged rows were kept without a visit "
	   "(%u), and runs across a row gone since refused (%u)", runs_kept, runs_refused);
	use_runs = false;
	test_skip();
	return done_testing();
}
