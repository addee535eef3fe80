/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * helpercg.c - the helper's per-cgroup run-queue waits (helpercg.h).
 */
#include "helpercg.h"
#include "helper.h"
#include "helpermaps.h"
#include "core/clock.h"
#include <errno.h>
#include <linux/bpf.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "clustermon_kprobe.h"

#define CGMAPS_REQUEST "hello\ncgmaps\n"

struct helper_cgmap {
	int sock, fd;
};

struct helper_cgmap *helper_cgmap_attach(const char *path, int timeout_ms, char *why,
					 size_t whylen)
{
	int64_t deadline = (int64_t)cm_clock_ms() + timeout_ms;
	struct helper_cgmap *m = malloc(sizeof(*m));
	char reply[512];
	uint64_t entries;
	size_t nfds = 0;

	if (m == NULL) {
		snprintf(why, whylen, "out of memory");
		return NULL;
	}
	m->fd = -1;
	if ((m->sock = helper_connect(path, why, whylen)) < 0)
		goto fail;
	if (send(m->sock, CGMAPS_REQUEST, strlen(CGMAPS_REQUEST), MSG_NOSIGNAL) !=
		    (ssize_t)strlen(CGMAPS_REQUEST) ||
	    helpermap_recv(m->sock, 2, deadline, reply, sizeof(reply), &m->fd, 1, &nfds) != 0) {
		snprintf(why, whylen, "clustermon-kprobe did not answer the cgmaps request");
		goto fail;
	}
	if (helper_parse_cgmaps(reply, &entries) != 0) {
		snprintf(why, whylen, "expected 'ok cgmaps ENTRIES', got '%.60s'",
			 strchr(reply, '\n') ? strchr(reply, '\n') + 1 : reply);
		goto fail;
	}
	if (nfds != 1 || helpermap_check(m->fd, BPF_MAP_TYPE_LRU_HASH, sizeof(uint64_t),
					 sizeof(struct cm_hist), entries, false) != 0) {
		snprintf(why, whylen, "clustermon-kprobe's cgroup map is not the one clustermon_kprobe.h describes");
		goto fail;
	}
	return m;
fail:
	helper_cgmap_detach(m);
	return NULL;
}

void helper_cgmap_detach(struct helper_cgmap *m)
{
	if (m == NULL)
		return;
	if (m->fd >= 0)
		close(m->fd);
	if (m->sock >= 0)
		close(m->sock);
	free(m);
}

bool helper_cgmap_alive(const struct helper_cgmap *m)
{
	struct pollfd pfd = { .fd = m->sock, .events = POLLIN | POLLRDHUP };

	return poll(&pfd, 1, 0) == 0;
}

int helper_cgmap_waits(const struct helper_cgmap *m, uint64_t id, struct log2hist *h)
{
	struct cm_hist v;

	if (helpermap_lookup(m->fd, &id, &v) != 0)
		return errno == ENOENT ? 1 : -1;
	log2hist_init(h, CM_HIST_SLOTS);
	for (unsigned i = 0; i < CM_HIST_SLOTS; i++) {
		h->bucket[i] = v.slot[i];
		h->count += v.slot[i];
	}
	h->sum = v.sum;
	return 0;
}
