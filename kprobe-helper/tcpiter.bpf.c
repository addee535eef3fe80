// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * tcpiter.bpf.c - the TCP connection table by change (issue 42): programs
 * that keep, in each socket's own storage (sk_storage), the counters seen
 * at the last pass, and write a struct cm_tcp_rec into the iterator's
 * seq_file only for the sockets whose counters moved since (every socket on
 * the first pass), with the fields tcp_info gives. Two ways to find the
 * sockets are measured side by side, each with its own map:
 *   (b) tcp_changed: an iter/tcp program, the kernel's walk of its TCP hash
 *       tables (the reader's network namespace);
 *   (c) tcp_watched: an iterator over the sk_storage map itself, which
 *       holds only the sockets tcp_new (a socket becoming established) and
 *       one pass of tcp_adopt (those already there) gave storage to.
 * Measured by tests/bench/tcpiter.sh against the product's inet_diag dump;
 * not loaded by the helper. Sockets without a full sock (time-wait,
 * request) have no storage and no tcp_info: skipped here.
 */
#include "kernel.bpf.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include "common/clustermon_kprobe.h"

#define CM_AF_INET 2
#define CM_AF_INET6 10
#define CM_TCP_ESTABLISHED 1
#define CM_TCP_LISTEN 10
#define CM_IPPROTO_TCP 6

/* jiffies to microseconds for tcpi_rto: the kernel's tick rate, which
 * libbpf reads from its config (/proc/config.gz or /boot). */
extern unsigned int CONFIG_HZ __kconfig __weak;
/* A pointer to read a kernel object as another type (Linux 6.2). */
extern void *bpf_rdonly_cast(const void *obj, __u32 btf_id) __ksym;

/*
 * What a socket's counters were at the last pass that saw it. Segments in
 * and out are enough to tell movement: no byte is acked, received or
 * retransmitted, and no state changes but by a timer, without one. They
 * sit in two cache lines of tcp_sock where the five counters tcp_info's
 * readers watch sit in four, and the state in a third; each line is a miss
 * on a socket nobody touched since the last pass.
 */
struct seen {
	__u32 segs_out, segs_in;
};

/* (b)'s state, and (c)'s: two maps, so the two designs measured side by
 * side do not take each other's changes. */
struct {
	__uint(type, BPF_MAP_TYPE_SK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct seen);
} last_seen SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_SK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct seen);
} watched SEC(".maps");

/* Whether the counters moved since *s; what they are now in *now. */
static __always_inline bool moved(const struct seen *s, const struct tcp_sock *tp,
				  struct seen *now)
{
	now->segs_out = tp->segs_out;
	now->segs_in = tp->segs_in;
	return now->segs_out != s->segs_out || now->segs_in != s->segs_in;
}

static void fill_ends(struct cm_tcp_rec *r, const struct sock_common *skc)
{
	r->family = (__u8)skc->skc_family;
	r->sport = skc->skc_num;
	r->dport = __builtin_bswap16(skc->skc_dport);
	if (r->family == CM_AF_INET) {
		__be32 s = skc->skc_rcv_saddr, d = skc->skc_daddr;

		__builtin_memcpy(r->saddr, &s, 4);
		__builtin_memcpy(r->daddr, &d, 4);
	} else {
		bpf_core_read(r->saddr, 16, &skc->skc_v6_rcv_saddr);
		bpf_core_read(r->daddr, 16, &skc->skc_v6_daddr);
	}
}

/* The fields as tcp_get_info() computes them (net/ipv4/tcp.c). */
static void fill_info(struct cm_tcp_rec *r, const struct tcp_sock *tp)
{
	__u32 rate = tp->rate_delivered, intv = tp->rate_interval_us;
	__u32 hz = CONFIG_HZ ? CONFIG_HZ : 1000;

	r->rtt_us = tp->srtt_us >> 3;
	r->rttvar_us = tp->mdev_us >> 2;
	r->min_rtt_us = tp->rtt_min.s[0].v;
	r->rto_us = (__u32)((__u64)tp->inet_conn.icsk_rto * 1000000 / hz);
	r->cwnd = tp->snd_cwnd;
	r->ssthresh = tp->snd_ssthresh;
	r->snd_mss = tp->mss_cache;
	r->segs_out = tp->segs_out;
	r->segs_in = tp->segs_in;
	r->data_segs_out = tp->data_segs_out;
	r->data_segs_in = tp->data_segs_in;
	r->total_retrans = tp->total_retrans;
	r->lost = tp->lost_out;
	r->dsack_dups = tp->dsack_dups;
	r->rcv_rtt_us = tp->rcv_rtt_est.rtt_us >> 3;
	r->notsent_bytes = tp->write_seq - tp->snd_nxt;
	if ((int)r->notsent_bytes < 0)
		r->notsent_bytes = 0;
	r->bytes_acked = tp->bytes_acked;
	r->bytes_received = tp->bytes_received;
	r->bytes_retrans = tp->bytes_retrans;
	r->delivery_rate = rate && intv ? (__u64)rate * tp->mss_cache * 1000000 / intv : 0;
}

