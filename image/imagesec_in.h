/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * imagesec_in.h - what imagesec.c (units and slots) and imageidx.c (the
 * offsets) share of a section's insides. Not for other files.
 */
#ifndef CLUSTERMON_IMAGE_SEC_IN_H
#define CLUSTERMON_IMAGE_SEC_IN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "image.h"
#include "imagesec.h"

#define HEAD 8u
#define MAX_COLUMNS 256u
#define NO_POS UINT32_MAX

static inline uint32_t rd32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

/* Bytes of the entry at p (its head read where it lies). */
static inline size_t entry_size(const unsigned char *p)
{
	uint16_t vl;

	memcpy(&vl, p + 2, 2);
	return 4 + 4 * (size_t)p[1] + (((size_t)vl + 3) & ~(size_t)3);
}

/* Each entry of unit u (checked by entries_ok when it was put). */
#define EACH_ENTRY(s, u, p)                                                             \
	for (const unsigned char *p = (s)->data + (u)->off, *end_ = p + (u)->len;        \
	     p < end_; p += entry_size(p))

static inline const uint32_t *key_of(const struct cm_isec_list *l, const struct cm_isec_unit *u)
{
	return l->keys + u->key_at;
}

bool isec_grow(void **p, size_t *cap, size_t need, size_t unit);
/* Row u of the table arc leaves its gapped place (if it had one). */
static inline void isec_vacate(struct cm_isec *s, uint32_t arc, const struct cm_isec_unit *u)
{
	if (u->pos == NO_POS)
		return;
	if (s->nvac < CM_ISEC_MAX_VACATED)
		s->vac[s->nvac] = (struct cm_isec_vacated){ arc, u->pos };
	s->nvac++;
}
/* Bytes into the data, their chunks marked dirty. Here, not in
 * imagesec.c, because imageidx.c writes the offsets through it too and
 * calls nothing else of imagesec.c: so the two files do not call each
 * other (tests/source/circles.sh). */
static inline void isec_put_bytes(struct cm_isec *s, size_t off, const void *p, size_t len)
{
	memcpy(s->data + off, p, len);
	if (len == 0)
		return;
	for (size_t k = off / CM_IMAGE_CHUNK; k <= (off + len - 1) / CM_IMAGE_CHUNK; k++)
		s->dirty[k] = 1;
	s->bytes_dirtied += len;
}

/* imageidx.c. The offsets a full layout needs (the tables' places
 * planned into s->span), then that layout into s->offs. */
size_t isec_plan(struct cm_isec *s);
void isec_index_all(struct cm_isec *s);
/* The offsets [from, to) of s->offs into the data, marking what changed. */
void isec_put_index(struct cm_isec *s, size_t from, size_t to);
/* The offsets of the tables in s->moved redone where their rows came,
 * went or moved; false (some maybe written) when only a full layout will
 * do: a table out of room, a new table or column, a table not gapped
 * whose count of entries changed. */
bool isec_update_tables(struct cm_isec *s);

#endif
