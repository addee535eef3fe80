/* SPDX-License-Identifier: BSD-2-Clause */
/* encode.c - a group's read-only instances into its image section (encode.h). */
#include "encode.h"
#include "group.h"

#include <string.h>

static void add_value(struct cm_image_enc *enc, const uint32_t *sub, size_t n,
		      const struct mib_value *v)
{
	uint32_t ids[CM_IMAGE_MAX_VAL / 4];
	const oid *o = v->ptr;

	switch (v->type) {
	case ASN_OCTET_STR:
		cm_image_enc_add(enc, sub, n, v->type, v->ptr, v->len);
		break;
	case ASN_OBJECT_ID:
		if (v->len > CM_IMAGE_MAX_VAL / 4)
			break;
		for (size_t i = 0; i < v->len; i++)
			ids[i] = (uint32_t)o[i];
		cm_image_enc_add(enc, sub, n, v->type, ids, v->len * 4);
		break;
	default:
		cm_image_enc_add(enc, sub, n, v->type, &v->num, sizeof(v->num));
		break;
	}
}

/* The unit whose key cm_isec_next was given: its entries from enc. */
static void put_unit(struct cm_isec *b, const struct cm_image_enc *enc, bool row)
{
	if (enc->failed)
		b->failed = true;
	else
		cm_isec_put(b, enc->buf + CM_IMAGE_SECTION_HEAD, enc->len - CM_IMAGE_SECTION_HEAD, row);
}

/* Row r's key in the section: key[0], the table's arc, is the caller's. */
static void row_key(const struct mib_table *t, void *view, size_t r, uint32_t *key)
{
	oid idx[MAX_OID_LEN];

	t->row_index(view, r, idx);
	for (unsigned k = 0; k < t->index_len; k++)
		key[1 + k] = (uint32_t)idx[k];
}

/* Rows r to r + n - 1, unchanged since the view the section holds (the
 * table says so), kept whole when the section has them there. */
static bool keep_run(struct cm_isec *b, const struct mib_object *o, void *view, size_t r,
		     size_t n)
{
	const struct mib_table *t = o->table;
	uint32_t first[1 + MAX_OID_LEN] = { o->arc }, last[1 + MAX_OID_LEN] = { o->arc };

	row_key(t, view, r, first);
	row_key(t, view, r + n - 1, last);
	return cm_isec_keep(b, first, last, 1 + t->index_len, n);
}

/* A table's rows, each encoded only when it is new or changed (its
 * row_gen moved, or it has none); runs of rows the table says are
 * unchanged since the view the section holds are not visited at all. */
static void encode_table(struct cm_isec *b, struct cm_image_enc *enc,
			 const struct mib_object *o, void *view, uint64_t *since)
{
	const struct mib_table *t = o->table;
	uint32_t sub[3 + MAX_OID_LEN] = { o->arc, 1, 0 }, key[1 + MAX_OID_LEN] = { o->arc };
	struct mib_value v;
	size_t rows = t->rows(view);
	uint64_t was = since != NULL && t->same_since != NULL ? *since : 0;

	if (3 + t->index_len > CM_IMAGE_MAX_SUB) {
		b->failed = true;
		return;
	}
	if (since != NULL)
		*since = t->view_gen != NULL ? t->view_gen(view) : 0;
	for (size_t r = 0; r < rows; r++) {
		size_t same = was != 0 ? t->same_since(view, r, was) : 0;

		if (same > 1 && same <= rows - r && keep_run(b, o, view, r, same)) {
			r += same - 1;
			continue;
		}
		row_key(t, view, r, key);
		if (!cm_isec_next(b, key, 1 + t->index_len, t->row_gen ? t->row_gen(view, r) : 0))
			continue;
		memcpy(sub + 3, key + 1, t->index_len * sizeof(*key));
		cm_image_enc_begin(enc);
		for (unsigned c = t->min_col; c <= t->max_col; c++) {
			sub[2] = c;
			if (c != t->writable_col && t->get(view, r, c, &v) == MIB_PRESENT)
				add_value(enc, sub, 3 + t->index_len, &v);
		}
		put_unit(b, enc, true);
	}
}

size_t group_encode(const struct mib_group *g, struct cm_isec *b, struct cm_image_enc *enc,
		    uint64_t *since, size_t nsince)
{
	void *view = mib_group_view(g);
	struct mib_value v;

	cm_isec_begin(b);
	for (size_t i = 0; i < g->nobjects; i++) {
		const struct mib_object *o = &g->objects[i];
		uint32_t sub[2] = { o->arc, 0 };

		if (o->table == NULL) {
			if (o->setter != NULL || !cm_isec_next(b, sub, 1, 0))
				continue;
			cm_image_enc_begin(enc);
			if (o->get(view, &v) == MIB_PRESENT)
				add_value(enc, sub, 2, &v);
			put_unit(b, enc, false);
		} else if (!o->table->read_create && (view != NULL || !mib_group_has_view(g))) {
			encode_table(b, enc, o, view, i < nsince ? &since[i] : NULL);
		}
	}
	mib_group_unview(g, view);
	return cm_isec_end(b);
}
