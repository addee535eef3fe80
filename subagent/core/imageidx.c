/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * imageidx.c - a section's offsets (imagesec.h): every instance's place in
 * OID order, column by column within a table, so that a reader finds one
 * by binary search.
 *
 * A table whose rows each name their columns once, all below 64, is laid
 * out gapped: each column gets the same rcap places, the rows in order
 * with a hole after every sixteenth and two at the end. A hole, or a row
 * without that column, repeats the offset of the place before it (of the
 * first entry after it, at the start): a binary search lands on the same
 * entry through a repeat, so readers need not know. A row that comes then
 * takes a hole near where it belongs, one that goes leaves one, and only
 * the places whose offset changed are written, not the table's.
 */
#include "imagesec_in.h"
#include "image.h"

#include <stdlib.h>

/* A gapped table's places for n rows, and row i's place in a fresh layout. */
static uint32_t gapped_cap(size_t n)
{
	return (uint32_t)(n + n / 16 + 2);
}

static uint32_t gapped_pos(size_t i)
{
	return (uint32_t)(i + i / 16);
}

/* Column c's segment among a gapped table's columns. */
static uint32_t col_rank(uint64_t cols, unsigned c)
{
	return (uint32_t)__builtin_popcountll(cols & (((uint64_t)1 << c) - 1));
}

/* Units [i, end) of s->old: one table's rows (end past the last). */
static size_t table_end(const struct cm_isec *s, size_t i)
{
	uint32_t arc = key_of(&s->old, &s->old.u[i])[0];
	size_t j = i + 1;

	while (j < s->old.n && s->old.u[j].row && key_of(&s->old, &s->old.u[j])[0] == arc)
		j++;
	return j;
}

size_t isec_plan(struct cm_isec *s)
{
	size_t n = 0, k = 0;
	bool fits = true;

	for (size_t i = 0; i < s->old.n;) {
		const struct cm_isec_unit *u = &s->old.u[i];
		struct cm_isec_span t = { .arc = key_of(&s->old, u)[0] };
		size_t j = i + 1, entries = u->nent;
		bool wide = false;

		if (!u->row) {
			n += u->nent;
			i = j;
			continue;
		}
		j = table_end(s, i);
		t.cols = u->cols;
		for (size_t m = i + 1; m < j; m++) {
			entries += s->old.u[m].nent;
			wide = wide || s->old.u[m].cols == 0;
			t.cols |= s->old.u[m].cols;
		}
		if (wide || u->cols == 0 || k == CM_ISEC_MAX_SPANS) {
			t.cols = 0;
			t.rcap = (uint32_t)(j - i);
		} else {
			t.rcap = gapped_cap(j - i);
			entries = (size_t)__builtin_popcountll(t.cols) * t.rcap;
		}
		t.from = (uint32_t)i;
		t.to = (uint32_t)j;
		t.start = (uint32_t)n;
		t.end = (uint32_t)(n + entries);
		if (k < CM_ISEC_MAX_SPANS)
			s->span[k++] = t;
		else
			fits = false;
		n += entries;
		i = j;
	}
	s->nspan = fits ? k : 0;
	return n;
}

/* The offsets of a run of rows of one table, column by column, from
 * s->offs[start] on. The columns are counted from the units' masks where
 * they have one: the first pass then reads no slot (slots lie scattered). */
static void index_rows(struct cm_isec *s, size_t from, size_t to, size_t start)
{
	size_t first[MAX_COLUMNS] = { 0 };

	for (size_t i = from; i < to; i++) {
		const struct cm_isec_unit *u = &s->old.u[i];

		if (u->cols != 0) {
			for (uint64_t m = u->cols; m != 0; m &= m - 1)
				first[__builtin_ctzll(m)]++;
			continue;
		}
		EACH_ENTRY(s, u, p)
			first[rd32(p + 12)]++;
	}
	for (size_t c = 0, sum = start; c < MAX_COLUMNS; c++) {
		size_t k = first[c];

		first[c] = sum;
		sum += k;
	}
	for (size_t i = from; i < to; i++)
		EACH_ENTRY(s, &s->old.u[i], p)
			s->offs[first[rd32(p + 12)]++] = (uint32_t)(p - s->data);
}

/* A gapped table's offsets afresh into s->offs, its rows at the places
 * they were given, the repeats filled in column by column. */
