/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * oomwatch.h - OOM victims as they happen (issue 43): a thread of the proc
 * source, cm-oom, sleeps in poll() on the helper's oom_ring (woken by each
 * record the oom:mark_victim program writes), reads what the victim and its
 * memory cgroup are at once (collect/oomvictim.h), queues the event and
 * wakes the SNMP thread, which sends clusterMonOomKill (mib/exits.c). So
 * the trap leaves within milliseconds of the kill, whatever the proc
 * source's interval, and the SNMP thread never waits on the helper.
 */
#ifndef CLUSTERMON_SOURCES_OOMWATCH_H
#define CLUSTERMON_SOURCES_OOMWATCH_H

#include <stddef.h>
#include <stdint.h>

#include "../core/workload.h"
#include "../core/readings.h"

/* Events kept for the SNMP thread; more while it is behind are counted. */
#define OOM_QUEUE 32

struct oom_event {
	struct oom_victim v;
	char workload[WORKLOAD_MAX];
};

/* The SNMP thread's wake-up, called after an event is queued. */
void oomwatch_set_wake(void (*wake)(void));
/* Starts the thread (once; later calls change the socket path): 0, or -1. */
int oomwatch_start(const char *helper_socket);
void oomwatch_stop(void);
/* Moves up to max queued events into out, oldest first: how many. *dropped
 * gets the events lost to a full queue since the last call. */
size_t oomwatch_take(struct oom_event *out, size_t max, uint64_t *dropped);

#endif
