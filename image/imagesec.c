/* SPDX-License-Identifier: BSD-2-Clause */
/* imagesec.c - a section of the image kept up to date by change (see imagesec.h). */
#include "imagesec.h"
#include "imagesec_in.h"
#include "image.h"

#include <stdlib.h>
#include <string.h>

/* Free slots are reused by exact length up to this many bytes; a longer
 * one waits for the next compaction. */
#define FREE_CLASSES 1024u

bool isec_grow(void **p, size_t *cap, size_t need, size_t unit)
{
	size_t n = *cap ? *cap : 64;
	void *q;

	if (need <= *cap)
		return true;
	while (n < need)
		n += n / 2 + 64;
	q = realloc(*p, n * unit);
	if (q == NULL)
		return false;
	*p = q;
	*cap = n;
	return true;
}

/* Entries that fill len exactly; a row's name a column (< MAX_COLUMNS)
 * and an index. Their number into *n; a row's columns into *cols (bit c)
 * when each is below 64 and named once, else 0. */
static bool entries_ok(const unsigned char *p, size_t len, bool row, uint32_t *n,
		       uint64_t *cols)
{
	bool wide = false;

	*n = 0;
	*cols = 0;
	for (size_t at = 0; at < len; (*n)++) {
		uint32_t c = 0;

		if (len - at < 4 || entry_size(p + at) > len - at ||
		    (row && (p[at + 1] < 3 || (c = rd32(p + at + 12)) >= MAX_COLUMNS)))
			return false;
		if (row && (c >= 64 || (*cols >> c & 1)))
			wide = true;
		else if (row)
			*cols |= (uint64_t)1 << c;
		at += entry_size(p + at);
	}
	if (wide)
		*cols = 0;
	return true;
}

/* The entries at a and b (len bytes each) have the same heads and names,
 * in the same places: only values differ, and the offsets stand. */
static bool same_shape(const unsigned char *a, const unsigned char *b, size_t len)
{
	for (size_t at = 0; at < len; at += entry_size(a + at)) {
		size_t head = 4 + 4 * (size_t)a[at + 1];

		if (memcmp(a + at, b + at, head) != 0)
			return false;
	}
	return true;
}

void cm_isec_init(struct cm_isec *s)
{
	memset(s, 0, sizeof(*s));
}

static void list_free(struct cm_isec_list *l)
{
	free(l->u);
	free(l->keys);
	memset(l, 0, sizeof(*l));
}

void cm_isec_free(struct cm_isec *s)
{
	free(s->data);
	free(s->dirty);
	list_free(&s->old);
	list_free(&s->cur);
	for (size_t i = 0; s->free != NULL && i < FREE_CLASSES; i++)
		free(s->free[i].off);
	free(s->free);
	free(s->offs);
	memset(s, 0, sizeof(*s));
}

/* ------------------------------------------------------------ the data */

/* Room for cap bytes of data and their chunks' marks. */
static bool reserve(struct cm_isec *s, size_t need)
{
	size_t chunks_before = cm_image_chunks(s->cap), chunks;

	if (need <= s->cap)
		return true;
	if (!isec_grow((void **)&s->data, &s->cap, need, 1))
		return false;
	chunks = cm_image_chunks(s->cap);
	if (s->dirty == NULL || chunks > chunks_before) {
		unsigned char *d = realloc(s->dirty, chunks);

		if (d == NULL)
			return false;
		memset(d + chunks_before, 0, chunks - chunks_before);
		s->dirty = d;
	}
	return true;
}

/* A slot of len bytes (a multiple of 4): a free one of that length, or at
 * the end. UINT32_MAX when out of memory. */
static uint32_t slot_alloc(struct cm_isec *s, size_t len)
{
	struct cm_isec_free *f = len / 4 < FREE_CLASSES && s->free ? &s->free[len / 4] : NULL;
	size_t off = s->len;

	if (len > 0 && f != NULL && f->n > 0) {
		s->waste -= len;
		return f->off[--f->n];
	}
	if (off + len > UINT32_MAX || !reserve(s, off + len))
		return UINT32_MAX;
	s->len += len;
	return (uint32_t)off;
}

static void slot_free(struct cm_isec *s, uint32_t off, uint32_t len)
{
	struct cm_isec_free *f;

	if (len == 0)
		return;
	if (off + len == s->len) {
		s->len = off;
		return;
	}
	s->waste += len;
	if (len / 4 >= FREE_CLASSES)
		return;
	if (s->free == NULL && (s->free = calloc(FREE_CLASSES, sizeof(*s->free))) == NULL)
		return;
	f = &s->free[len / 4];
	if (isec_grow((void **)&f->off, &f->cap, f->n + 1, sizeof(uint32_t)))
		f->off[f->n++] = off;
}

