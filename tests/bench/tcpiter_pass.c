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
#include <sys/stat.h>
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

static int attach_iter(struct bpf_program *p, struct bpf_map *map, int *link)
{
	union bpf_iter_link_info li = { .map.map_fd = map != NULL ? (__u32)bpf_map__fd(map) : 0 };
	LIBBPF_OPTS(bpf_iter_attach_opts, o, .link_info = &li, .link_info_len = sizeof(li));
	struct bpf_link *l = bpf_program__attach_iter(p, map != NULL ? &o : NULL);

	if (l == NULL) {
		fprintf(stderr, "bench_tcpiter: attaching %s: %s\n", bpf_program__name(p),
			strerror(errno));
		return -1;
	}
	*link = bpf_link__fd(l);
	return 0;
}

/* (c) watches the sockets of this namespace only: tcp_new sees every one. */
static int watch_here(struct bpf_object *obj)
{
	struct bpf_map *m = bpf_object__find_map_by_name(obj, "watch_netns");
	struct stat st;
	__u32 zero = 0, ino;

	if (m == NULL || stat("/proc/self/ns/net", &st) != 0)
		return -1;
	ino = (__u32)st.st_ino;
	return bpf_map__update_elem(m, &zero, sizeof(zero), &ino, sizeof(ino), 0);
}

/* The programs in the order (c) needs them: tcp_new before tcp_adopt's
 * pass, so no socket established meanwhile goes unwatched. */
static int attach_all(struct bench *b, struct bpf_object *obj)
{
	struct bpf_program *changed = bpf_object__find_program_by_name(obj, "tcp_changed");
	struct bpf_program *watched = bpf_object__find_program_by_name(obj, "tcp_watched");
	struct bpf_program *adopt = bpf_object__find_program_by_name(obj, "tcp_adopt");
	struct bpf_program *tp = bpf_object__find_program_by_name(obj, "tcp_new");
	struct bpf_map *map = bpf_object__find_map_by_name(obj, "watched");

	if (!changed || !watched || !adopt || !tp || !map || watch_here(obj) != 0)
		return -1;
	if (bpf_program__attach(tp) == NULL) {
		fprintf(stderr, "bench_tcpiter: attaching tcp_new: %s\n", strerror(errno));
		return -1;
	}
	b->tp_prog = bpf_program__fd(tp);
	b->it[READ_B] = (struct reader){ .name = "(b) iter/tcp", .prog = bpf_program__fd(changed) };
	b->it[READ_C] = (struct reader){ .name = "(c) iter/sk_storage_map",
					 .prog = bpf_program__fd(watched) };
	return attach_iter(changed, NULL, &b->it[READ_B].link) ||
	       attach_iter(adopt, NULL, &b->adopt) ||
	       attach_iter(watched, map, &b->it[READ_C].link);
}

int load_iter(struct bench *b, const char *path)
{
	struct bpf_object *obj = bpf_object__open_file(path, NULL);
	size_t cap = (size_t)b->sockets + 2 * NEW_CONNS_MAX + 64;

	b->stats = -1;
	b->diag = inetdiag_open();
	if (obj == NULL || bpf_object__load(obj) != 0) {
		fprintf(stderr, "bench_tcpiter: loading %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (attach_all(b, obj) != 0 || b->diag < 0)
		return -1;
	if (rows_init(&b->a, cap) || rows_init(&b->prev_a, cap) ||
	    rows_init(&b->it[READ_B].rows, cap) || rows_init(&b->it[READ_C].rows, cap))
		return -1;
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

void cost_now(int prog, struct cost *c)
{
	struct bpf_prog_info info = { 0 };
	__u32 len = sizeof(info);
	struct timespec ts;
	struct rusage ru;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	getrusage(RUSAGE_THREAD, &ru);
	if (prog < 0 || bpf_obj_get_info_by_fd(prog, &info, &len) != 0)
		memset(&info, 0, sizeof(info));
	c->cpu_ns = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	c->user_us = (int64_t)ru.ru_utime.tv_sec * 1000000 + ru.ru_utime.tv_usec;
	c->sys_us = (int64_t)ru.ru_stime.tv_sec * 1000000 + ru.ru_stime.tv_usec;
	c->bpf_ns = info.run_time_ns;
	c->bpf_runs = info.run_cnt;
}

void cost_since(int prog, const struct cost *t0, struct cost *c)
{
	cost_now(prog, c);
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
	cost_now(-1, &t0);
	rc = inetdiag_dump(b->diag, AF_INET, CONN_STATES, NULL, 0, keep, &b->a);
	if (rc == 0)
		rc = inetdiag_dump(b->diag, AF_INET6, CONN_STATES, NULL, 0, keep, &b->a);
	cost_since(-1, &t0, c);
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

/* One pass of an iterator: create it, read it to the end. */
static int iter_pass(int link, int prog, struct rows *rows, struct cost *c)
{
	struct cost t0;
	int fd, rc;

	rows->n = 0;
	cost_now(prog, &t0);
	fd = bpf_iter_create(link);
	rc = fd < 0 ? -1 : read_iter(fd, rows);
	if (fd >= 0)
		close(fd);
	cost_since(prog, &t0, c);
	if (rc != 0)
		perror("bench_tcpiter: reading an iterator");
	return rc;
}

int pass_it(struct bench *b, struct reader *r, struct cost *c)
{
	(void)b;
	return iter_pass(r->link, r->prog, &r->rows, c);
}

/* tcp_adopt writes nothing: its pass gives the sockets storage. */
int adopt_pass(struct bench *b, struct cost *c)
{
	struct rows none = { 0 };

	return iter_pass(b->adopt, -1, &none, c);
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

/* How many sockets moved between (a)'s last two dumps; sorts (a). */
void moved_in_a(struct bench *b)
{
	qsort(b->a.v, b->a.n, sizeof(*b->a.v), by_cookie);
	b->moved_a = 0;
	for (size_t i = 0; i < b->a.n; i++)
		b->moved_a += moved(&b->a.v[i], find(&b->prev_a, b->a.v[i].cookie));
}

/* An iterator's records agree with (a)'s rows of the same sockets, and it
 * wrote as many sockets as moved between (a)'s last two dumps. */
void check_rows(struct bench *b, const struct rows *r)
{
	static long shown;

	for (size_t i = 0; i < r->n; i++) {
		const struct tcp_conn *a = find(&b->a, r->v[i].cookie);

		b->checked++;
		if (a == NULL || !same(a, &r->v[i], &shown))
			b->differ++;
	}
	if (b->moved_a != r->n) {
		if (shown++ < 10)
			fprintf(stderr, "bench_tcpiter: %zu sockets moved in the dump, %zu records\n",
				b->moved_a, r->n);
		b->set_differ++;
	}
}
