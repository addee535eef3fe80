/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * helpercg.c - the helper's per-cgroup waits and CPU time (helpercg.h).
 */
#include "helpercg.h"
#include "helper.h"
#include "helpermaps.h"
#include "common/clock.h"
#include <errno.h>
#include <linux/bpf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "common/clustermon_kprobe.h"


/* Entries a BPF_MAP_LOOKUP_BATCH call returns at most. */
#define CG_CHUNK 256

enum { FD_CG, FD_CPU, NFDS };

/* An id and where all[] holds it: 16 bytes, so a search for one of 500
 * cgroups stays in 8 kB instead of hopping across 280 kB of histograms. */
struct cg_at {
	uint64_t id;
	size_t at;
};
_Static_assert(NFDS == WIRE_CGMAPS_FDS, "the cgmaps reply carries these fds, in this order");

struct helper_cgmap {
	int sock, fd[NFDS];
	size_t entries, n;             /* the map's size; entries last read */
	size_t ncpu;
	struct cm_sched_cpu *cpu;      /* [ncpu]: a lookup's room */
	struct helper_cg *all;         /* [entries], in the map's order */
	struct cg_at *by_id;           /* [entries]: all[] by ascending id */
	uint64_t *was;                 /* [entries]: the ids last read, in order */
	size_t nwas;
	bool iter;                     /* fd[FD_CG] is an iterator's link, not the hash */
	bool partial;                  /* the last read had only the iterator's first records */
	uint64_t token;                /* the batch position (a hash's: a key's size) */
	union {
		struct {
			uint64_t keys[CG_CHUNK];
			struct cm_cgroup_sched vals[CG_CHUNK];
		};
		unsigned char recs[CG_CHUNK * sizeof(struct cm_cgroup_rec)];
	};
};

struct helper_cgmap *helper_cgmap_attach(const char *path, int timeout_ms, char *why,
					 size_t whylen)
{
	int64_t deadline = (int64_t)cm_clock_ms() + timeout_ms;
	struct helper_cgmap *m = calloc(1, sizeof(*m));
	char reply[512], text[64];
	uint64_t entries, ncpu;
	size_t nfds = 0;
	int n;

	if (m == NULL) {
		snprintf(why, whylen, "out of memory");
		return NULL;
	}
	m->fd[FD_CG] = m->fd[FD_CPU] = -1;
	if ((m->sock = helper_connect(path, why, whylen)) < 0)
		goto fail;
	if ((n = helper_ask_text(HELPER_ASK_CGMAPS, text, sizeof(text))) < 0 ||
	    send(m->sock, text, (size_t)n, MSG_NOSIGNAL) != n ||
	    helpermap_recv(m->sock, 2, deadline, reply, sizeof(reply), m->fd, NFDS, &nfds) != 0) {
		snprintf(why, whylen, "clustermon-kprobe did not answer the cgmaps request");
		goto fail;
	}
	if (helper_parse_cgmaps(reply, &entries, &ncpu) != 0) {
		snprintf(why, whylen, "expected 'ok cgmaps ENTRIES NCPU', got '%.60s'",
			 strchr(reply, '\n') ? strchr(reply, '\n') + 1 : reply);
		goto fail;
	}
	if (ncpu != helpermap_possible_cpus()) {
		snprintf(why, whylen, "clustermon-kprobe says %llu CPUs, the kernel %llu",
			 (unsigned long long)ncpu, (unsigned long long)helpermap_possible_cpus());
		goto fail;
	}
	m->iter = nfds == NFDS && helpermap_check_iter(m->fd[FD_CG]) == 0;
	if (nfds != NFDS ||
	    (!m->iter && helpermap_check(m->fd[FD_CG], BPF_MAP_TYPE_LRU_HASH, sizeof(uint64_t),
					 sizeof(struct cm_cgroup_sched), entries, false) != 0) ||
	    helpermap_check(m->fd[FD_CPU], BPF_MAP_TYPE_PERCPU_ARRAY, sizeof(uint32_t),
			    sizeof(struct cm_sched_cpu), 1, false) != 0) {
		snprintf(why, whylen, "clustermon-kprobe's cgroup map is not the one clustermon_kprobe.h describes");
		goto fail;
	}
	m->entries = entries;
	m->ncpu = ncpu;
	m->all = calloc(entries, sizeof(*m->all));
	m->by_id = calloc(entries, sizeof(*m->by_id));
	m->was = calloc(entries, sizeof(*m->was));
	m->cpu = calloc(ncpu, sizeof(*m->cpu));
	if (m->all != NULL && m->by_id != NULL && m->was != NULL && m->cpu != NULL)
		return m;
	snprintf(why, whylen, "out of memory");
fail:
	helper_cgmap_detach(m);
	return NULL;
}

void helper_cgmap_detach(struct helper_cgmap *m)
{
	if (m == NULL)
		return;
	for (int i = 0; i < NFDS; i++)
		if (m->fd[i] >= 0)
			close(m->fd[i]);
	if (m->sock >= 0)
		close(m->sock);
	free(m->all);
	free(m->by_id);
	free(m->was);
	free(m->cpu);
	free(m);
}

bool helper_cgmap_alive(const struct helper_cgmap *m)
{
	return helper_conn_alive(m->sock);
}

static int by_id(const void *a, const void *b)
{
	uint64_t x = ((const struct cg_at *)a)->id, y = ((const struct cg_at *)b)->id;

	return x < y ? -1 : x > y;
}

/* One entry, as log2hist_init(CM_HIST_SLOTS) and adding the slots would
 * leave it, without clearing 65 buckets first for each of 500 cgroups. */
