/* SPDX-License-Identifier: BSD-2-Clause */
/* dist.c - a small registry of histograms behind one lock, read through
 * snapshots. */
#include "dist.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct dist_copy dists[DIST_MAX];
static unsigned ndists;
static unsigned last_index;
/* Every change moves gen; the slot's snapshot was made at published. */
static uint64_t gen = 1, published;
static struct snapshot_slot slot = SNAPSHOT_SLOT_INIT;

unsigned dist_register(const char *name, const char *unit, unsigned nbuckets)
{
	struct dist_copy *d;
	unsigned index = 0;

	pthread_mutex_lock(&lock);
	if (ndists < DIST_MAX) {
		d = &dists[ndists++];
		/* Never reused, so an index keeps one meaning while we run. */
		d->index = index = ++last_index;
		snprintf(d->name, sizeof(d->name), "%s", name);
		snprintf(d->unit, sizeof(d->unit), "%s", unit);
		log2hist_init(&d->h, nbuckets);
		gen++;
	}
	pthread_mutex_unlock(&lock);
	return index;
}

/* Entries stay in ascending index order (GETNEXT walks them so). */
static struct dist_copy *find(unsigned index)
{
	for (unsigned i = 0; i < ndists; i++)
		if (dists[i].index == index)
			return &dists[i];
	return NULL;
}

void dist_unregister(unsigned index)
{
	struct dist_copy *d;

	pthread_mutex_lock(&lock);
	d = find(index);
	if (d != NULL) {
		memmove(d, d + 1, (size_t)(&dists[ndists] - (d + 1)) * sizeof(*d));
		ndists--;
		gen++;
	}
	pthread_mutex_unlock(&lock);
}

void dist_add(unsigned index, uint64_t value)
{
	struct dist_copy *d;

	pthread_mutex_lock(&lock);
	if ((d = find(index)) != NULL) {
		log2hist_add(&d->h, value);
		gen++;
	}
	pthread_mutex_unlock(&lock);
}

void dist_merge(unsigned index, const struct log2hist *batch)
{
	struct dist_copy *d;

	pthread_mutex_lock(&lock);
	if ((d = find(index)) != NULL) {
		log2hist_merge(&d->h, batch);
		gen++;
	}
	pthread_mutex_unlock(&lock);
}

void dist_set(unsigned index, const struct log2hist *h)
{
	struct dist_copy *d;

	pthread_mutex_lock(&lock);
	if ((d = find(index)) != NULL && d->h.nbuckets == h->nbuckets) {
		d->h = *h;
		gen++;
	}
	pthread_mutex_unlock(&lock);
}

static void destroy(struct snapshot *s)
{
	free(s);
}

/* Under the lock: the registry as it stands, into the slot. */
static void publish_locked(void)
{
	struct dist_snapshot *s = malloc(sizeof(*s) + ndists * sizeof(s->d[0]));

	if (s == NULL)
		return;
	s->hdr.refs = 1;
	s->hdr.destroy = destroy;
	s->n = ndists;
	s->nbuckets = 0;
	for (size_t i = 0; i < ndists; i++) {
		s->d[i] = dists[i];
		s->first[i] = s->nbuckets;
		s->nbuckets += dists[i].h.nbuckets;
	}
	snapshot_publish(&slot, &s->hdr);
	published = gen;
}

const struct dist_snapshot *dist_view_take(void)
{
	pthread_mutex_lock(&lock);
	if (published != gen)
		publish_locked();
	pthread_mutex_unlock(&lock);
	return (const struct dist_snapshot *)snapshot_acquire(&slot);
}

void dist_view_drop(const struct dist_snapshot *s)
{
	if (s != NULL)
		snapshot_release(&slot, (struct snapshot *)&s->hdr);
}

void dist_view_clear(void)
{
	pthread_mutex_lock(&lock);
	snapshot_clear(&slot);
	published = 0;
	pthread_mutex_unlock(&lock);
}
