/* SPDX-License-Identifier: BSD-2-Clause */
/* image.c - reading the served image (see image.h); imagewrite.c writes it. */
#include "image.h"
#include "core/lowerbound.h"

#include <stdlib.h>
#include <string.h>

#define ENTRY_HEAD CM_IMAGE_ENTRY_HEAD
#define SECTION_HEAD CM_IMAGE_SECTION_HEAD
#define READ_TRIES 8


static uint32_t rd32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

int cm_oid_compare(const uint32_t *a, size_t alen, const uint32_t *b, size_t blen)
{
	size_t n = alen < blen ? alen : blen;

	for (size_t i = 0; i < n; i++)
		if (a[i] != b[i])
			return a[i] < b[i] ? -1 : 1;
	return alen == blen ? 0 : (alen < blen ? -1 : 1);
}

/* ------------------------------------------------------------ reading */

/* The counts and lengths of a header, checked where it lies whole in our
 * own memory. */
static bool counts_ok(const struct cm_image_header *h, bool regs)
{
	if (memcmp(h->magic, CM_IMAGE_MAGIC, sizeof(h->magic)) != 0 ||
	    h->version != CM_IMAGE_VERSION || h->header_size != sizeof(*h) ||
	    h->nsections > CM_IMAGE_MAX_SECTIONS || h->nregs > CM_IMAGE_MAX_REGS)
		return false;
	for (uint32_t i = 0; i < h->nsections; i++)
		if (h->sec[i].base_len == 0 || h->sec[i].base_len > CM_IMAGE_MAX_OID)
			return false;
	for (uint32_t i = 0; regs && i < h->nregs; i++)
		if (h->reg[i].len == 0 || h->reg[i].len > CM_IMAGE_MAX_OID)
			return false;
	return true;
}

const struct cm_image_header *cm_image_header(const void *map, size_t size)
{
	const struct cm_image_header *h = map;

	if (map == NULL || size < sizeof(*h) || (uintptr_t)map % 8 != 0 || !counts_ok(h, true))
		return NULL;
	return h;
}

bool cm_image_fresh(const struct cm_image_header *h, uint64_t now_ns)
{
	uint64_t beat = h->heartbeat_ns;
	uint64_t limit = (uint64_t)h->stale_after_ms * 1000000u;

	return h->state == CM_IMAGE_LIVE && now_ns >= beat && now_ns - beat <= limit;
}

/* One section buffer's bytes, as found. */
struct view {
	const unsigned char *p;
	size_t n;
	uint32_t count, at;
	const uint32_t *base;
	size_t base_len;
};

struct entry {
	uint8_t type;
	const unsigned char *sub;   /* unaligned u32s */
	size_t sub_len;
	const unsigned char *val;
	size_t val_len;
};

static bool entry_at(const struct view *v, size_t i, struct entry *e)
{
	uint32_t off = rd32(v->p + v->at + 4 * i);
	uint16_t vl;

	if (off < SECTION_HEAD || off > v->n || v->n - off < ENTRY_HEAD)
		return false;
	e->type = v->p[off];
	e->sub_len = v->p[off + 1];
	memcpy(&vl, v->p + off + 2, sizeof(vl));
	e->val_len = vl;
	if (e->sub_len > CM_IMAGE_MAX_SUB || e->val_len > CM_IMAGE_MAX_VAL ||
	    v->n - off - ENTRY_HEAD < 4 * e->sub_len + e->val_len)
		return false;
	e->sub = v->p + off + ENTRY_HEAD;
	e->val = e->sub + 4 * e->sub_len;
	return true;
}

static size_t entry_name(const struct view *v, const struct entry *e, uint32_t *out)
{
	memcpy(out, v->base, 4 * v->base_len);
	for (size_t i = 0; i < e->sub_len; i++)
		out[v->base_len + i] = rd32(e->sub + 4 * i);
	return v->base_len + e->sub_len;
}

