/* SPDX-License-Identifier: BSD-2-Clause */
/* snapshot.c - reference-counted hand-over of immutable samples. */
#include "snapshot.h"

#include <stddef.h>

static void drop_locked(struct snapshot *s, struct snapshot **dead)
{
	if (s != NULL && --s->refs == 0)
		*dead = s;
}

void snapshot_publish(struct snapshot_slot *slot, struct snapshot *s)
{
	struct snapshot *dead = NULL;

	pthread_mutex_lock(&slot->lock);
	drop_locked(slot->current, &dead);
	slot->current = s;
	pthread_mutex_unlock(&slot->lock);
	/* Free outside the lock: destroy may be slow for big tables. */
	if (dead != NULL)
		dead->destroy(dead);
}

struct snapshot *snapshot_acquire(struct snapshot_slot *slot)
{
	struct snapshot *s;

	pthread_mutex_lock(&slot->lock);
	s = slot->current;
	if (s != NULL)
		s->refs++;
	pthread_mutex_unlock(&slot->lock);
	return s;
}

void snapshot_release(struct snapshot_slot *slot, struct snapshot *s)
{
	struct snapshot *dead = NULL;

	if (s == NULL)
		return;
	pthread_mutex_lock(&slot->lock);
	drop_locked(s, &dead);
	pthread_mutex_unlock(&slot->lock);
	if (dead != NULL)
		dead->destroy(dead);
}

void snapshot_clear(struct snapshot_slot *slot)
{
	struct snapshot *dead = NULL;

	pthread_mutex_lock(&slot->lock);
	drop_locked(slot->current, &dead);
	slot->current = NULL;
	pthread_mutex_unlock(&slot->lock);
	if (dead != NULL)
		dead->destroy(dead);
}