static void forget_free(struct cm_isec *s)
{
	for (size_t i = 0; s->free != NULL && i < FREE_CLASSES; i++)
		s->free[i].n = 0;
	s->waste = 0;
}

/* ------------------------------------------------------------ the units */

static bool append(struct cm_isec_list *l, const struct cm_isec_unit *u, const uint32_t *key)
{
	struct cm_isec_unit *v;

	if (!isec_grow((void **)&l->u, &l->cap, l->n + 1, sizeof(*l->u)) ||
	    !isec_grow((void **)&l->keys, &l->kcap, l->nkeys + u->key_len, sizeof(uint32_t)))
		return false;
	v = &l->u[l->n++];
	*v = *u;
	v->key_at = (uint32_t)l->nkeys;
	memcpy(l->keys + l->nkeys, key, 4 * (size_t)u->key_len);
	l->nkeys += u->key_len;
	return true;
}

/* The units change from old.u[at] on: cur takes the ones before. */
static void start_copying(struct cm_isec *s)
{
	if (s->copying)
		return;
	s->copying = true;
	s->cur.n = s->cur.nkeys = 0;
	for (size_t i = 0; i < s->at && !s->failed; i++)
		if (!append(&s->cur, &s->old.u[i], key_of(&s->old, &s->old.u[i])))
			s->failed = true;
}

void cm_isec_begin(struct cm_isec *s)
{
	s->at = 0;
	s->copying = s->relayout = s->matched = false;
	s->nmoved = s->nvac = 0;
	s->failed = false;
	if (s->data == NULL) {
		if (!reserve(s, HEAD)) {
			s->failed = true;
			return;
		}
		memset(s->data, 0, HEAD);
		s->len = HEAD;
	}
}

/* A row of the table whose arc this is came, went or moved: the offsets
 * of that table are redone, the others' stay (cm_isec_end). */
static void moved(struct cm_isec *s, uint32_t arc)
{
	for (size_t i = 0; i < s->nmoved; i++)
		if (s->moved[i] == arc)
			return;
	if (s->nmoved == CM_ISEC_MAX_MOVED)
		s->relayout = true;
	else
		s->moved[s->nmoved++] = arc;
}

/* Unit u of the last publication is gone: its slot is free, its place
 * in a gapped table a hole; a scalar gone lays every offset out again. */
static void gone(struct cm_isec *s, const struct cm_isec_unit *u)
{
	if (u->row) {
		moved(s, key_of(&s->old, u)[0]);
		isec_vacate(s, key_of(&s->old, u)[0], u);
	} else {
		s->relayout = true;
	}
	slot_free(s, u->off, u->len);
}

static int key_cmp(const uint32_t *a, size_t alen, const uint32_t *b, size_t blen)
{
	return cm_oid_compare(a, alen, b, blen);
}

bool cm_isec_next(struct cm_isec *s, const uint32_t *key, size_t key_len, uint64_t gen)
{
	s->gen = gen;
	s->matched = false;
	if (key_len == 0 || key_len > CM_ISEC_MAX_KEY)
		s->failed = true;
	if (s->failed)
		return false;
	memcpy(s->key, key, 4 * key_len);
	s->key_len = key_len;
	while (s->at < s->old.n) {
		const struct cm_isec_unit *u = &s->old.u[s->at];
		int c = key_cmp(key_of(&s->old, u), u->key_len, key, key_len);

		if (c > 0)
			break;
		if (c == 0) {
			if (gen == 0 || u->gen != gen) {
				s->matched = true;
				return true;
			}
			if (s->copying && !append(&s->cur, u, key))
				s->failed = true;
			s->at++;
			return false;
		}
		start_copying(s);
		gone(s, u);
		s->at++;
	}
	start_copying(s);                    /* a new unit */
	return true;
}

bool cm_isec_keep(struct cm_isec *s, const uint32_t *first, const uint32_t *last,
		  size_t key_len, size_t n)
{
	const struct cm_isec_unit *a, *z;

	if (s->failed || n == 0 || s->at + n > s->old.n)
		return false;
	a = &s->old.u[s->at];
	z = &s->old.u[s->at + n - 1];
	if (key_cmp(key_of(&s->old, a), a->key_len, first, key_len) != 0 ||
	    key_cmp(key_of(&s->old, z), z->key_len, last, key_len) != 0)
		return false;
	for (size_t i = 0; s->copying && i < n; i++)
		if (!append(&s->cur, &s->old.u[s->at + i], key_of(&s->old, &s->old.u[s->at + i])))
			s->failed = true;
	s->at += n;
	s->matched = false;
	return true;
}

/* The unit's new entries into its slot: in place when only bytes changed
 * (0), a new slot when the length did (1: its entries' offsets move); -1
 * out of memory. */
