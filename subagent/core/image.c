/* SPDX-License-Identifier: BSD-2-Clause */
/* image.c - encoding, publishing and reading the served image (see image.h). */
#include "image.h"

#include <stdlib.h>
#include <string.h>

#define ENTRY_HEAD 4u
#define SECTION_HEAD 8u
#define READ_TRIES 8

/* Fields another process writes are read whole, never torn. */
#define LOAD(p) __atomic_load_n((p), __ATOMIC_RELAXED)
#define LOAD_ACQ(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)

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

/* ------------------------------------------------------------ writing */

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

void cm_image_write_section(struct cm_image_header *h, unsigned sec, const void *data,
			    size_t len)
{
	struct cm_image_section *s = &h->sec[sec];
	unsigned a = (s->active & 1u) ^ 1u;
	struct cm_image_buf *b = &s->buf[a];
	uint32_t seq = b->seq;

	__atomic_store_n(&b->seq, seq + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	memcpy((unsigned char *)h + b->off, data, len);
	__atomic_store_n(&b->len, (uint32_t)len, __ATOMIC_RELAXED);
	__atomic_store_n(&b->seq, seq + 2, __ATOMIC_RELEASE);
	__atomic_store_n(&s->active, a, __ATOMIC_RELEASE);
}

/* ------------------------------------------------------------ reading */

const struct cm_image_header *cm_image_header(const void *map, size_t size)
{
	const struct cm_image_header *h = map;
	uint32_t nsec, nregs, len;

	if (map == NULL || size < sizeof(*h) || (uintptr_t)map % 8 != 0 ||
	    memcmp(h->magic, CM_IMAGE_MAGIC, sizeof(h->magic)) != 0 ||
	    h->version != CM_IMAGE_VERSION || h->header_size != sizeof(*h))
		return NULL;
	/* Each count read once: the writer may change it while we look. */
	nsec = LOAD(&h->nsections);
	nregs = LOAD(&h->nregs);
	if (nsec > CM_IMAGE_MAX_SECTIONS || nregs > CM_IMAGE_MAX_REGS)
		return NULL;
	for (uint32_t i = 0; i < nsec; i++) {
		len = LOAD(&h->sec[i].base_len);
		if (len == 0 || len > CM_IMAGE_MAX_OID)
			return NULL;
	}
	for (uint32_t i = 0; i < nregs; i++) {
		len = LOAD(&h->reg[i].len);
		if (len == 0 || len > CM_IMAGE_MAX_OID)
			return NULL;
	}
	return h;
}

bool cm_image_fresh(const struct cm_image_header *h, uint64_t now_ns)
{
	uint64_t beat = LOAD(&h->heartbeat_ns);
	uint64_t limit = (uint64_t)LOAD(&h->stale_after_ms) * 1000000u;

	return LOAD(&h->state) == CM_IMAGE_LIVE && now_ns >= beat && now_ns - beat <= limit;
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
static long search(const struct view *v, const uint32_t *key, size_t klen, bool strict)
{
	size_t lo = 0, hi = v->count;
	struct entry e;
	int c = cm_oid_compare(key, klen < v->base_len ? klen : v->base_len, v->base, v->base_len);

	if (c != 0 || klen < v->base_len)
		return c > 0 ? (long)v->count : 0;
	key += v->base_len;
	klen -= v->base_len;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (!entry_at(v, mid, &e))
			return -1;
		c = compare_sub(&e, key, klen);
		if (c < 0 || (strict && c == 0))
			lo = mid + 1;
		else
			hi = mid;
	}
	return (long)lo;
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

/* One consistent read of a section: retried while the writer rewrites the
 * buffer under us; a buffer that does not make sense is BUSY. */
static enum cm_image_find read_section(const unsigned char *map, size_t size,
				       const struct cm_image_section *s, const struct query *q,
				       struct cm_image_value *out)
{
	for (int t = 0; t < READ_TRIES; t++) {
		const struct cm_image_buf *b = &s->buf[LOAD_ACQ(&s->active) & 1u];
		uint32_t seq = LOAD_ACQ(&b->seq);
		uint64_t off = LOAD(&b->off);
		struct view v = { .base = s->base, .base_len = LOAD(&s->base_len) };
		enum cm_image_find rc;

		if (seq & 1u)
			continue;
		if (v.base_len == 0 || v.base_len > CM_IMAGE_MAX_OID)
			return CM_IMAGE_BUSY;
		v.n = LOAD(&b->len);
		if (v.n == 0)
			return CM_IMAGE_NONE; /* never published */
		if (off > size || v.n > size - off || v.n < SECTION_HEAD)
			rc = CM_IMAGE_BUSY;
		else {
			v.p = map + off;
			v.count = rd32(v.p);
			v.at = rd32(v.p + 4);
			if (v.at < SECTION_HEAD || v.at > v.n || v.count > (v.n - v.at) / 4)
				rc = CM_IMAGE_BUSY;
			else
				rc = lookup(&v, q, out);
		}
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (LOAD(&b->seq) == seq)
			return rc;
	}
	return CM_IMAGE_BUSY;
}

/* The header as the hot path checks it: the counts it reads are clamped
 * where they are used (section_of), since they may change under us. */
static const struct cm_image_header *header_quick(const void *map, size_t size)
{
	const struct cm_image_header *h = map;

	if (map == NULL || size < sizeof(*h) || (uintptr_t)map % 8 != 0 ||
	    memcmp(h->magic, CM_IMAGE_MAGIC, sizeof(h->magic)) != 0)
		return NULL;
	return h;
}

/* The section holding name's subtree: its base is a prefix of name. */
static const struct cm_image_section *section_of(const struct cm_image_header *h,
						 const uint32_t *name, size_t len)
{
	uint32_t n = LOAD(&h->nsections);

	for (uint32_t i = 0; i < n && i < CM_IMAGE_MAX_SECTIONS; i++) {
		const struct cm_image_section *s = &h->sec[i];
		uint32_t blen = LOAD(&s->base_len);

		if (blen > 0 && blen <= CM_IMAGE_MAX_OID && len >= blen &&
		    cm_oid_compare(name, blen, s->base, blen) == 0)
			return s;
	}
	return NULL;
}

enum cm_image_find cm_image_get(const void *map, size_t size, const uint32_t *name,
				size_t len, struct cm_image_value *out)
{
	const struct cm_image_header *h = header_quick(map, size);
	const struct cm_image_section *s;
	struct query q = { .name = name, .len = len };

	if (h == NULL)
		return CM_IMAGE_BUSY;
	s = section_of(h, name, len);
	if (s == NULL || len <= s->base_len)
		return CM_IMAGE_NONE;
	return read_section(map, size, s, &q, out);
}

enum cm_image_find cm_image_next(const void *map, size_t size, const uint32_t *name,
				 size_t len, const uint32_t *prefix, size_t plen,
				 struct cm_image_value *out)
{
	const struct cm_image_header *h = header_quick(map, size);
	const struct cm_image_section *s;
	struct query q = { .name = name, .len = len, .prefix = prefix, .plen = plen, .next = true,
			   .strict = true };

	if (h == NULL)
		return CM_IMAGE_BUSY;
	s = section_of(h, prefix, plen);
	if (s == NULL)
		return CM_IMAGE_NONE;
	/* A name before the subtree starts the search at the subtree. */
	if (cm_oid_compare(name, len, prefix, plen) < 0) {
		q.name = prefix;
		q.len = plen;
		q.strict = false;
	}
	return read_section(map, size, s, &q, out);
}
