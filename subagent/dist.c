/* dist.c - a small registry of histograms behind one lock. */
#include "dist.h"

#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct dist_copy dists[DIST_MAX];
static unsigned ndists;

unsigned dist_register(const char *name, const char *unit, unsigned nbuckets)
{
	struct dist_copy *d;
	unsigned index = 0;

	pthread_mutex_lock(&lock);
	if (ndists < DIST_MAX) {
		d = &dists[ndists];
		d->index = index = ++ndists;
		snprintf(d->name, sizeof(d->name), "%s", name);
		snprintf(d->unit, sizeof(d->unit), "%s", unit);
		log2hist_init(&d->h, nbuckets);
	}
	pthread_mutex_unlock(&lock);
	return index;
}

void dist_add(unsigned index, uint64_t value)
{
	pthread_mutex_lock(&lock);
	if (index >= 1 && index <= ndists)
		log2hist_add(&dists[index - 1].h, value);
	pthread_mutex_unlock(&lock);
}

void dist_merge(unsigned index, const struct log2hist *batch)
{
	pthread_mutex_lock(&lock);
	if (index >= 1 && index <= ndists)
		log2hist_merge(&dists[index - 1].h, batch);
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
