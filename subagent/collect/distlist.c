/* SPDX-License-Identifier: BSD-2-Clause */
/* distlist.c - the helper's "dists" reply (distlist.h), read line by line
 * by common/wire.h through helper_parse_list. */
#include "distlist.h"

#include "helper.h"

static void fill_dist(void *elem, const struct wire_reply *w)
{
	struct distlist_entry *d = elem;

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
}

static const struct helper_list dists = {
	WIRE_R_DIST, DISTLIST_MAX, sizeof(struct distlist_entry), fill_dist
};

int distlist_parse(const char *reply, struct distlist_entry **out, size_t *n, char *why,
		   size_t whylen)
{
	*out = helper_parse_list(reply, WIRE_DISTS, &dists, n, why, whylen);
	return *out != NULL ? 0 : -1;
}