/* An entry's part after the base against a key's, as cm_oid_compare. */
static int compare_sub(const struct entry *e, const uint32_t *key, size_t klen)
{
	size_t n = e->sub_len < klen ? e->sub_len : klen;

	for (size_t i = 0; i < n; i++) {
		uint32_t x = rd32(e->sub + 4 * i);

		if (x != key[i])
			return x < key[i] ? -1 : 1;
	}
	return e->sub_len == klen ? 0 : (e->sub_len < klen ? -1 : 1);
}

/* The first entry comparing above key (strict) or at/above it; -1 when
 * malformed. Every entry starts with the base, so only the rest of key
 * is compared entry by entry. */
struct sub_key {
	const struct view *v;
	const uint32_t *key;
	size_t klen;
	bool strict;
	bool *malformed;           /* set by an entry that does not read */
};

static bool sub_before(const void *ctx, size_t i)
{
	const struct sub_key *k = ctx;
	struct entry e;
	int c;

	if (!entry_at(k->v, i, &e)) {
		*k->malformed = true;
		return false;
	}
	c = compare_sub(&e, k->key, k->klen);
	return c < 0 || (k->strict && c == 0);
}

static long search(const struct view *v, const uint32_t *key, size_t klen, bool strict)
{
	bool malformed = false;
	size_t at;
	int c = cm_oid_compare(key, klen < v->base_len ? klen : v->base_len, v->base, v->base_len);

	if (c != 0 || klen < v->base_len)
		return c > 0 ? (long)v->count : 0;
	at = cm_lower_bound(0, v->count, sub_before,
			    &(struct sub_key){ v, key + v->base_len, klen - v->base_len, strict,
					       &malformed });
	return malformed ? -1 : (long)at;
}

struct query {
	const uint32_t *name, *prefix;
	size_t len, plen;
	bool next;
	bool strict;   /* entries after name only (not name itself) */
};

static enum cm_image_find lookup(const struct view *v, const struct query *q,
				 struct cm_image_value *out)
{
	long i = search(v, q->name, q->len, q->strict);
	struct entry e;

	if (i < 0)
		return CM_IMAGE_BUSY;
	if ((uint32_t)i >= v->count)
		return CM_IMAGE_NONE;
	if (!entry_at(v, (size_t)i, &e))
		return CM_IMAGE_BUSY;
	out->name_len = entry_name(v, &e, out->name);
	if (q->next ? (out->name_len < q->plen ||
		       cm_oid_compare(out->name, q->plen, q->prefix, q->plen) != 0)
		    : cm_oid_compare(out->name, out->name_len, q->name, q->len) != 0)
		return CM_IMAGE_NONE;
	out->type = e.type;
	out->len = (uint32_t)e.val_len;
	memcpy(out->data, e.val, e.val_len);
	return CM_IMAGE_FOUND;
}

void cm_image_reader_init(struct cm_image_reader *r, cm_image_read_fn read, void *ctx)
{
	memset(r, 0, sizeof(*r));
	r->read = read;
	r->ctx = ctx;
}

void cm_image_reader_free(struct cm_image_reader *r)
{
	for (unsigned i = 0; i < CM_IMAGE_MAX_SECTIONS; i++) {
		free(r->copy[i].p);
		free(r->copy[i].seqs);
	}
	memset(r->copy, 0, sizeof(r->copy));
	free(r->tab);
	free(r->stage);
	r->tab = NULL;
	r->stage = NULL;
	r->tab_room = r->stage_room = 0;
	r->held = 0;
	r->valid = false;
}

/* What copying every section of the header could take at most: each
 * section's room and chunk numbers, the table of the largest and a stage
 * as large. Records change under the reader; grow() holds the bound then. */
static uint64_t reader_need(const struct cm_image_header *h)
{
	uint64_t need = 0, largest = 0;

	for (uint32_t i = 0; i < h->nsections; i++) {
		uint64_t cap = h->sec[i].cap;

		need += cap + 4 * cm_image_chunks(cap);
		if (cap > largest)
			largest = cap;
	}
	return need + largest + 4 * cm_image_chunks(largest);
}