static void index_gapped(struct cm_isec *s, const struct cm_isec_span *t)
{
	uint32_t *o = s->offs + t->start;
	size_t places = (size_t)t->end - t->start;

	for (size_t k = 0; k < places; k++)
		o[k] = NO_POS;
	for (size_t i = t->from; i < t->to; i++) {
		struct cm_isec_unit *u = &s->old.u[i];

		u->reoff = false;
		EACH_ENTRY(s, u, p)
			o[(size_t)col_rank(t->cols, rd32(p + 12)) * t->rcap + u->pos] =
				(uint32_t)(p - s->data);
	}
	for (size_t k = 0; k < places; k += t->rcap) {
		uint32_t last = NO_POS;

		for (size_t p = 0; p < t->rcap && last == NO_POS; p++)
			last = o[k + p];  /* the first entry, for the places before it */
		for (size_t p = 0; p < t->rcap; p++)
			o[k + p] = o[k + p] == NO_POS ? last : (last = o[k + p]);
	}
}

void isec_index_all(struct cm_isec *s)
{
	size_t n = 0, k = 0;

	for (size_t i = 0; i < s->old.n;) {
		const struct cm_isec_unit *u = &s->old.u[i];
		size_t j;

		if (!u->row) {
			EACH_ENTRY(s, u, p)
				s->offs[n++] = (uint32_t)(p - s->data);
			i++;
			continue;
		}
		j = table_end(s, i);
		if (k < s->nspan && s->span[k].cols != 0) {
			for (size_t m = i; m < j; m++)
				s->old.u[m].pos = gapped_pos(m - i);
			index_gapped(s, &s->span[k]);
		} else
			index_rows(s, i, j, n);
		for (size_t m = i; m < j; m++) {
			s->old.u[m].reoff = false;
			if (k >= s->nspan || s->span[k].cols == 0)
				n += s->old.u[m].nent;
		}
		if (k < s->nspan && s->span[k].cols != 0)
			n = s->span[k].end;
		k++;
		i = j;
	}
}

void isec_put_index(struct cm_isec *s, size_t from, size_t to)
{
	uint32_t head[2] = { (uint32_t)s->count, HEAD };

	if (memcmp(s->data, head, HEAD) != 0)
		isec_put_bytes(s, 0, head, HEAD);
	for (size_t at = 4 * from; at < 4 * to; at += CM_IMAGE_CHUNK) {
		size_t n = 4 * to - at < CM_IMAGE_CHUNK ? 4 * to - at : CM_IMAGE_CHUNK;
		const unsigned char *want = (const unsigned char *)s->offs + at;

		if (memcmp(s->data + HEAD + at, want, n) != 0)
			isec_put_bytes(s, HEAD + at, want, n);
	}
}

/* ------------------------------------------------------------ by change */

static bool was_moved(const struct cm_isec *s, uint32_t arc)
{
	for (size_t i = 0; i < s->nmoved; i++)
		if (s->moved[i] == arc)
			return true;
	return false;
}

/* A table not gapped: its entries again, when as many as before. */
static bool reindex(struct cm_isec *s, const struct cm_isec_span *t)
{
	size_t n = 0;

	for (size_t i = t->from; i < t->to; i++)
		n += s->old.u[i].nent;
	if (n != (size_t)t->end - t->start)
		return false;
	index_rows(s, t->from, t->to, t->start);
	for (size_t i = t->from; i < t->to; i++)
		s->old.u[i].reoff = false;
	isec_put_index(s, t->start, t->end);
	return true;
}

/* Unit u's entry of column c (which it has), as an offset. */
static uint32_t entry_of(const struct cm_isec *s, const struct cm_isec_unit *u, unsigned c)
{
	EACH_ENTRY(s, u, p)
		if (rd32(p + 12) == c)
			return (uint32_t)(p - s->data);
	return NO_POS;
}

/* Each row's place: where it was, or just after the row before it when
 * that one is there or beyond (a new row; rows pushed along to the next
 * hole). False when a row falls off the end or has a column the layout
 * lacks. */
