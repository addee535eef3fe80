/* SPDX-License-Identifier: BSD-2-Clause */
/* ring.c - bounded time buckets with min, max, mean and last. */
#include "ring.h"

#include <stdlib.h>

int ring_init(struct ring *r, uint32_t interval_ms, uint32_t cap, uint64_t now_ms)
{
	*r = (struct ring){ 0 };
	if (interval_ms < RING_INTERVAL_MIN_MS || interval_ms > RING_INTERVAL_MAX_MS || cap == 0)
		return -1;
	r->b = calloc(cap, sizeof(*r->b));
	if (r->b == NULL)
		return -1;
	r->interval_ms = interval_ms;
	r->cap = cap;
	r->origin_ms = now_ms;
	return 0;
}

void ring_free(struct ring *r)
{
	free(r->b);
	*r = (struct ring){ 0 };
}

static struct ring_bucket *newest(struct ring *r)
{
	return r->used ? &r->b[(r->head + r->used - 1) % r->cap] : NULL;
}

static struct ring_bucket *open_bucket(struct ring *r, uint64_t index)
{
	struct ring_bucket *b;

	if (r->used == r->cap) {
		r->head = (r->head + 1) % r->cap; /* drop the oldest */
		r->used--;
	}
	b = &r->b[(r->head + r->used) % r->cap];
	r->used++;
	*b = (struct ring_bucket){
		.index = index,
		.start_ms = r->origin_ms + (index - 1) * r->interval_ms,
	};
	return b;
}

void ring_add(struct ring *r, uint64_t now_ms, uint64_t value)
{
	uint64_t index;
	struct ring_bucket *b;

	if (r->b == NULL)
		return;
	/* A clock before the origin counts into the first interval. */
	index = (now_ms > r->origin_ms ? (now_ms - r->origin_ms) / r->interval_ms : 0) + 1;
	b = newest(r);
	if (b == NULL || b->index < index)
		b = open_bucket(r, index);
	else if (b->index > index)
		return; /* late sample for a closed interval: dropped */
	if (b->samples == 0 || value < b->min)
		b->min = value;
	if (b->samples == 0 || value > b->max)
		b->max = value;
	b->samples++;
	b->sum += value;
	b->last = value;
}

const struct ring_bucket *ring_at(const struct ring *r, uint32_t i)
{
	return i < r->used ? &r->b[(r->head + i) % r->cap] : NULL;
}

uint64_t ring_mean(const struct ring_bucket *b)
{
	return b->samples ? (uint64_t)(b->sum / b->samples) : 0;
}