bool cm_image_reader_refresh(struct cm_image_reader *r, uint64_t file_size)
{
	r->file_size = file_size;
	r->valid = file_size >= sizeof(r->h) &&
		   r->read(r->ctx, &r->h, CM_IMAGE_HEAD_BYTES, 0) == CM_IMAGE_HEAD_BYTES &&
		   counts_ok(&r->h, false);
	if (r->valid && reader_need(&r->h) > CM_IMAGE_MAX_READER_BYTES)
		r->valid = false, r->too_big = true;
	return r->valid;
}

int cm_image_reader_regs(struct cm_image_reader *r, struct cm_image_reg *out)
{
	size_t n = r->h.nregs * sizeof(*out);

	if (!r->valid || r->read(r->ctx, out, n, CM_IMAGE_HEAD_BYTES) != n)
		return -1;
	for (uint32_t i = 0; i < r->h.nregs; i++)
		if (out[i].len == 0 || out[i].len > CM_IMAGE_MAX_OID)
			return -1;
	return (int)r->h.nregs;
}

bool cm_image_reader_fresh(const struct cm_image_reader *r, uint64_t now_ns)
{
	return r->valid && cm_image_fresh(&r->h, now_ns);
}

int cm_image_reader_section_of(const struct cm_image_reader *r, const uint32_t *oid, size_t len)
{
	for (uint32_t i = 0; r->valid && i < r->h.nsections; i++) {
		const struct cm_image_section *s = &r->h.sec[i];

		if (s->base_len <= len && s->base_len <= CM_IMAGE_MAX_OID &&
		    memcmp(s->base, oid, s->base_len * sizeof(*oid)) == 0)
			return (int)i;
	}
	return -1;
}

int cm_image_demand_check(const void *buf, size_t len, struct cm_image_demand *out)
{
	if (len != sizeof(*out))
		return -1;
	memcpy(out, buf, sizeof(*out));
	if (memcmp(out->magic, CM_IMAGE_DEMAND_MAGIC, sizeof(out->magic)) != 0 ||
	    out->version != CM_IMAGE_VERSION)
		return -1;
	return 0;
}

bool cm_image_reader_held(const struct cm_image_reader *r, int sec, uint64_t now_ns)
{
	const struct cm_image_section *s;

	if (!r->valid || sec < 0 || (uint32_t)sec >= r->h.nsections)
		return false;
	s = &r->h.sec[sec];
	return !(s->flags & CM_SEC_ASLEEP) && now_ns < s->held_ns;
}

bool cm_image_reader_answered(const struct cm_image_reader *r, int sec, uint64_t wake_ns,
			      uint64_t now_ns)
{
	const struct cm_image_section *s;

	if (cm_image_reader_held(r, sec, now_ns))
		return true;
	if (!r->valid || sec < 0 || (uint32_t)sec >= r->h.nsections)
		return false;
	s = &r->h.sec[sec];
	/* The time is the writer's, taken after it read the wake: never
	 * earlier than the reader's for the same wake. */
	return !(s->flags & CM_SEC_ASLEEP) && s->fresh_ns >= wake_ns && s->fresh_ns <= now_ns;
}

/* The section's record as the file holds it now. */
static bool read_record(struct cm_image_reader *r, unsigned i, struct cm_image_section *s)
{
	uint64_t at = offsetof(struct cm_image_header, sec) + (uint64_t)i * sizeof(*s);

	return r->read(r->ctx, s, sizeof(*s), at) == sizeof(*s);
}

/* Grows *p to hold n bytes, within the reader's budget. */
static bool grow(struct cm_image_reader *r, void **p, size_t *have, size_t n)
{
	void *q;

	if (n <= *have)
		return true;
	if (n - *have > CM_IMAGE_MAX_READER_BYTES - r->held) {
		r->too_big = true;
		return false;
	}
	q = realloc(*p, n);
	if (q == NULL)
		return false;
	*p = q;
	r->held += n - *have;
	*have = n;
	return true;
}