static bool place_rows(struct cm_isec *s, const struct cm_isec_span *t)
{
	int64_t prev = -1;

	for (size_t i = t->from; i < t->to; i++) {
		struct cm_isec_unit *u = &s->old.u[i];
		int64_t p = u->pos == NO_POS || (int64_t)u->pos <= prev ? prev + 1 : (int64_t)u->pos;

		if (u->cols == 0 || (u->cols & ~t->cols) != 0 || p >= t->rcap)
			return false;
		if ((uint32_t)p != u->pos)
			u->reoff = true;
		u->pos = (uint32_t)p;
		prev = p;
	}
	return true;
}

/* Column c's places as the rows now lie: a row that kept its place and
 * entries keeps its offset (read where it is), a moved or new one has its
 * entry's, every other place repeats the one before. Only the places that
 * differ are written. False when no row has the column. */
static bool sweep_column(struct cm_isec *s, const struct cm_isec_span *t, unsigned c)
{
	size_t seg = HEAD + 4 * ((size_t)t->start + (size_t)col_rank(t->cols, c) * t->rcap);
	uint32_t last = NO_POS;
	size_t i;

	for (i = t->from; i < t->to && last == NO_POS; i++) {
		const struct cm_isec_unit *u = &s->old.u[i];

		if (u->cols >> c & 1)
			last = u->reoff ? entry_of(s, u, c) : rd32(s->data + seg + 4 * (size_t)u->pos);
	}
	if (last == NO_POS)
		return false;
	i = t->from;
	for (uint32_t p = 0; p < t->rcap; p++) {
		uint32_t want = last;

		if (i < t->to && s->old.u[i].pos == p) {
			const struct cm_isec_unit *u = &s->old.u[i++];

			if (u->cols >> c & 1)
				want = last = u->reoff ? entry_of(s, u, c) : rd32(s->data + seg + 4 * (size_t)p);
		}
		if (rd32(s->data + seg + 4 * (size_t)p) != want)
			isec_put_bytes(s, seg + 4 * (size_t)p, &want, 4);
	}
	return true;
}

/* Rows pushed off the end with holes left elsewhere: the table's rows
 * spread evenly over its places again, its offsets all rewritten, the
 * section's count unchanged. False when the rows outnumber the places or
 * a row has a column the layout lacks. */
static bool spread(struct cm_isec *s, const struct cm_isec_span *t)
{
	size_t n = (size_t)t->to - t->from;

	if (n > t->rcap)
		return false;
	for (size_t i = t->from; i < t->to; i++) {
		struct cm_isec_unit *u = &s->old.u[i];

		if (u->cols == 0 || (u->cols & ~t->cols) != 0)
			return false;
		u->pos = (uint32_t)((i - t->from) * t->rcap / n);
	}
	index_gapped(s, t);
	for (uint64_t m = t->cols; m != 0; m &= m - 1) { /* no column left empty */
		uint32_t v = s->offs[t->start + (size_t)col_rank(t->cols, (unsigned)__builtin_ctzll(m)) * t->rcap];

		if (v == NO_POS)
			return false;
	}
	isec_put_index(s, t->start, t->end);
	return true;
}

static bool regap(struct cm_isec *s, const struct cm_isec_span *t)
{
	if (t->to == t->from)
		return false;
	if (!place_rows(s, t))
		return spread(s, t);
	for (uint64_t m = t->cols; m != 0; m &= m - 1)
		if (!sweep_column(s, t, (unsigned)__builtin_ctzll(m)))
			return false;
	for (size_t i = t->from; i < t->to; i++)
		s->old.u[i].reoff = false;
	return true;
}

bool isec_update_tables(struct cm_isec *s)
{
	size_t k = 0;

	/* The same tables in the same order (scalars did not come or go):
	 * each one's units found again. */
	for (size_t i = 0; i < s->old.n;) {
		size_t j;

		if (!s->old.u[i].row) {
			i++;
			continue;
		}
		j = table_end(s, i);
		if (k == s->nspan || s->span[k].arc != key_of(&s->old, &s->old.u[i])[0])
			return false;
		s->span[k].from = (uint32_t)i;
		s->span[k].to = (uint32_t)j;
		k++;
		i = j;
	}
	if (k != s->nspan)
		return false;
	for (k = 0; k < s->nspan; k++) {
		const struct cm_isec_span *t = &s->span[k];

		if (!was_moved(s, t->arc))
			continue;
		if (!(t->cols != 0 ? regap(s, t) : reindex(s, t)))
			return false;
		s->table_updates++;
	}
	return true;
}
