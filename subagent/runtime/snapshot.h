/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * snapshot.h - hand finished samples from the sampler threads to the SNMP
 * thread.
 *
 * A snapshot is immutable once published. The SNMP thread takes a reference
 * for the length of one request; the sampler replaces the current snapshot
 * without waiting for readers. The lock covers only the pointer swap and the
 * reference count, so neither side ever waits for the other's work.
 */
#ifndef CLUSTERMON_SNAPSHOT_H
#define CLUSTERMON_SNAPSHOT_H

#include <pthread.h>

struct snapshot {
	unsigned refs;
	void (*destroy)(struct snapshot *);
};

struct snapshot_slot {
	pthread_mutex_t lock;
	struct snapshot *current;
};

#define SNAPSHOT_SLOT_INIT { PTHREAD_MUTEX_INITIALIZER, NULL }

/* Takes over the caller's reference to s (refs must be 1). */
void snapshot_publish(struct snapshot_slot *slot, struct snapshot *s);
/* NULL until the first sample has been published. */
struct snapshot *snapshot_acquire(struct snapshot_slot *slot);
void snapshot_release(struct snapshot_slot *slot, struct snapshot *s);
/* Drops the current snapshot (at exit). */
void snapshot_clear(struct snapshot_slot *slot);

#endif