/* The record's sizes and places, checked against the file's size. */
static bool record_ok(const struct cm_image_reader *r, const struct cm_image_section *s)
{
	uint64_t fs = r->file_size, tab = 4 * (uint64_t)cm_image_chunks(s->len);

	return s->len >= SECTION_HEAD && s->len <= s->cap &&
	       s->cap <= CM_IMAGE_MAX_SECTION_BYTES && s->off <= fs && s->cap <= fs - s->off &&
	       s->seqs_off <= fs && tab <= fs - s->seqs_off;
}

/* The copy holds chunks of the same place: only changed ones need reading. */
static bool same_place(const struct cm_image_copy *c, const struct cm_image_section *s)
{
	return c->placed && c->off == s->off && c->cap == s->cap && c->seqs_off == s->seqs_off;
}

/* Whether chunk k must be read: its number moved, the copy lacks it, or
 * the copy took it while the writer was at it (odd). A chunk whose even
 * number did not move was not written since the copy read it. */
static bool stale(const struct cm_image_reader *r, const struct cm_image_copy *c, size_t k,
		  bool fresh)
{
	return fresh || k >= cm_image_chunks(c->n) || r->tab[k] != c->seqs[k] || (c->seqs[k] & 1u);
}

static size_t chunk_len(const struct cm_image_section *s, size_t k)
{
	return (k + 1) * CM_IMAGE_CHUNK < s->len ? CM_IMAGE_CHUNK : s->len - k * CM_IMAGE_CHUNK;
}

/* Reads the chunks that changed since the copy into dst: the copy itself,
 * each at its own offset (direct), or the stage, packed. false on a short
 * read. */
static bool read_chunks(struct cm_image_reader *r, const struct cm_image_copy *c,
			const struct cm_image_section *s, bool fresh, unsigned char *dst,
			bool direct)
{
	size_t n = cm_image_chunks(s->len), at = 0;

	for (size_t k = 0; k < n;) {
		size_t e = k, from = k * CM_IMAGE_CHUNK, len;

		if (!stale(r, c, k, fresh)) {
			k++;
			continue;
		}
		while (e < n && stale(r, c, e, fresh))
			e++;
		len = (e - 1) * CM_IMAGE_CHUNK + chunk_len(s, e - 1) - from;
		if (r->read(r->ctx, dst + (direct ? from : at), len, s->off + from) != len)
			return false;
		r->chunks_read += e - k;
		at += len;
		k = e;
	}
	return true;
}

/* Bytes of the chunks that changed since the copy. */
static size_t changed_bytes(const struct cm_image_reader *r, const struct cm_image_copy *c,
			    const struct cm_image_section *s)
{
	size_t n = cm_image_chunks(s->len), bytes = 0;

	for (size_t k = 0; k < n; k++)
		if (stale(r, c, k, false))
			bytes += chunk_len(s, k);
	return bytes;
}

/* The stage into the copy, each chunk where read_chunks took it from. */
static void apply_stage(const struct cm_image_reader *r, struct cm_image_copy *c,
			const struct cm_image_section *s)
{
	size_t n = cm_image_chunks(s->len), at = 0;

	for (size_t k = 0; k < n; k++) {
		if (!stale(r, c, k, false))
			continue;
		memcpy(c->p + k * CM_IMAGE_CHUNK, r->stage + at, chunk_len(s, k));
		at += chunk_len(s, k);
	}
}

static bool same_record(const struct cm_image_section *a, const struct cm_image_section *b)
{
	return a->seq == b->seq && a->len == b->len && a->off == b->off && a->cap == b->cap &&
	       a->seqs_off == b->seqs_off;
}

/* Where the changed chunks go: the copy itself while it is not served
 * (direct: each chunk at its own offset), else the stage, so that a torn
 * attempt leaves a served copy as it was. NULL when out of memory. */
