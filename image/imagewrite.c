/* SPDX-License-Identifier: BSD-2-Clause */
/* imagewrite.c - encoding and publishing the served image's sections (see
 * image.h): clustermond's half of the format; clustermon.so reads with
 * image.c alone. */
#include "image.h"

#include <stdlib.h>
#include <string.h>

#define ENTRY_HEAD CM_IMAGE_ENTRY_HEAD
#define SECTION_HEAD CM_IMAGE_SECTION_HEAD

static bool reserve(void **p, size_t *cap, size_t need, size_t unit)
{
	size_t n = *cap ? *cap : 4096;
	void *q;

	if (need <= *cap)
		return true;
	while (n < need)
		n *= 2;
	q = realloc(*p, n * unit);
	if (q == NULL)
		return false;
	*p = q;
	*cap = n;
	return true;
}

void cm_image_enc_begin(struct cm_image_enc *e)
{
	e->len = SECTION_HEAD;
	e->noffs = 0;
	e->failed = !reserve((void **)&e->buf, &e->cap, SECTION_HEAD, 1);
}

void cm_image_enc_add(struct cm_image_enc *e, const uint32_t *sub, size_t sub_len,
		      uint8_t type, const void *val, size_t val_len)
{
	size_t need = ENTRY_HEAD + 4 * sub_len + ((val_len + 3) & ~(size_t)3);
	unsigned char *p;
	uint16_t vl = (uint16_t)val_len;

	if (e->failed || sub_len > CM_IMAGE_MAX_SUB || val_len > CM_IMAGE_MAX_VAL)
		return;
	if (!reserve((void **)&e->buf, &e->cap, e->len + need, 1) ||
	    !reserve((void **)&e->offs, &e->offs_cap, e->noffs + 1, sizeof(uint32_t)) ||
	    e->len + need > UINT32_MAX) {
		e->failed = true;
		return;
	}
	e->offs[e->noffs++] = (uint32_t)e->len;
	p = e->buf + e->len;
	p[0] = type;
	p[1] = (unsigned char)sub_len;
	memcpy(p + 2, &vl, sizeof(vl));
	memcpy(p + ENTRY_HEAD, sub, 4 * sub_len);
	if (val_len > 0)
		memcpy(p + ENTRY_HEAD + 4 * sub_len, val, val_len);
	memset(p + ENTRY_HEAD + 4 * sub_len + val_len, 0, need - ENTRY_HEAD - 4 * sub_len - val_len);
	e->len += need;
}

size_t cm_image_enc_end(struct cm_image_enc *e)
{
	size_t offs_bytes = 4 * e->noffs;
	uint32_t count = (uint32_t)e->noffs, at = (uint32_t)e->len;

	if (e->failed || !reserve((void **)&e->buf, &e->cap, e->len + offs_bytes, 1) ||
	    e->len + offs_bytes > UINT32_MAX)
		return 0;
	if (offs_bytes > 0) /* an empty section may never have had offsets */
		memcpy(e->buf + e->len, e->offs, offs_bytes);
	e->len += offs_bytes;
	memcpy(e->buf, &count, 4);
	memcpy(e->buf + 4, &at, 4);
	return e->len;
}

void cm_image_enc_free(struct cm_image_enc *e)
{
	free(e->buf);
	free(e->offs);
	memset(e, 0, sizeof(*e));
}

/* Stores the field of h (the writer's copy) at its place in the file. */
static int put_field(const struct cm_image_header *h, const void *field, size_t n,
		     cm_image_write_fn w, void *ctx)
{
	return w(ctx, field, n, (uint64_t)((const unsigned char *)field - (const unsigned char *)h));
}

/* A gap of at most this many clean chunks between two dirty ones is
 * written with them: the clean chunks' bytes (and numbers) in the file are
 * the writer's own, so writing them again changes nothing a reader can
 * see, and one 4 kB copy costs less than the system call it saves. */
#define CM_IMAGE_GAP_CHUNKS 4

/* The span [*from, *to) of chunks from k on that one store covers: a dirty
 * chunk and the dirty ones after it, across gaps of up to gap clean ones.
 * False when no dirty chunk is left. */
