/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tcp.c - the "tcp" source: every TCP connection (IPv4 and IPv6, all states
 * but LISTEN) with tcp_info from inet_diag, a stable index per connection,
 * the owning process where /proc shows it, the Tcp counters of
 * /proc/net/snmp and /proc/net/netstat, and the tcp.rtt distribution.
 *
 * Runs on its own thread: a dump of 20,000 sockets takes tens of ms.
 * Connections are told apart by the kernel's socket cookie, which is unique
 * per socket for the life of the system, so an index is never given twice.
 */
#include <errno.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../collect/collect.h"
#include "../collect/inetdiag.h"
#include "../collect/netstat.h"
#include "../collect/sockowner.h"
#include "common/clock.h"
#include "../core/counter.h"
#include "../runtime/dist.h"
#include "proc.h"
#include "sources.h"
#include "tcp.h"

static struct snapshot_slot tcp_slot = SNAPSHOT_SLOT_INIT;

/* Every state but LISTEN (10); not the kernel's request sockets (12). */
#define CONN_STATES (((1u << 12) - 2) & ~(1u << 10))
#define FULL_OWNERS_MS 60000
#define TCP_RTT_BUCKETS 32

struct key {
	uint64_t cookie;
	uint32_t n;       /* a position in conns, or an index */
};

/* tcp_info counters the kernel keeps in 32 bits: served as Counter64, so
 * each connection's readings are widened across wraps (a busy 10 Gb/s
 * connection wraps tcpi_segs_out in under two hours). */
static const enum tcp_field narrow_counters[] = {
	TCPF_SEGS_OUT, TCPF_SEGS_IN, TCPF_TOTAL_RETRANS,
	TCPF_DATA_SEGS_OUT, TCPF_DATA_SEGS_IN, TCPF_DSACK_DUPS,
};
#define NARROW_COUNT (sizeof(narrow_counters) / sizeof(narrow_counters[0]))
typedef uint64_t wide_counters[NARROW_COUNT];

struct tcp_source {
	char root[256];
	int fd;
	struct tcp_conn *conns;
	size_t nconns, cap;
	struct key *keys, *map;   /* this sample's cookies; last sample's cookie->index */
	wide_counters *wide, *wide_next; /* map's widened counters; the next map's */
	size_t nmap, keycap;
	uint32_t next_index;
	struct sock_owners owners;
	uint64_t owners_at_ms;     /* the last read of every process's fds */
	uint64_t owners_gen;       /* the proc snapshot's generation at the last look */
	int32_t *ran;              /* pids that ran since then */
	size_t ran_cap;
	struct procfile snmp, netstat;
	char buf[64 * 1024];
	unsigned rtt_dist;
	uint32_t states;           /* tcpFilter, as tcp_configure compiled it */
	uint8_t bc[INETDIAG_BC_MAX];
	size_t bclen;
};

static void tcp_fini(void *ctx)
{
	struct tcp_source *ts = ctx;

	if (ts == NULL)
		return;
	if (ts->fd >= 0)
		close(ts->fd);
	procfile_close(&ts->snmp);
	procfile_close(&ts->netstat);
	free(ts->conns);
	free(ts->keys);
	free(ts->map);
	free(ts->wide);
	free(ts->wide_next);
	sock_owners_free(&ts->owners);
	free(ts->ran);
	free(ts);
}

static void *tcp_init(const char *root)
{
	struct tcp_source *ts = calloc(1, sizeof(*ts));

	if (ts == NULL)
		return NULL;
	snprintf(ts->root, sizeof(ts->root), "%s", root);
	ts->snmp.fd = ts->netstat.fd = -1;
	ts->next_index = 1;
	ts->states = CONN_STATES;
	ts->fd = inetdiag_open();
	if (ts->fd < 0) {
		tcp_fini(ts);
		return NULL;
	}
	/* Without them (a fixture tree) the scalars are absent, not zero. */
	procfile_open(&ts->snmp, root, "proc/net/snmp");
	procfile_open(&ts->netstat, root, "proc/net/netstat");
	ts->rtt_dist = dist_register("tcp.rtt", "us", TCP_RTT_BUCKETS);
	return ts;
}

