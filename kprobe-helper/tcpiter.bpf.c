// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * tcpiter.bpf.c - the TCP connection table by change (issue 42): a TCP
 * iterator that keeps, in each socket's own storage, the counters it saw on
 * its last pass, and writes a struct cm_tcp_rec only for the sockets whose
 * counters moved since (every socket on the first pass). Reading the table
 * then costs the walk of the sockets plus the moved ones' records, instead
 * of a tcp_info for every socket as the inet_diag dump makes.
 *
 * Measured by tests/bench/tcpiter.sh against the product's dump; not yet
 * loaded by the helper. Sockets without a full sock (time-wait, request)
 * have no storage and no tcp_info: they are skipped here.
 */
#include "kernel.bpf.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "common/clustermon_kprobe.h"

#define CM_AF_INET 2
#define CM_AF_INET6 10
#define CM_TCP_LISTEN 10

/* jiffies to microseconds for tcpi_rto: the kernel's tick rate, which
 * libbpf reads from its config (/proc/config.gz or /boot). */
extern unsigned int CONFIG_HZ __kconfig __weak;

/* What a socket's counters were at the last pass that saw it. */
struct seen {
	__u64 bytes_acked, bytes_received;
	__u32 segs_out, segs_in, total_retrans;
	__u8 state;
};

struct {
	__uint(type, BPF_MAP_TYPE_SK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct seen);
} last_seen SEC(".maps");

/* Whether the counters moved since *s; what they are now in *now. */
static bool moved(const struct seen *s, const struct tcp_sock *tp, __u8 state, struct seen *now)
{
	now->bytes_acked = tp->bytes_acked;
	now->bytes_received = tp->bytes_received;
	now->segs_out = tp->segs_out;
	now->segs_in = tp->segs_in;
	now->total_retrans = tp->total_retrans;
	now->state = state;
	return now->bytes_acked != s->bytes_acked || now->bytes_received != s->bytes_received ||
	       now->segs_out != s->segs_out || now->segs_in != s->segs_in ||
	       now->total_retrans != s->total_retrans || now->state != s->state;
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

SEC("iter/tcp")
int tcp_changed(struct bpf_iter__tcp *ctx)
{
	struct sock_common *skc = ctx->sk_common;
	struct cm_tcp_rec r;
	struct tcp_sock *tp;
	struct seen *s, now;
	__u8 state;

	if (skc == NULL)
		return 0;
	tp = bpf_skc_to_tcp_sock(skc);
	if (tp == NULL)
		return 0;
	state = skc->skc_state;
	if (state == CM_TCP_LISTEN)
		return 0;
	s = bpf_sk_storage_get(&last_seen, tp, NULL, BPF_SK_STORAGE_GET_F_CREATE);
	__builtin_memset(&now, 0, sizeof(now));
	if (s == NULL || !moved(s, tp, state, &now))
		return 0;
	__builtin_memset(&r, 0, sizeof(r));
	r.cookie = bpf_get_socket_cookie(tp);
	r.state = state;
	r.uid = ctx->uid;
	fill_ends(&r, skc);
	fill_info(&r, tp);
	/* Remembered only once written: when the reader's buffer is full the
	 * write fails and seq_file shows this socket again at the next read,
	 * which must still find it moved (storing first lost one socket at
	 * every 32 kB buffer). */
	if (bpf_seq_write(ctx->meta->seq, &r, sizeof(r)) == 0)
		*s = now;
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
