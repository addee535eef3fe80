/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tcpiter_pass.c - bench_tcpiter's two readers of the connection table and
 * the check that they agree. (a) is the product's own dump
 * (inetdiag_dump, both families, the tcp source's states); (b) reads the
 * iterator of tcpiter.bpf.c. Both keep every row as the struct tcp_conn the
 * tcp source keeps, in arrays sized before the first pass, so neither pays
 * for allocation while it is measured.
 */
#include "bench_tcpiter.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/types.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "collect/inetdiag.h"
#include "common/clustermon_kprobe.h"

/* The tcp source's states (CONN_STATES in sources/tcp.c): all but LISTEN. */
#define CONN_STATES (((1u << 12) - 2) & ~(1u << 10))

static int rows_init(struct rows *r, size_t cap)
{
	r->v = calloc(cap, sizeof(*r->v));
	r->cap = cap;
	r->n = 0;
	return r->v != NULL ? 0 : -1;
}

static int keep(const struct tcp_conn *c, void *arg)
{
	struct rows *r = arg;

	if (r->n == r->cap)
		return -1;   /* more sockets than the bench opened: not ours */
	r->v[r->n++] = *c;
	return 0;
}

int load_iter(struct bench *b, const char *path)
{
	struct bpf_object *obj = bpf_object__open_file(path, NULL);
	struct bpf_program *p;
	struct bpf_link *l;
	size_t cap = (size_t)b->sockets + 64;

	b->stats = -1;
	b->diag = inetdiag_open();
	if (b->diag < 0 || rows_init(&b->a, cap) || rows_init(&b->prev_a, cap) ||
	    rows_init(&b->b, cap))
		return -1;
	if (obj == NULL || bpf_object__load(obj) != 0 ||
	    (p = bpf_object__find_program_by_name(obj, "tcp_changed")) == NULL) {
		fprintf(stderr, "bench_tcpiter: loading %s: %s\n", path, strerror(errno));
		return -1;
	}
	l = bpf_program__attach_iter(p, NULL);
	if (l == NULL) {
		fprintf(stderr, "bench_tcpiter: attaching iter/tcp: %s\n", strerror(errno));
		return -1;
	}
	b->link = bpf_link__fd(l);
	b->prog = bpf_program__fd(p);
	return 0;
}

/* bpf_stats on while the fd is held (unless the sysctl has it on anyway). */
int stats_set(struct bench *b, bool on)
{
	if (on && b->stats < 0) {
		b->stats = bpf_enable_stats(BPF_STATS_RUN_TIME);
		if (b->stats < 0) {
			fprintf(stderr, "bench_tcpiter: bpf_stats: %s\n", strerror(errno));
			return -1;
		}
	} else if (!on && b->stats >= 0) {
		close(b->stats);
		b->stats = -1;
	}
	return 0;
}

static void cost_now(const struct bench *b, struct cost *c)
{
	struct bpf_prog_info info = { 0 };
	__u32 len = sizeof(info);
	struct timespec ts;
	struct rusage ru;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	getrusage(RUSAGE_THREAD, &ru);
	if (bpf_obj_get_info_by_fd(b->prog, &info, &len) != 0)
		memset(&info, 0, sizeof(info));
	c->cpu_ns = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	c->user_us = (int64_t)ru.ru_utime.tv_sec * 1000000 + ru.ru_utime.tv_usec;
	c->sys_us = (int64_t)ru.ru_stime.tv_sec * 1000000 + ru.ru_stime.tv_usec;
	c->bpf_ns = info.run_time_ns;
	c->bpf_runs = info.run_cnt;
}

static void cost_since(const struct bench *b, const struct cost *t0, struct cost *c)
{
	cost_now(b, c);
	c->cpu_ns -= t0->cpu_ns;
	c->user_us -= t0->user_us;
	c->sys_us -= t0->sys_us;
	c->bpf_ns -= t0->bpf_ns;
	c->bpf_runs -= t0->bpf_runs;
}

int pass_a(struct bench *b, struct cost *c)
{
	struct rows t = b->prev_a;
	struct cost t0;
	int rc;

	b->prev_a = b->a;
	b->a = t;
	b->a.n = 0;
	cost_now(b, &t0);
	rc = inetdiag_dump(b->diag, AF_INET, CONN_STATES, NULL, 0, keep, &b->a);
	if (rc == 0)
		rc = inetdiag_dump(b->diag, AF_INET6, CONN_STATES, NULL, 0, keep, &b->a);
	cost_since(b, &t0, c);
	if (rc != 0)
		perror("bench_tcpiter: inet_diag dump");
	return rc;
}

#define SET(f, val) (c->v[f] = (val), c->present |= 1u << (f))

/* A record as the row the dump would have made of the same socket. */
static void rec_conn(const struct cm_tcp_rec *r, struct tcp_conn *c)
{
	memset(c, 0, sizeof(*c));
	c->family = r->family;
	c->state = r->state;
	c->sport = r->sport;
	c->dport = r->dport;
	memcpy(c->saddr, r->saddr, 16);
	memcpy(c->daddr, r->daddr, 16);
	c->cookie = r->cookie;
	c->uid = r->uid;
	SET(TCPF_RTT, r->rtt_us);
	SET(TCPF_RTTVAR, r->rttvar_us);
	SET(TCPF_MIN_RTT, r->min_rtt_us);
	SET(TCPF_RTO, r->rto_us);
	SET(TCPF_CWND, r->cwnd);
	SET(TCPF_SSTHRESH, r->ssthresh);
	SET(TCPF_SND_MSS, r->snd_mss);
	SET(TCPF_BYTES_ACKED, r->bytes_acked);
	SET(TCPF_BYTES_RECEIVED, r->bytes_received);
	SET(TCPF_SEGS_OUT, r->segs_out);
	SET(TCPF_SEGS_IN, r->segs_in);
	SET(TCPF_TOTAL_RETRANS, r->total_retrans);
	SET(TCPF_LOST, r->lost);
	SET(TCPF_DELIVERY_RATE, r->delivery_rate);
	SET(TCPF_DATA_SEGS_OUT, r->data_segs_out);
	SET(TCPF_DATA_SEGS_IN, r->data_segs_in);
	SET(TCPF_BYTES_RETRANS, r->bytes_retrans);
	SET(TCPF_DSACK_DUPS, r->dsack_dups);
	SET(TCPF_RCV_RTT, r->rcv_rtt_us);
	SET(TCPF_NOTSENT_BYTES, r->notsent_bytes);
}

/* Whole records from what read() gave; a record cut by the end of one
 * read is completed by the next. */
static int read_iter(int fd, struct rows *rows)
{
	static char buf[64 * 1024];
	const size_t rs = sizeof(struct cm_tcp_rec);
	size_t have = 0, at;
	ssize_t n;

	while ((n = read(fd, buf + have, sizeof(buf) - have)) > 0) {
		have += (size_t)n;
		for (at = 0; at + rs <= have; at += rs) {
			struct cm_tcp_rec r;

			if (rows->n == rows->cap)
				return -1;
			memcpy(&r, buf + at, rs);
			rec_conn(&r, &rows->v[rows->n++]);
		}
		memmove(buf, buf + at, have - at);
		have -= at;
	}
	return n < 0 || have != 0 ? -1 : 0;
}

int pass_b(struct bench *b, struct cost *c)
{
	struct cost t0;
	int fd, rc;

	b->b.n = 0;
	cost_now(b, &t0);
	fd = bpf_iter_create(b->link);
	rc = fd < 0 ? -1 : read_iter(fd, &b->b);
	if (fd >= 0)
		close(fd);
	cost_since(b, &t0, c);
	if (rc != 0)
		perror("bench_tcpiter: reading the iterator");
	return rc;
}

static int by_cookie(const void *x, const void *y)
{
	const struct tcp_conn *a = x, *b = y;

	return a->cookie < b->cookie ? -1 : a->cookie > b->cookie;
}

static const struct tcp_conn *find(const struct rows *r, uint64_t cookie)
{
	struct tcp_conn key = { .cookie = cookie };

	return bsearch(&key, r->v, r->n, sizeof(*r->v), by_cookie);
}

static const char *const field_names[TCPF_COUNT] = {
	[TCPF_RTT] = "rtt", [TCPF_RTTVAR] = "rttvar", [TCPF_MIN_RTT] = "min_rtt",
	[TCPF_RTO] = "rto", [TCPF_CWND] = "cwnd", [TCPF_SSTHRESH] = "ssthresh",
	[TCPF_SND_MSS] = "snd_mss", [TCPF_BYTES_ACKED] = "bytes_acked",
	[TCPF_BYTES_RECEIVED] = "bytes_received", [TCPF_SEGS_OUT] = "segs_out",
	[TCPF_SEGS_IN] = "segs_in", [TCPF_TOTAL_RETRANS] = "total_retrans",
	[TCPF_LOST] = "lost", [TCPF_DELIVERY_RATE] = "delivery_rate",
	[TCPF_DATA_SEGS_OUT] = "data_segs_out", [TCPF_DATA_SEGS_IN] = "data_segs_in",
	[TCPF_BYTES_RETRANS] = "bytes_retrans", [TCPF_DSACK_DUPS] = "dsack_dups",
	[TCPF_RCV_RTT] = "rcv_rtt", [TCPF_NOTSENT_BYTES] = "notsent_bytes",
};

/* Every field (b) gives, and the ends, as (a) read them. */
static bool same(const struct tcp_conn *a, const struct tcp_conn *b, long *shown)
{
	bool ok = a->sport == b->sport && a->dport == b->dport && a->state == b->state &&
		  memcmp(a->saddr, b->saddr, 16) == 0 && memcmp(a->daddr, b->daddr, 16) == 0;

	for (int f = 0; f < TCPF_COUNT; f++) {
		if (!tcp_conn_has(b, f) || a->v[f] == b->v[f])
			continue;
		if ((*shown)++ < 10)
			fprintf(stderr, "bench_tcpiter: port %u: %s %llu by inet_diag, %llu by iter\n",
				a->sport, field_names[f], (unsigned long long)a->v[f],
				(unsigned long long)b->v[f]);
		ok = false;
	}
	return ok;
}

static bool moved(const struct tcp_conn *now, const struct tcp_conn *then)
{
	static const int counters[] = { TCPF_BYTES_ACKED, TCPF_BYTES_RECEIVED, TCPF_SEGS_OUT,
					TCPF_SEGS_IN, TCPF_TOTAL_RETRANS };

	if (then == NULL || then->state != now->state)
		return true;
	for (size_t i = 0; i < sizeof(counters) / sizeof(counters[0]); i++)
		if (now->v[counters[i]] != then->v[counters[i]])
			return true;
	return false;
}

/* (b)'s records agree with (a)'s rows of the same sockets, and (b) wrote
 * exactly as many sockets as moved between (a)'s last two dumps. */
void check_rows(struct bench *b)
{
	static long shown;
	size_t moved_a = 0;

	qsort(b->a.v, b->a.n, sizeof(*b->a.v), by_cookie);
	for (size_t i = 0; i < b->b.n; i++) {
		const struct tcp_conn *a = find(&b->a, b->b.v[i].cookie);

		b->checked++;
		if (a == NULL || !same(a, &b->b.v[i], &shown))
			b->differ++;
	}
	for (size_t i = 0; i < b->a.n; i++)
		moved_a += moved(&b->a.v[i], find(&b->prev_a, b->a.v[i].cookie));
	if (moved_a != b->b.n) {
		if (shown++ < 10)
			fprintf(stderr, "bench_tcpiter: %zu sockets moved in the dump, %zu records\n",
				moved_a, b->b.n);
		b->set_differ++;
	}
}