/* ------------------------------------------------------------ the dump */

static int keep_conn(const struct tcp_conn *c, void *arg)
{
	struct tcp_source *ts = arg;

	if (ts->nconns == ts->cap) {
		size_t cap = ts->cap ? ts->cap * 2 : 1024;
		struct tcp_conn *grown = realloc(ts->conns, cap * sizeof(*grown));

		if (grown == NULL)
			return -1;
		ts->conns = grown;
		ts->cap = cap;
	}
	ts->conns[ts->nconns++] = *c;
	return 0;
}

/* The kernel filters by state and port before it copies anything out:
 * tcpFilter is compiled for it at each (re)load, on this thread. */
static void tcp_configure(void *ctx, const struct sources_conf *c)
{
	struct tcp_source *ts = ctx;
	const struct tcp_filter *f = &c->tcp_filter;
	int len;

	ts->states = f->states ? f->states : CONN_STATES;
	len = inetdiag_filter(f->terms, f->nterms, ts->bc, sizeof(ts->bc));
	ts->bclen = len > 0 ? (size_t)len : 0;
}

static int dump_all(struct tcp_source *ts)
{
	ts->nconns = 0;
	if (ts->fd < 0)
		ts->fd = inetdiag_open();
	if (ts->fd >= 0 &&
	    inetdiag_dump(ts->fd, AF_INET, ts->states, ts->bc, ts->bclen, keep_conn, ts) == 0 &&
	    inetdiag_dump(ts->fd, AF_INET6, ts->states, ts->bc, ts->bclen, keep_conn, ts) == 0)
		return 0;
	/* A dump cut short leaves replies queued: start over on a new socket. */
	if (ts->fd >= 0)
		close(ts->fd);
	ts->fd = -1;
	return -1;
}

/* ------------------------------------------------------------ stable indexes */

static int by_cookie(const void *a, const void *b)
{
	const struct key *x = a, *y = b;

	return (x->cookie > y->cookie) - (x->cookie < y->cookie);
}

static int by_n(const void *a, const void *b)
{
	const struct key *x = a, *y = b;

	return (x->n > y->n) - (x->n < y->n);
}

static int grow_keys(struct tcp_source *ts, size_t n)
{
	struct key *k, *m;
	wide_counters *w, *wn;

	if (n <= ts->keycap)
		return 0;
	k = realloc(ts->keys, n * sizeof(*k));
	if (k != NULL)
		ts->keys = k;
	m = realloc(ts->map, n * sizeof(*m));
	if (m != NULL)
		ts->map = m;
	w = realloc(ts->wide, n * sizeof(*w));
	if (w != NULL)
		ts->wide = w;
	wn = realloc(ts->wide_next, n * sizeof(*wn));
	if (wn != NULL)
		ts->wide_next = wn;
	if (k == NULL || m == NULL || w == NULL || wn == NULL)
		return -1;
	ts->keycap = n;
	return 0;
}

/* Widens conn's narrow counters from what the same socket showed last
 * sample (last, or NULL for a new socket) and keeps them in out. */
static void widen_counters(struct tcp_conn *c, const uint64_t *last, uint64_t *out)
{
	for (size_t k = 0; k < NARROW_COUNT; k++) {
		uint64_t *v = &c->v[narrow_counters[k]];

		*v = last != NULL ? widen_u32(last[k], (uint32_t)*v) : *v;
		out[k] = *v;
	}
}

/*
 * Gives every connection its index: the one its cookie had last sample, or
 * the next unused one, and widens its narrow counters against last sample's. Leaves ts->keys as (cookie, position) in index order
 * ... via a second sort, and ts->map as this sample's cookie -> index.
 */
