// SPDX-License-Identifier: BSD-2-Clause
/* oomwatch.c - the cm-oom thread: OOM victims to the SNMP thread (oomwatch.h). */
#include "oomwatch.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../collect/cgid.h"
#include "../collect/helperexits.h"
#include "../collect/oomvictim.h"
#include "common/clock.h"

#define ATTACH_EVERY_MS 1000
#define TIMEOUT_MS 200

static struct {
	pthread_mutex_t lock;
	pthread_t thread;
	bool running;
	int stop_pipe[2];
	char socket[256];
	void (*wake)(void);
	struct oom_event q[OOM_QUEUE];
	size_t head, n;
	uint64_t dropped;
	struct cgid_map *cgids;     /* the thread's own: unified ids */
	struct cgid_map *memcgs;    /* and memory cgroup ids */
} W = { .lock = PTHREAD_MUTEX_INITIALIZER, .stop_pipe = { -1, -1 } };

void oomwatch_set_wake(void (*wake)(void))
{
	pthread_mutex_lock(&W.lock);
	W.wake = wake;
	pthread_mutex_unlock(&W.lock);
}

static void enqueue(const struct oom_event *e)
{
	void (*wake)(void);

	pthread_mutex_lock(&W.lock);
	if (W.n == OOM_QUEUE)
		W.dropped++;
	else
		W.q[(W.head + W.n++) % OOM_QUEUE] = *e;
	wake = W.wake;
	pthread_mutex_unlock(&W.lock);
	if (wake != NULL)
		wake();
}

size_t oomwatch_take(struct oom_event *out, size_t max, uint64_t *dropped)
{
	size_t k = 0;

	pthread_mutex_lock(&W.lock);
	while (k < max && W.n > 0) {
		out[k++] = W.q[W.head];
		W.head = (W.head + 1) % OOM_QUEUE;
		W.n--;
	}
	*dropped = W.dropped;
	W.dropped = 0;
	pthread_mutex_unlock(&W.lock);
	return k;
}

/* A victim as /proc and its cgroup say now; what the record says where
 * the task was reaped already or the kernel hides its cgroup (its name,
 * the memory cgroup of the task that ran out of memory). */
static void on_victim(void *arg, const union exit_ring_rec *r)
{
	struct oom_event e;
	uint64_t now = cm_clock_ns();

	(void)arg;
	if (r->kind != CM_REC_OOM)
		return;
	memset(&e, 0, sizeof(e));
	e.v.pid = r->oom.tgid;
	if (oom_victim_read("", r->oom.tgid, &e.v) != 0)
		snprintf(e.v.comm, sizeof(e.v.comm), "%s", r->oom.comm);
	if (!oom_victim_placed(&e.v, r->oom.memcg) &&
	    oom_victim_memcg("", W.memcgs, r->oom.memcg, now, &e.v) != 0 && e.v.cgroup[0] == '\0') {
		cgid_map_path(W.cgids, "", r->oom.cgid, now, e.v.cgroup, sizeof(e.v.cgroup));
		if (e.v.cgroup[0] != '\0')
			oom_cgroup_memory("", e.v.cgroup, false, &e.v);
	}
	workload_name(e.v.cgroup, e.workload, sizeof(e.workload));
	enqueue(&e);
}

/* Sleeps ms, or until stopped: false when stopped. */
static bool rest(int ms)
{
	struct pollfd p = { .fd = W.stop_pipe[0], .events = POLLIN };

	return poll(&p, 1, ms) == 0;
}

static void *watch(void *arg)
{
	struct helper_exits *ring = NULL;
	char why[256], path[256];

	(void)arg;
	for (;;) {
		struct pollfd p[2] = { { .fd = W.stop_pipe[0], .events = POLLIN } };

		if (ring == NULL) {
			pthread_mutex_lock(&W.lock);
			snprintf(path, sizeof(path), "%s", W.socket);
			pthread_mutex_unlock(&W.lock);
			ring = helper_exits_attach(path, EXIT_RING_OOM, TIMEOUT_MS, why, sizeof(why));
			if (ring == NULL) {
				if (!rest(ATTACH_EVERY_MS))
					break;
				continue;
			}
		}
		p[1].fd = helper_exits_fd(ring);
		p[1].events = POLLIN;
		if (poll(p, 2, ATTACH_EVERY_MS) > 0 && p[0].revents != 0)
			break;
		helper_exits_drain(ring, OOM_QUEUE, on_victim, NULL);
		if (!helper_exits_alive(ring)) {
			helper_exits_detach(ring);
			ring = NULL;
		}
	}
	helper_exits_detach(ring);
	return NULL;
}

int oomwatch_start(const char *helper_socket)
{
	int rc = 0;

	pthread_mutex_lock(&W.lock);
	snprintf(W.socket, sizeof(W.socket), "%s", helper_socket);
	if (!W.running) {
		if (W.cgids == NULL)
			W.cgids = cgid_map_new(1000000000ull, CGID_UNIFIED);
		if (W.memcgs == NULL)
			W.memcgs = cgid_map_new(1000000000ull, CGID_MEMORY);
		if (W.cgids == NULL || W.memcgs == NULL || pipe2(W.stop_pipe, O_CLOEXEC) != 0 ||
		    pthread_create(&W.thread, NULL, watch, NULL) != 0)
			rc = -1;
		else
			W.running = true;
	}
	pthread_mutex_unlock(&W.lock);
	if (rc == 0 && W.running)
		pthread_setname_np(W.thread, "cm-oom");
	return rc;
}

void oomwatch_stop(void)
{
	if (!W.running)
		return;
	if (write(W.stop_pipe[1], "x", 1) < 0) { /* the thread is leaving anyway */ }
	pthread_join(W.thread, NULL);
	close(W.stop_pipe[0]);
	close(W.stop_pipe[1]);
	W.stop_pipe[0] = W.stop_pipe[1] = -1;
	W.running = false;
	cgid_map_free(W.cgids);
	cgid_map_free(W.memcgs);
	W.cgids = W.memcgs = NULL;
}
