/* SPDX-License-Identifier: BSD-2-Clause */
/* distlist.c - the helper's "dists" reply (distlist.h), read line by line
 * by common/wire.h. */
#include "distlist.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helper.h"
#include "../core/grow.h"

struct entries {
	struct distlist_entry *v;
	size_t n, cap;
};

static bool take_dist(void *ctx, struct wire_reply *w)
{
	struct entries *e = ctx;
	struct distlist_entry *d;

	if (w->kind != WIRE_R_DIST || e->n >= DISTLIST_MAX)
		return false;
	if (!cm_grow(&e->v, &e->cap, e->n, sizeof(*e->v), 8))
		return false;
	d = &e->v[e->n++];
	d->id = w->u.dist.id;
	d->hits = w->u.dist.hits;
	d->sampled = w->u.dist.sampled;
	d->misses = w->u.dist.misses;
	log2hist_init(&d->hist, DISTLIST_SLOTS);
	d->hist.sum = w->u.dist.sum;
	for (unsigned i = 0; i < DISTLIST_SLOTS; i++) {
		d->hist.bucket[i] = w->u.dist.slot[i];
		d->hist.count += w->u.dist.slot[i];
	}
	return true;
}

int distlist_parse(const char *reply, struct distlist_entry **out, size_t *n, char *why,
		   size_t whylen)
{
	struct entries e = { 0 };

	*out = NULL;
	*n = 0;
	if (helper_parse_counted(reply, WIRE_DISTS, &e, take_dist, why, whylen) != 0) {
		free(e.v);
		return -1;
	}
	*out = e.v ? e.v : calloc(1, sizeof(**out));
	*n = e.n;
	if (*out == NULL) {
		snprintf(why, whylen, "out of memory");
		return -1;
	}
	return 0;
}