static int assign_indexes(struct tcp_source *ts, uint32_t *index_of)
{
	size_t j = 0;

	if (grow_keys(ts, ts->nconns > ts->nmap ? ts->nconns : ts->nmap) != 0)
		return -1;
	for (size_t i = 0; i < ts->nconns; i++)
		ts->keys[i] = (struct key){ ts->conns[i].cookie, (uint32_t)i };
	if (ts->nconns > 1)
		qsort(ts->keys, ts->nconns, sizeof(*ts->keys), by_cookie);
	/* Walk both cookie-sorted lists together; reuse ts->map in place is not
	 * possible, so the new map is written into index_of first. */
	for (size_t i = 0; i < ts->nconns; i++) {
		bool seen;

		while (j < ts->nmap && ts->map[j].cookie < ts->keys[i].cookie)
			j++;
		seen = j < ts->nmap && ts->map[j].cookie == ts->keys[i].cookie;
		index_of[ts->keys[i].n] = seen ? ts->map[j].n : ts->next_index++;
		widen_counters(&ts->conns[ts->keys[i].n], seen ? ts->wide[j] : NULL,
			       ts->wide_next[i]);
	}
	for (size_t i = 0; i < ts->nconns; i++)
		ts->map[i] = (struct key){ ts->keys[i].cookie, index_of[ts->keys[i].n] };
	ts->nmap = ts->nconns;
	{
		wide_counters *w = ts->wide;

		ts->wide = ts->wide_next;
		ts->wide_next = w;
	}
	/* Positions in index order, for the rows. */
	for (size_t i = 0; i < ts->nconns; i++)
		ts->keys[i] = (struct key){ i, index_of[i] };
	if (ts->nconns > 1)
		qsort(ts->keys, ts->nconns, sizeof(*ts->keys), by_n);
	return 0;
}

/* ------------------------------------------------------------ owners */

static int by_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* The table kept to this dump's sockets; true when one has no owner yet. */
static bool keep_listed(struct tcp_source *ts)
{
	uint32_t *inodes = malloc((ts->nconns ? ts->nconns : 1) * sizeof(*inodes));
	bool unknown = false;
	size_t n = 0;

	if (inodes == NULL)
		return false;
	for (size_t i = 0; i < ts->nconns; i++)
		if (ts->conns[i].inode != 0)
			inodes[n++] = ts->conns[i].inode;
	qsort(inodes, n, sizeof(*inodes), by_u32);
	sock_owners_keep(&ts->owners, inodes, n);
	for (size_t i = 0; i < n && !unknown; i++)
		unknown = sock_owners_pid(&ts->owners, inodes[i]) == 0;
	free(inodes);
	return unknown;
}

/*
 * inode -> pid (collect/sockowner.c). Reading every process's fd links
 * costs far more than the dump, so that happens once; afterwards a socket
 * with no owner yet is looked for only among the processes that ran since
 * the last look (the proc snapshot's rows that changed): whoever created or
 * accepted it ran. Without a proc source, every process is read again at
 * most every FULL_OWNERS_MS, and only while a socket has no owner.
 */
static void refresh_owners(struct tcp_source *ts)
{
	struct proc_snapshot *ps;
	uint64_t now = cm_clock_ms();
	size_t n;

	if (!keep_listed(ts) && ts->owners_at_ms != 0)
		return;
	ps = proc_snapshot_take();
	if (ts->owners_at_ms == 0 || (ps == NULL && now - ts->owners_at_ms >= FULL_OWNERS_MS)) {
		ts->owners_at_ms = now;
		sock_owners_read(&ts->owners, ts->root);
	} else if (ps != NULL && ps->gen > ts->owners_gen) {
		n = proc_snapshot_changed(ps, ts->owners_gen, &ts->ran, &ts->ran_cap);
		sock_owners_add(&ts->owners, ts->root, ts->ran, n);
	}
	if (ps != NULL)
		ts->owners_gen = ps->gen;
	proc_snapshot_drop(ps);
}

/* ------------------------------------------------------------ the sample */

