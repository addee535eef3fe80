/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * imageidx.c - a section's offsets (imagesec.h): every instance's place in
 * OID order, column by column within a table, so that a reader finds one
 * by binary search.
 *
 * A table whose rows each name their columns once, all below 64, is laid
 * out gapped: each column gets the same rcap places, the rows in order
 * with a hole after every sixteenth and as many at the end. A hole, or a row
 * without that column, repeats the offset of the place before it (of the
 * first entry after it, at the start): a binary search lands on the same
 * entry through a repeat, so readers need not know. A row that comes then
 * takes a hole near where it belongs, one that goes leaves one, and only
 * the places whose offset changed are written, not the table's.
 */
#include "imagesec_in.h"
#include "image.h"
#include "core/lowerbound.h"

#include <stddef.h>
#include <stdlib.h>

/* A gapped table's places for n rows, and row i's place in a fresh
 * layout: a hole after every sixteenth row, and as many again at the end,
 * where new processes (higher pids) mostly go. */
static uint32_t gapped_cap(size_t n)
{
	return (uint32_t)(n + n / 8 + 16);
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

	size_t seg[64];

	for (unsigned c = 0; c < 64; c++)
		seg[c] = (size_t)col_rank(t->cols, c) * t->rcap;
	for (size_t k = 0; k < places; k++)
		o[k] = NO_POS;
	for (size_t i = t->from; i < t->to; i++) {
		struct cm_isec_unit *u = &s->old.u[i];

		u->reoff = false;
		EACH_ENTRY(s, u, p)
			o[seg[rd32(p + 12) & 63] + u->pos] = (uint32_t)(p - s->data);
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
static bool place_rows(struct cm_isec *s, const struct cm_isec_span *t, uint32_t *d,
		       size_t *nd, size_t cap)
{
	int64_t prev = -1;

	for (size_t i = t->from; i < t->to; i++) {
		struct cm_isec_unit *u = &s->old.u[i];
		int64_t p = u->pos == NO_POS || (int64_t)u->pos <= prev ? prev + 1 : (int64_t)u->pos;

		if (u->cols == 0 || (u->cols & ~t->cols) != 0 || p >= t->rcap)
			return false;
		if ((uint32_t)p != u->pos) {
			isec_vacate(s, t->arc, u);
			u->reoff = true;
		}
		u->pos = (uint32_t)p;
		prev = p;
		if (u->reoff && *nd < cap) /* its new place: a changed one */
			d[(*nd)++] = u->pos;
		else if (u->reoff)
			*nd = cap + 1;
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
		/* as a fresh layout where that fits, else evenly */
		u->pos = gapped_pos(n - 1) < t->rcap ? gapped_pos(i - t->from)
						     : (uint32_t)((i - t->from) * t->rcap / n);
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

/* The first row at or after place p, by binary search (rows ascend). */
static size_t row_at(const struct cm_isec *s, const struct cm_isec_span *t, uint32_t p)
{
	return cm_lower_bound_u32(s->old.u, sizeof(*s->old.u), offsetof(struct cm_isec_unit, pos),
				  t->from, t->to, p);
}

/* Column c's places from each changed place d[] on (ascending), each run
 * up to the first row beyond it that kept its place and has the column:
 * the places after that repeat what they did. The run before the
 * column's first row repeats that row's offset, so a change there starts
 * from place 0. False when no row has the column. */
static bool sweep_from(struct cm_isec *s, const struct cm_isec_span *t, unsigned c,
		       const uint32_t *d, size_t nd)
{
	size_t seg = HEAD + 4 * ((size_t)t->start + (size_t)col_rank(t->cols, c) * t->rcap);
	size_t f = t->from;
	uint32_t done = 0, first;

	while (f < t->to && !(s->old.u[f].cols >> c & 1))
		f++;
	if (f == t->to)
		return false;
	first = s->old.u[f].pos;
	for (size_t k = 0; k < nd; k++) {
		uint32_t p = d[k] <= first ? 0 : d[k], q, last;
		size_t i;

		if (d[k] < done)
			continue;
		if (p == 0)
			last = s->old.u[f].reoff ? entry_of(s, &s->old.u[f], c)
						 : rd32(s->data + seg + 4 * (size_t)first);
		else
			last = rd32(s->data + seg + 4 * (size_t)(p - 1));
		for (q = p, i = row_at(s, t, p); q < t->rcap; q++) {
			const struct cm_isec_unit *u = i < t->to && s->old.u[i].pos == q ?
							       &s->old.u[i++] : NULL;
			uint32_t want = last;

			if (u != NULL && (u->cols >> c & 1)) {
				if (!u->reoff && q > d[k])
					break;
				want = last = u->reoff ? entry_of(s, u, c)
						       : rd32(s->data + seg + 4 * (size_t)q);
			}
			if (rd32(s->data + seg + 4 * (size_t)q) != want)
				isec_put_bytes(s, seg + 4 * (size_t)q, &want, 4);
		}
		done = q;
	}
	return true;
}

static int by_place(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* The places that changed into d (the new rows' and moved rows' places,
 * from place_rows), with the places rows left, sorted; false (sweep every
 * place) when they are many or were not all counted. */
static bool changed_places(const struct cm_isec *s, const struct cm_isec_span *t, uint32_t *d,
			   size_t *n, size_t cap)
{
	if (*n > cap || s->nvac > CM_ISEC_MAX_VACATED)
		return false;
	for (size_t i = 0; i < s->nvac; i++)
		if (s->vac[i].arc == t->arc) {
			if (*n == cap)
				return false;
			d[(*n)++] = s->vac[i].pos;
		}
	qsort(d, *n, sizeof(*d), by_place);
	return true;
}

static bool regap(struct cm_isec *s, const struct cm_isec_span *t)
{
	size_t cap = t->rcap / 8 + 1, nd = 0;
	uint32_t *d = malloc(cap * sizeof(*d));
	bool ok = true, local;

	if (t->to == t->from || d == NULL) {
		free(d);
		return false;
	}
	if (!place_rows(s, t, d, &nd, cap)) {
		free(d);
		return spread(s, t);
	}
	local = changed_places(s, t, d, &nd, cap);
	for (uint64_t m = t->cols; m != 0 && ok; m &= m - 1) {
		unsigned c = (unsigned)__builtin_ctzll(m);

		ok = local ? sweep_from(s, t, c, d, nd) : sweep_column(s, t, c);
	}
	free(d);
	if (!ok)
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