static int store(struct cm_isec *s, struct cm_isec_unit *u, const void *p, size_t len,
		 bool known)
{
	uint32_t off;

	if (known && u->len == len && memcmp(s->data + u->off, p, len) == 0)
		return 0;
	if (known && u->len == len && same_shape(s->data + u->off, p, len)) {
		isec_put_bytes(s, u->off, p, len);
		return 0;
	}
	if (known)
		slot_free(s, u->off, u->len);
	off = slot_alloc(s, len);
	if (off == UINT32_MAX)
		return -1;
	isec_put_bytes(s, off, p, len);
	u->off = off;
	u->len = (uint32_t)len;
	return 1;
}

void cm_isec_put(struct cm_isec *s, const void *entries, size_t len, bool row)
{
	struct cm_isec_unit fresh = { .key_len = (uint16_t)s->key_len, .pos = NO_POS }, *u;
	uint32_t nent;
	int slot;
	uint64_t cols;

	if (s->failed)
		return;
	s->units_encoded++;
	u = s->matched ? &s->old.u[s->at] : &fresh;
	if (len > UINT32_MAX || !entries_ok(entries, len, row, &nent, &cols) ||
	    (slot = store(s, u, entries, len, s->matched)) < 0) {
		s->failed = true;
		return;
	}
	if (!s->matched || slot > 0) { /* new, or its entries moved */
		if (row && (!s->matched || u->row)) {
			u->reoff = true;
			moved(s, s->key[0]);
		} else {
			s->relayout = true;
		}
	}
	u->nent = nent;
	u->cols = cols;
	u->row = row;
	u->gen = s->gen;
	if (s->copying && !append(&s->cur, u, s->key))
		s->failed = true;
	if (s->matched)
		s->at++;
	s->matched = false;
}

/* Every unit packed after room for the offsets (grown by an eighth):
 * when the offsets outgrew their room or free slots are an eighth of the
 * data. Everything is written again. */
static bool repack(struct cm_isec *s)
{
	size_t ocap = (4 * s->count + 4 * s->count / 8 + 64 + 3) & ~(size_t)3, len = HEAD + ocap;
	unsigned char *d;

	for (size_t i = 0; i < s->old.n; i++)
		len += s->old.u[i].len;
	if (len > UINT32_MAX || (d = malloc(len)) == NULL)
		return false;
	memset(d, 0, HEAD + ocap);
	len = HEAD + ocap;
	for (size_t i = 0; i < s->old.n; i++) {
		struct cm_isec_unit *u = &s->old.u[i];

		memcpy(d + len, s->data + u->off, u->len);
		u->off = (uint32_t)len;
		len += u->len;
	}
	free(s->data);
	s->data = d;
	s->cap = s->len = len;
	s->ocap = ocap;
	free(s->dirty);
	s->dirty = malloc(cm_image_chunks(len) ? cm_image_chunks(len) : 1);
	if (s->dirty == NULL)
		return false;
	forget_free(s);
	cm_isec_mark_all(s, true);
	s->bytes_dirtied += len;
	return true;
}

size_t cm_isec_end(struct cm_isec *s)
{
	size_t slots;

	if (s->failed)
		return 0;
	if (s->at < s->old.n)
		start_copying(s);
	for (; s->at < s->old.n; s->at++)
		gone(s, &s->old.u[s->at]);
	if (s->copying) {
		struct cm_isec_list t = s->old;

		s->old = s->cur;
		s->cur = t;
	}
	if (s->failed)
		return 0;
	slots = s->len - HEAD - s->ocap;
	if (s->waste > slots / 8 && s->waste > CM_IMAGE_CHUNK)
		s->relayout = true;  /* and repacked below */
	if (!s->relayout && s->ocap != 0 && (s->nmoved == 0 || isec_update_tables(s)))
		return s->len;
	/* Everything laid out again: the room for the offsets first. */
	s->count = isec_plan(s);
	if (4 * s->count > s->ocap || (s->waste > slots / 8 && s->waste > CM_IMAGE_CHUNK) ||
	    s->ocap == 0) {
		if (!repack(s))
			return s->failed = true, 0;
	}
	if (!isec_grow((void **)&s->offs, &s->offs_cap, s->count + 1, sizeof(uint32_t)))
		return s->failed = true, 0;
	isec_index_all(s);
	isec_put_index(s, 0, s->count);
	s->layouts++;
	return s->len;
}

void cm_isec_mark_all(struct cm_isec *s, bool dirty)
{
	if (s->dirty != NULL)
		memset(s->dirty, dirty, cm_image_chunks(s->cap));
}

uint64_t cm_isec_fingerprint(const void *p, size_t n)
{
	const unsigned char *b = p;
	uint64_t h = 0x9e3779b97f4a7c15ull ^ n;

	for (size_t i = 0; i + 8 <= n; i += 8) {
		uint64_t w;

		memcpy(&w, b + i, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	return h | 1u;
}