static void read_scalars(struct tcp_source *ts, struct tcp_snapshot *snap)
{
	static const char *const tcp_keys[] = {
		"ActiveOpens", "PassiveOpens", "RetransSegs", "InErrs", "OutRsts",
	};
	static const char *const ext_keys[] = { "ListenOverflows", "ListenDrops", "TCPTimeouts" };
	uint32_t found;

	if (ts->snmp.fd >= 0 && procfile_read(&ts->snmp, ts->buf, sizeof(ts->buf)) > 0 &&
	    netstat_parse(ts->buf, "Tcp", tcp_keys, 5, snap->scalars, &found) == 0)
		snap->scalars_found |= found;
	if (ts->netstat.fd >= 0 && procfile_read(&ts->netstat, ts->buf, sizeof(ts->buf)) > 0 &&
	    netstat_parse(ts->buf, "TcpExt", ext_keys, 3, snap->scalars + TCPS_LISTEN_OVERFLOWS,
			  &found) == 0)
		snap->scalars_found |= found << TCPS_LISTEN_OVERFLOWS;
}

static void tcp_snapshot_destroy(struct snapshot *s)
{
	free(s);
}

static int tcp_sample(void *ctx)
{
	struct tcp_source *ts = ctx;
	struct tcp_snapshot *snap;
	struct log2hist rtts;
	uint32_t *index_of;

	if (dump_all(ts) != 0)
		return -1;
	index_of = malloc((ts->nconns ? ts->nconns : 1) * sizeof(*index_of));
	snap = malloc(sizeof(*snap) + ts->nconns * sizeof(snap->rows[0]));
	if (index_of == NULL || snap == NULL || assign_indexes(ts, index_of) != 0) {
		free(index_of);
		free(snap);
		return -1;
	}
	refresh_owners(ts);
	memset(snap, 0, sizeof(*snap));
	snap->hdr.refs = 1;
	snap->hdr.destroy = tcp_snapshot_destroy;
	snap->nrows = ts->nconns;
	log2hist_init(&rtts, TCP_RTT_BUCKETS);
	for (size_t i = 0; i < ts->nconns; i++) {
		const struct tcp_conn *c = &ts->conns[ts->keys[i].cookie]; /* a position here */
		struct tcp_row *r = &snap->rows[i];

		r->index = ts->keys[i].n;
		r->pid = sock_owners_pid(&ts->owners, c->inode);
		r->c = *c;
		if (c->state == TCP_ESTABLISHED && tcp_conn_has(c, TCPF_RTT))
			log2hist_add(&rtts, c->v[TCPF_RTT]);
	}
	dist_merge(ts->rtt_dist, &rtts);
	free(index_of);
	read_scalars(ts, snap);
	snapshot_publish(&tcp_slot, &snap->hdr);
	return 0;
}

/* Nobody reads the connections: the node's counters stay on the timer
 * (one read of two small files) and the rows are the last full sample's,
 * served only to a walk that ran on into them past what it asked for (a
 * read of them wakes the source first: mib/engine/overread.c). */
static int tcp_sample_idle(void *ctx)
{
	struct tcp_source *ts = ctx;
	struct tcp_snapshot *last = (struct tcp_snapshot *)snapshot_acquire(&tcp_slot);
	size_t n = last != NULL ? last->nrows : 0;
	struct tcp_snapshot *snap = malloc(sizeof(*snap) + n * sizeof(snap->rows[0]));

	if (snap == NULL) {
		if (last != NULL)
			snapshot_release(&tcp_slot, &last->hdr);
		return -1;
	}
	memset(snap, 0, sizeof(*snap));
	if (last != NULL) {
		memcpy(snap->rows, last->rows, n * sizeof(snap->rows[0]));
		snapshot_release(&tcp_slot, &last->hdr);
	}
	snap->hdr.refs = 1;
	snap->hdr.destroy = tcp_snapshot_destroy;
	snap->nrows = n;
	read_scalars(ts, snap);
	snapshot_publish(&tcp_slot, &snap->hdr);
	return 0;
}

const struct source_ops tcp_source_ops = {
	.index = SOURCE_TCP,
	.name = "tcp",
	.slot = &tcp_slot,
	.default_interval_ms = 1000,
	.own_thread = true,
	.init = tcp_init,
	.sample = tcp_sample,
	.sample_idle = tcp_sample_idle,
	.fini = tcp_fini,
	.configure = tcp_configure,
};
