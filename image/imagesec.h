/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * imagesec.h - one section of the published image (image.h), kept up to
 * date by change: the writer's single copy of the section's data, in which
 * a row that did not change is neither encoded nor written again.
 *
 * The section is made of units, visited in OID order at every publication:
 * a scalar (key: its arc) or a table row (key: the table's arc, then the
 * row's index), whose entries lie together in a slot that stays where it
 * is while the row lives and keeps its size. A unit with a nonzero
 * generation equal to the last one is skipped without being encoded; any
 * other is encoded and compared with its slot. The offsets (OID order:
 * column by column within a table) change only around the rows that came,
 * went or moved (see cm_isec_span); a scalar that came or went, or a table
 * out of room, lays them all out again. Every byte that changed marks its
 * chunk (CM_IMAGE_CHUNK) dirty: those chunks are all a publication writes.
 *
 * Pure C, one thread.
 */
#ifndef CLUSTERMON_IMAGE_SEC_H
#define CLUSTERMON_IMAGE_SEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Sub-identifiers of a unit's key: an arc and an index. */
#define CM_ISEC_MAX_KEY 64u
/* Tables whose rows came, went or moved that are re-indexed alone. */
#define CM_ISEC_MAX_MOVED 8u
#define CM_ISEC_MAX_SPANS 64u
#define CM_ISEC_MAX_VACATED 256u

struct cm_isec_unit {
	uint32_t off, len;    /* its entries in data */
	uint32_t key_at;      /* in keys */
	uint16_t key_len;
	bool row;             /* a table row: entries' subs are arc, 1, column, index */
	uint32_t nent;        /* entries */
	uint64_t cols;        /* a row's columns (bit c) when all are < 64, else 0 */
	uint64_t gen;
	uint32_t pos;         /* a row's place in its table's gapped offsets; NO_POS: new */
	bool reoff;           /* a row whose entries moved: its offsets are written again */
};

struct cm_isec_list {
	struct cm_isec_unit *u;
	size_t n, cap;
	uint32_t *keys;
	size_t nkeys, kcap;
};

struct cm_isec_free {
	uint32_t *off;
	size_t n, cap;
};

struct cm_isec {
	unsigned char *data;  /* head, offsets, slots: what the file holds */
	size_t len, cap;      /* len: bytes in use (the end of the last slot) */
	size_t ocap;          /* bytes kept for the offsets after the head */
	size_t count;         /* instances */
	unsigned char *dirty; /* a byte per chunk of cap */
	size_t waste;         /* bytes of free slots */
	struct cm_isec_list old, cur;
	struct cm_isec_free *free;   /* free slots by length / 4 */
	uint32_t *offs;
	size_t offs_cap;
	/* one publication */
	size_t at;            /* the next unit of old to match */
	bool copying;         /* the units changed: cur is being built */
	bool relayout;        /* all the offsets must be rebuilt */
	/* rows that kept their entries' count but moved to a new slot: only
	 * their tables' offsets are rebuilt (more tables than this: all) */
	uint32_t moved[CM_ISEC_MAX_MOVED];
	size_t nmoved;
	/* places in gapped tables that rows left (gone, or pushed along):
	 * with the new rows' places, all a table's update sweeps from
	 * (more than this: every place of the tables) */
	struct cm_isec_vacated {
		uint32_t arc, pos;
	} vac[CM_ISEC_MAX_VACATED];
	size_t nvac;
	/* each table's units [from, to) and offsets [start, end), as the last
	 * full index laid them out (nspan 0: more tables). A gapped table
	 * (cols: every column any row had, each below 64) gives each column
	 * rcap places, rows in order with holes between them; a hole, or a
	 * row without the column, repeats the offset before it (the first
	 * after it at the start), which a reader's binary search cannot tell
	 * from one entry. A row that comes, goes or moves then rewrites the
	 * offsets around its place, not its table's. */
	struct cm_isec_span {
		uint32_t arc;
		uint32_t from, to, start, end;
		uint64_t cols;    /* 0: not gapped, its offsets are its entries' */
		uint32_t rcap;    /* places of each column */
	} span[CM_ISEC_MAX_SPANS];
	size_t nspan;
	bool matched;         /* the unit cm_isec_put takes is old.u[at] */
	uint64_t gen;         /* the generation cm_isec_next was given ... */
	uint32_t key[CM_ISEC_MAX_KEY];   /* ... and the key */
	size_t key_len;
	bool failed;          /* out of memory or malformed: publish nothing */
	/* figures */
	uint64_t units_encoded, bytes_dirtied;
	uint64_t layouts, table_updates; /* every offset laid out; tables redone by change */
};

void cm_isec_init(struct cm_isec *s);
void cm_isec_free(struct cm_isec *s);
/* Starts a publication. */
void cm_isec_begin(struct cm_isec *s);
/* The next unit, in OID order; true when the caller must encode it and
 * pass its entries to cm_isec_put (gen 0: always). */
bool cm_isec_next(struct cm_isec *s, const uint32_t *key, size_t key_len, uint64_t gen);
/* The next n units, from key first to key last, are the rows the last
 * publication had there, unchanged: kept without a visit each. False (and
 * nothing done) when the units there are not so; the caller visits them. */
bool cm_isec_keep(struct cm_isec *s, const uint32_t *first, const uint32_t *last,
		  size_t key_len, size_t n);
/* The unit's entries (as cm_image_enc_add lays them out, ascending). */
void cm_isec_put(struct cm_isec *s, const void *entries, size_t len, bool row);
/* Ends the publication (units not visited are gone); the data's length,
 * or 0 when the section could not be made. */
size_t cm_isec_end(struct cm_isec *s);
/* Every chunk dirty (a new file), or none (all written). */
void cm_isec_mark_all(struct cm_isec *s, bool dirty);
/* A row generation for rows without one: a 64-bit fingerprint of the
 * row's bytes (n a multiple of 8), never 0. A changed row keeps its old
 * fingerprint with a chance of 2^-64: its new values would then wait for
 * its next change. */
uint64_t cm_isec_fingerprint(const void *p, size_t n);

#endif