static void take(struct helper_cg *to, uint64_t id, const struct cm_cgroup_sched *v)
{
	_Static_assert(CM_HIST_SLOTS < LOG2HIST_MAX_BUCKETS, "the slots fit, and one more");
	uint64_t count = 0;

	to->id = id;
	to->cpu_ns = v->cpu_ns;
	to->waits.nbuckets = CM_HIST_SLOTS;
	memcpy(to->waits.bucket, v->wait.slot, sizeof(v->wait.slot));
	memset(&to->waits.bucket[CM_HIST_SLOTS], 0,
	       (LOG2HIST_MAX_BUCKETS - CM_HIST_SLOTS) * sizeof(to->waits.bucket[0]));
	for (unsigned i = 0; i < CM_HIST_SLOTS; i++)
		count += v->wait.slot[i];
	to->waits.count = count;
	to->waits.sum = v->wait.sum;
}

/* by_id again, only when the map's ids or their order moved since the last
 * read: a hash map hands its entries out in the same order while no entry
 * came or went, which at 10 ms is nearly every read. */
static void index_ids(struct helper_cgmap *m)
{
	bool same = m->n == m->nwas;

	for (size_t i = 0; i < m->n; i++) {
		same &= m->was[i] == m->all[i].id;
		m->was[i] = m->all[i].id;
	}
	m->nwas = m->n;
	if (same)
		return;
	for (size_t i = 0; i < m->n; i++)
		m->by_id[i] = (struct cg_at){ .id = m->all[i].id, .at = i };
	qsort(m->by_id, m->n, sizeof(m->by_id[0]), by_id);
}

/* The next chunk of the map (from the start when first) into keys and
 * vals: the entries it gave, -1 on error; *done at the end of the map. */
static ssize_t batch(struct helper_cgmap *m, bool first, bool *done)
{
	uint32_t count = CG_CHUNK;

	if (helpermap_lookup_batch(m->fd[FD_CG], &m->token, first, m->keys, m->vals, &count) == 0) {
		*done = false;
		return count;
	}
	*done = true;
	return errno == ENOENT ? (ssize_t)count : -1;
}

/* What runs on each CPU now has run since its last switch, which the map
 * has not been charged with yet. */
static void add_running(struct helper_cgmap *m)
{
	uint32_t zero = 0;
	uint64_t now;

	if (helpermap_lookup(m->fd[FD_CPU], &zero, m->cpu) != 0)
		return;
	now = cm_clock_ns();
	for (size_t c = 0; c < m->ncpu; c++) {
		struct helper_cg *e;

		if (!m->cpu[c].running || m->cpu[c].cgid == 0 || now <= m->cpu[c].since)
			continue;
		e = (struct helper_cg *)helper_cgmap_find(m, m->cpu[c].cgid);
		if (e != NULL)
			e->cpu_ns += now - m->cpu[c].since;
	}
}

/* The whole hash, a chunk a system call: 0, or -1. */
static int read_hash(struct helper_cgmap *m)
{
	bool done = false;

	for (bool first = true; !done; first = false) {
		ssize_t got = batch(m, first, &done);

		if (got < 0 || (size_t)got > CG_CHUNK || m->n + (size_t)got > m->entries)
			return -1;
		for (ssize_t i = 0; i < got; i++)
			take(&m->all[m->n++], m->keys[i], &m->vals[i]);
	}
	return 0;
}

/* The records a new iterator writes, whole ones only (a read may end
 * inside one), at most entries of them: 0, or -1 when the iterator could
 * not be read or ended inside a record.
 *
 * A cgroup iterator cannot go on in a second read: its walk holds the
 * cgroup mutex, so the kernel ends a session whose records outgrow the
 * seq file's buffer (8 pages, about 60 of these 536-byte records) and
 * fails the next read with EOPNOTSUPP. What came before is whole and
 * current: it is kept, and m->partial says the rest is missing (the
 * cgroup source then reads those cgroups' files, as for a cgroup the
 * sensor does not know). */
static int read_iter(struct helper_cgmap *m)
{
	int fd = helpermap_iter_open(m->fd[FD_CG]);
	size_t have = 0, off;
	ssize_t got = 0;
	int err;

	if (fd < 0)
		return -1;
	while (m->n < m->entries && (got = read(fd, m->recs + have, sizeof(m->recs) - have)) > 0) {
		struct cm_cgroup_rec r;

		have += (size_t)got;
		for (off = 0; have - off >= sizeof(r) && m->n < m->entries; off += sizeof(r)) {
			memcpy(&r, m->recs + off, sizeof(r));
			take(&m->all[m->n++], r.id, &r.s);
		}
		memmove(m->recs, m->recs + off, have - off);
		have -= off;
	}
	err = got < 0 ? errno : 0;
	close(fd);
	m->partial = err == EOPNOTSUPP && have == 0 && m->n > 0;
	return (got < 0 && !m->partial) || (have != 0 && m->n < m->entries) ? -1 : 0;
}

ssize_t helper_cgmap_read(struct helper_cgmap *m, const struct helper_cg **out)
{
	m->n = 0;
	m->partial = false;
	if ((m->iter ? read_iter(m) : read_hash(m)) != 0)
		return -1;
	index_ids(m);
	add_running(m);
	*out = m->all;
	return (ssize_t)m->n;
}

bool helper_cgmap_partial(const struct helper_cgmap *m)
{
	return m->partial;
}

const struct helper_cg *helper_cgmap_find(const struct helper_cgmap *m, uint64_t id)
{
	struct cg_at key = { .id = id };
	const struct cg_at *a = m->n ? bsearch(&key, m->by_id, m->n, sizeof(key), by_id) : NULL;

	return a != NULL ? &m->all[a->at] : NULL;
}