static unsigned char *destination(struct cm_image_reader *r, struct cm_image_copy *c,
				  const struct cm_image_section *s, bool fresh)
{
	if (!grow(r, (void **)&c->p, &c->room, s->len))
		return NULL;
	if (fresh) {
		c->placed = c->ok = false;
		c->n = 0;
	}
	if (!c->ok)
		return c->p;
	return grow(r, (void **)&r->stage, &r->stage_room, changed_bytes(r, c, s)) ? r->stage : NULL;
}

/* The copy now holds s's place, each chunk as numbered in r->tab. */
static void took(struct cm_image_reader *r, struct cm_image_copy *c,
		 const struct cm_image_section *s, bool whole)
{
	memcpy(c->seqs, r->tab, 4 * cm_image_chunks(s->len));
	c->n = s->len;
	c->seq = s->seq;
	c->off = s->off;
	c->cap = s->cap;
	c->seqs_off = s->seqs_off;
	c->placed = true;
	c->ok = whole;
}

/* One attempt at bringing the copy of section i up to the record s. The
 * copy changes only when the section's record was the same before and
 * after (*torn otherwise). A short read invalidates the image. */
static enum cm_image_find copy_section(struct cm_image_reader *r, unsigned i,
				       const struct cm_image_section *s, bool *torn)
{
	struct cm_image_copy *c = &r->copy[i];
	struct cm_image_section again;
	size_t n = cm_image_chunks(s->len);
	bool fresh = !same_place(c, s), direct;
	unsigned char *dst;

	*torn = false;
	if (!fresh && c->seq == s->seq && c->n == s->len)
		return CM_IMAGE_FOUND;
	if (s->len == 0)
		return CM_IMAGE_NONE; /* never published */
	if (!record_ok(r, s) || !grow(r, (void **)&r->tab, &r->tab_room, 4 * n) ||
	    !grow(r, (void **)&c->seqs, &c->seqs_room, 4 * n))
		return CM_IMAGE_BUSY;
	if (r->read(r->ctx, r->tab, 4 * n, s->seqs_off) != 4 * n) {
		r->valid = false;
		return CM_IMAGE_BUSY;
	}
	dst = destination(r, c, s, fresh);
	direct = dst == c->p;
	if (dst == NULL)
		return CM_IMAGE_BUSY;
	if (!read_chunks(r, c, s, fresh, dst, direct) || !read_record(r, i, &again)) {
		r->valid = false;
		c->placed = c->ok = false;
		return CM_IMAGE_BUSY;
	}
	*torn = !same_record(&again, s);
	if (!direct && !*torn)
		apply_stage(r, c, s);
	/* Torn while being made: each chunk keeps the number it had before it
	 * was read, so the next attempt reads only those that moved since. */
	if (direct || !*torn)
		took(r, c, s, !*torn);
	return *torn ? CM_IMAGE_BUSY : CM_IMAGE_FOUND;
}

/* Brings the copy of section i up to what the file publishes: retried
 * while the writer changes the section under us; else the last whole copy
 * stays. */
static enum cm_image_find sync_section(struct cm_image_reader *r, unsigned i)
{
	struct cm_image_section s = r->h.sec[i];
	enum cm_image_find rc;
	bool torn;

	for (int t = 0; t < READ_TRIES; t++) {
		if (t > 0 && !read_record(r, i, &s)) {
			r->valid = false;
			return CM_IMAGE_BUSY;
		}
		if (s.seq & 1u)
			continue;
		rc = copy_section(r, i, &s, &torn);
		if (!torn)
			return rc;
	}
	return r->copy[i].ok ? CM_IMAGE_FOUND : CM_IMAGE_BUSY;
}

/* The section holding name's subtree: its base is a prefix of name. */
static int section_of(const struct cm_image_header *h, const uint32_t *name, size_t len)
{
	for (uint32_t i = 0; i < h->nsections; i++) {
		uint32_t blen = h->sec[i].base_len;

		if (len >= blen && cm_oid_compare(name, blen, h->sec[i].base, blen) == 0)
			return (int)i;
	}
	return -1;
}