/* The record of a socket whose counters moved since *s, remembered only
 * once written: when the reader's buffer is full the write fails and
 * seq_file shows this socket again at the next read, which must still find
 * it moved (storing first lost one socket at every 32 kB buffer). The uid
 * is the iterator's, or read from uid_sk once the socket is known to have
 * moved (another cache line). */
static __always_inline void emit(struct seq_file *seq, void *owner, struct sock_common *skc,
				 const struct tcp_sock *tp, struct seen *s, __u32 uid,
				 const struct sock *uid_sk)
{
	struct cm_tcp_rec r;
	struct seen now;

	if (!moved(s, tp, &now))
		return;
	__builtin_memset(&r, 0, sizeof(r));
	r.cookie = bpf_get_socket_cookie(owner);
	r.state = skc->skc_state;
	r.uid = uid_sk != NULL ? uid_sk->sk_uid.val : uid;
	fill_ends(&r, skc);
	fill_info(&r, tp);
	if (bpf_seq_write(seq, &r, sizeof(r)) == 0)
		*s = now;
}

/* (b): every socket of the reader's namespace, its state in last_seen. */
SEC("iter/tcp")
int tcp_changed(struct bpf_iter__tcp *ctx)
{
	struct sock_common *skc = ctx->sk_common;
	struct tcp_sock *tp;
	struct seen *s;

	if (skc == NULL || skc->skc_state == CM_TCP_LISTEN ||
	    (tp = bpf_skc_to_tcp_sock(skc)) == NULL)
		return 0;
	s = bpf_sk_storage_get(&last_seen, tp, NULL, BPF_SK_STORAGE_GET_F_CREATE);
	if (s != NULL)
		emit(ctx->meta->seq, tp, skc, tp, s, ctx->uid, NULL);
	return 0;
}

/*
 * (c): the sockets that have storage in watched, walked through the map
 * instead of the kernel's hash tables, whose every bucket iter/tcp visits
 * (262,144 here, up to 524,288 on a big node). A socket gets its storage
 * when it becomes established (tcp_new below) or, for those already there
 * when the programs load, from one pass of tcp_adopt; the storage goes with
 * the socket. Reads the counters without the socket's lock, as the
 * iterator's own walk gives none.
 */
SEC("iter/bpf_sk_storage_map")
int tcp_watched(struct bpf_iter__bpf_sk_storage_map *ctx)
{
	struct sock *sk = ctx->sk;
	struct seen *s = ctx->value;
	const struct tcp_sock *tp;

	if (sk == NULL || s == NULL)
		return 0;
	/* Only TCP sockets get storage in watched: a cast for reading, not
	 * bpf_skc_to_tcp_sock's checks, which cost a miss on another line. */
	tp = bpf_rdonly_cast(sk, bpf_core_type_id_kernel(struct tcp_sock));
	emit(ctx->meta->seq, sk, &sk->__sk_common, tp, s, 0, sk);
	return 0;
}

/* Whose sockets (c) watches: the namespace's inode (0: every one). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} watch_netns SEC(".maps");

static bool watching(const struct sock_common *skc)
{
	__u32 zero = 0, *ns = bpf_map_lookup_elem(&watch_netns, &zero);

	return ns == NULL || *ns == 0 || skc->skc_net.net->ns.inum == *ns;
}

SEC("tp_btf/inet_sock_set_state")
int BPF_PROG(tcp_new, const struct sock *sk, const int oldstate, const int newstate)
{
	if (newstate == CM_TCP_ESTABLISHED && sk->sk_protocol == CM_IPPROTO_TCP &&
	    watching(&sk->__sk_common))
		bpf_sk_storage_get(&watched, (struct sock *)sk, NULL, BPF_SK_STORAGE_GET_F_CREATE);
	return 0;
}

/* The sockets established before tcp_new was attached: one pass. */
SEC("iter/tcp")
int tcp_adopt(struct bpf_iter__tcp *ctx)
{
	struct sock_common *skc = ctx->sk_common;
	struct tcp_sock *tp;

	if (skc == NULL || skc->skc_state == CM_TCP_LISTEN ||
	    (tp = bpf_skc_to_tcp_sock(skc)) == NULL)
		return 0;
	bpf_sk_storage_get(&watched, tp, NULL, BPF_SK_STORAGE_GET_F_CREATE);
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