static bool next_span(const unsigned char *dirty, size_t n, size_t k, size_t gap, size_t *from,
		      size_t *to)
{
	size_t e, clean = 0;

	while (k < n && dirty != NULL && !dirty[k])
		k++;
	if (k >= n)
		return false;
	for (e = k; e < n; e++) {
		if (dirty == NULL || dirty[e])
			clean = 0, *to = e + 1;
		else if (++clean > gap)
			break;
	}
	*from = k;
	return true;
}

/* Stores the numbers of the chunks marked in dirty: one store from the
 * first to the last (the clean ones' numbers are written as they are). */
static int put_seqs(const struct cm_image_section *s, const unsigned char *dirty,
		    const uint32_t *seqs, size_t n, cm_image_write_fn w, void *ctx)
{
	size_t from, to;

	if (!next_span(dirty, n, 0, n, &from, &to))
		return 0;
	return w(ctx, seqs + from, 4 * (to - from), s->seqs_off + 4 * from);
}

/* The data of the chunks marked in dirty, in spans (next_span). */
static int put_data(const struct cm_image_section *s, const unsigned char *data, size_t len,
		    const unsigned char *dirty, cm_image_write_fn w, void *ctx)
{
	size_t n = cm_image_chunks(len), from, to;

	for (size_t k = 0; next_span(dirty, n, k, CM_IMAGE_GAP_CHUNKS, &from, &to); k = to) {
		size_t end = to * CM_IMAGE_CHUNK < len ? to * CM_IMAGE_CHUNK : len;

		if (w(ctx, data + from * CM_IMAGE_CHUNK, end - from * CM_IMAGE_CHUNK,
		      s->off + from * CM_IMAGE_CHUNK) != 0)
			return -1;
	}
	return 0;
}

int cm_image_put_section(struct cm_image_header *h, unsigned sec, const void *data,
			 size_t len, const unsigned char *dirty, uint32_t *seqs,
			 cm_image_write_fn w, void *ctx)
{
	struct cm_image_section *s = &h->sec[sec];
	size_t n = cm_image_chunks(len), from, to;
	uint32_t next;

	/* Encoded again with the same bytes (a group without sources of its
	 * own, a sample that changed nothing served): readers have it all. */
	if (dirty != NULL && len == s->len && !(s->seq & 1u) && !next_span(dirty, n, 0, 0, &from, &to))
		return 0;
	/* The section odd before anything changes; each rewritten chunk odd
	 * before its bytes change and numbered only after them; the length,
	 * then the section even. A reader that sees the same even number on
	 * both sides of its copy copied one whole publication; one that sees
	 * a chunk's number the same on both sides of reading it read that
	 * chunk whole. A failed store leaves the section odd. */
	s->seq |= 1u;
	next = s->seq + 1;
	if (put_field(h, &s->seq, sizeof(s->seq), w, ctx) != 0)
		return -1;
	for (size_t k = 0; k < n; k++)
		if (dirty == NULL || dirty[k])
			seqs[k] = next | 1u;
	if (put_seqs(s, dirty, seqs, n, w, ctx) != 0 ||
	    put_data(s, data, len, dirty, w, ctx) != 0)
		return -1;
	for (size_t k = 0; k < n; k++)
		if (dirty == NULL || dirty[k])
			seqs[k] = next;
	if (put_seqs(s, dirty, seqs, n, w, ctx) != 0)
		return -1;
	if (s->len != len) {
		s->len = (uint32_t)len;
		if (put_field(h, &s->len, sizeof(s->len), w, ctx) != 0)
			return -1;
	}
	s->seq = next;
	return put_field(h, &s->seq, sizeof(s->seq), w, ctx);
}

static int mem_write(void *ctx, const void *buf, size_t len, uint64_t off)
{
	memmove((unsigned char *)ctx + off, buf, len);
	return 0;
}

void cm_image_write_section(struct cm_image_header *h, unsigned sec, const void *data,
			    size_t len)
{
	/* The chunk numbers live in the image itself: stored onto themselves. */
	uint32_t *seqs = (uint32_t *)((unsigned char *)h + h->sec[sec].seqs_off);

	cm_image_put_section(h, sec, data, len, NULL, seqs, mem_write, h);
}