static enum cm_image_find query(struct cm_image_reader *r, unsigned i, const struct query *q,
				struct cm_image_value *out)
{
	const struct cm_image_section *s = &r->h.sec[i];
	const struct cm_image_copy *c = &r->copy[i];
	enum cm_image_find rc = sync_section(r, i);
	struct view v = { .p = c->p, .n = c->n, .base = s->base, .base_len = s->base_len };

	if (rc != CM_IMAGE_FOUND)
		return rc;
	v.count = rd32(v.p);
	v.at = rd32(v.p + 4);
	if (v.at < SECTION_HEAD || v.at > v.n || v.count > (v.n - v.at) / 4)
		return CM_IMAGE_BUSY;
	return lookup(&v, q, out);
}

enum cm_image_find cm_image_reader_get(struct cm_image_reader *r, const uint32_t *name,
				       size_t len, struct cm_image_value *out)
{
	struct query q = { .name = name, .len = len };
	int i = r->valid ? section_of(&r->h, name, len) : -1;

	if (!r->valid)
		return CM_IMAGE_BUSY;
	if (i < 0 || len <= r->h.sec[i].base_len)
		return CM_IMAGE_NONE;
	return query(r, (unsigned)i, &q, out);
}

enum cm_image_find cm_image_reader_next(struct cm_image_reader *r, const uint32_t *name,
					size_t len, const uint32_t *prefix, size_t plen,
					struct cm_image_value *out)
{
	struct query q = { .name = name, .len = len, .prefix = prefix, .plen = plen, .next = true,
			   .strict = true };
	int i = r->valid ? section_of(&r->h, prefix, plen) : -1;

	if (!r->valid)
		return CM_IMAGE_BUSY;
	if (i < 0)
		return CM_IMAGE_NONE;
	/* A name before the subtree starts the search at the subtree. */
	if (cm_oid_compare(name, len, prefix, plen) < 0) {
		q.name = prefix;
		q.len = plen;
		q.strict = false;
	}
	return query(r, (unsigned)i, &q, out);
}

/* ------------------------------------------------------------ in memory */

struct mem {
	const unsigned char *p;
	size_t n;
};

static size_t mem_read(void *ctx, void *buf, size_t len, uint64_t off)
{
	const struct mem *m = ctx;

	if (off >= m->n)
		return 0;
	if (len > m->n - off)
		len = m->n - off;
	memcpy(buf, m->p + off, len);
	return len;
}

/* A reader over map[0..size), asked once: next picks GETNEXT. */
static enum cm_image_find once(const void *map, size_t size, const uint32_t *name,
			       size_t len, const uint32_t *prefix, size_t plen,
			       struct cm_image_value *out, bool next)
{
	struct mem m = { map, size };
	struct cm_image_reader *r = malloc(sizeof(*r));
	enum cm_image_find rc = CM_IMAGE_BUSY;

	if (map == NULL || r == NULL) {
		free(r);
		return CM_IMAGE_BUSY;
	}
	cm_image_reader_init(r, mem_read, &m);
	if (cm_image_reader_refresh(r, size))
		rc = next ? cm_image_reader_next(r, name, len, prefix, plen, out)
			  : cm_image_reader_get(r, name, len, out);
	else
		rc = CM_IMAGE_BUSY;
	cm_image_reader_free(r);
	free(r);
	return rc;
}

enum cm_image_find cm_image_get(const void *map, size_t size, const uint32_t *name,
				size_t len, struct cm_image_value *out)
{
	return once(map, size, name, len, NULL, 0, out, false);
}

enum cm_image_find cm_image_next(const void *map, size_t size, const uint32_t *name,
				 size_t len, const uint32_t *prefix, size_t plen,
				 struct cm_image_value *out)
{
	return once(map, size, name, len, prefix, plen, out, true);
}
