/* SPDX-License-Identifier: BSD-2-Clause */
/* dist.c - a small registry of histograms behind one lock. */
#include "dist.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct dist_copy dists[DIST_MAX];
static unsigned ndists;
static unsigned last_index;

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
	}
	pthread_mutex_unlock(&lock);
}

void dist_add(unsigned index, uint64_t value)
{
	struct dist_copy *d;

	pthread_mutex_lock(&lock);
	if ((d = find(index)) != NULL)
		log2hist_add(&d->h, value);
	pthread_mutex_unlock(&lock);
}

void dist_merge(unsigned index, const struct log2hist *batch)
{
	struct dist_copy *d;

	pthread_mutex_lock(&lock);
	if ((d = find(index)) != NULL)
		log2hist_merge(&d->h, batch);
	pthread_mutex_unlock(&lock);
}

void dist_set(unsigned index, const struct log2hist *h)
{
	struct dist_copy *d;

	pthread_mutex_lock(&lock);
	if ((d = find(index)) != NULL && d->h.nbuckets == h->nbuckets)
		d->h = *h;
	pthread_mutex_unlock(&lock);
}

size_t dist_copy_all(struct dist_copy *out, size_t max)
{
	size_t n;

	pthread_mutex_lock(&lock);
	n = ndists < max ? ndists : max;
	for (size_t i = 0; i < n; i++)
		out[i] = dists[i];
	pthread_mutex_unlock(&lock);
	return n;
}
