/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * capture.c - libpcap on its own thread: TPACKET_V3 ring (immediate mode
 * off, a 32 MiB buffer, 128-byte snapshots), counters kept as plain stores
 * by the single capturing thread, no allocation per packet.
 */
#include "capture.h"

#include <arpa/inet.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct capture {
	pcap_t *p;
	int linktype;
	bool live;
	struct capture_counts counts;
	uint64_t packets, bytes;             /* this thread's own copies */
	uint64_t drops_base, ifdrops_base;   /* widen pcap_stats' 32-bit counters */
	unsigned last_drop, last_ifdrop;
	struct log2hist pktsize, synrtt;
	struct synmatch syns;
	capture_flush_fn flush;
	void *flush_arg;
};

static struct capture *setup(pcap_t *p, const char *filter, char *err, size_t errlen)
{
	struct bpf_program prog;
	struct capture *c;

	if (filter != NULL && filter[0] != '\0') {
		if (pcap_compile(p, &prog, filter, 1, PCAP_NETMASK_UNKNOWN) != 0 ||
		    pcap_setfilter(p, &prog) != 0) {
			snprintf(err, errlen, "filter \"%s\": %s", filter, pcap_geterr(p));
			pcap_close(p);
			return NULL;
		}
		pcap_freecode(&prog);
	}
	c = calloc(1, sizeof(*c));
	if (c == NULL) {
		snprintf(err, errlen, "out of memory");
		pcap_close(p);
		return NULL;
	}
	c->p = p;
	c->linktype = pcap_datalink(p);
	log2hist_init(&c->pktsize, CAPTURE_HIST_BUCKETS);
	log2hist_init(&c->synrtt, CAPTURE_HIST_BUCKETS);
	synmatch_init(&c->syns);
	return c;
}

struct capture *capture_open(const char *ifname, const char *filter, char *err, size_t errlen)
{
	char ebuf[PCAP_ERRBUF_SIZE] = "";
	pcap_t *p = pcap_create(ifname, ebuf);
	struct capture *c;
	int rc;

	if (p == NULL) {
		snprintf(err, errlen, "%s", ebuf);
		return NULL;
	}
	pcap_set_snaplen(p, CAPTURE_SNAPLEN);
	pcap_set_buffer_size(p, CAPTURE_BUFFER);
	pcap_set_immediate_mode(p, 0);
	pcap_set_timeout(p, 100);
	pcap_set_tstamp_precision(p, PCAP_TSTAMP_PRECISION_NANO);
	rc = pcap_activate(p);
	if (rc < 0) {
		snprintf(err, errlen, "%s: %s", ifname,
			 rc == PCAP_ERROR ? pcap_geterr(p) : pcap_statustostr(rc));
		pcap_close(p);
		return NULL;
	}
	c = setup(p, filter, err, errlen);
	if (c != NULL)
		c->live = true;
	return c;
}

struct capture *capture_open_file(const char *path, const char *filter, char *err,
				  size_t errlen)
{
	char ebuf[PCAP_ERRBUF_SIZE] = "";
	pcap_t *p = pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO,
							     ebuf);

	if (p == NULL) {
		snprintf(err, errlen, "%s", ebuf);
		return NULL;
	}
	return setup(p, filter, err, errlen);
}

void capture_set_flush(struct capture *c, capture_flush_fn fn, void *arg)
{
	c->flush = fn;
	c->flush_arg = arg;
}

const struct capture_counts *capture_counts(const struct capture *c)
{
	return &c->counts;
}

/* Where the IP header starts for this link type, and its ethertype (0 when
 * the link layer does not say: raw IP). -1 when it is not IP. */
static int l3_offset(int linktype, const u_char *pkt, uint32_t caplen, uint16_t *ethertype)
{
	size_t off, type_at;

	switch (linktype) {
	case DLT_EN10MB:
		type_at = 12;
		if (caplen >= 16 && (pkt[12] << 8 | pkt[13]) == 0x8100)
			type_at = 16; /* one VLAN tag */
		off = type_at + 2;
		break;
	case DLT_LINUX_SLL: type_at = 14; off = 16; break;
	case DLT_LINUX_SLL2: type_at = 0; off = 20; break;
	case DLT_RAW:
#ifdef DLT_IPV4
	case DLT_IPV4:
	case DLT_IPV6:
#endif
		*ethertype = 0;
		return 0;
	default:
		return -1;
	}
	if (caplen < off)
		return -1;
	*ethertype = (uint16_t)(pkt[type_at] << 8 | pkt[type_at + 1]);
	return (int)off;
}

/* The TCP flags byte and both endpoints of a TCP packet; false otherwise. */
static bool tcp_of(const u_char *ip, uint32_t len, uint16_t ethertype, struct syn_key *k,
		   uint8_t *flags)
{
	int version = len > 0 ? ip[0] >> 4 : 0;
	uint32_t hl;

	memset(k, 0, sizeof(*k));
	if (version == 4 && (ethertype == 0 || ethertype == 0x0800)) {
		hl = (ip[0] & 0x0f) * 4u;
		/* protocol TCP, first fragment only */
		if (len < 20 || hl < 20 || ip[9] != 6 || ((ip[6] & 0x1f) | ip[7]) != 0)
			return false;
		memcpy(k->src, ip + 12, 4);
		memcpy(k->dst, ip + 16, 4);
		k->family = 4;
	} else if (version == 6 && (ethertype == 0 || ethertype == 0x86dd)) {
		hl = 40;
		if (len < 40 || ip[6] != 6) /* TCP right after the fixed header */
			return false;
		memcpy(k->src, ip + 8, 16);
		memcpy(k->dst, ip + 24, 16);
		k->family = 6;
	} else {
		return false;
	}
	if (len < hl + 14)
		return false;
	k->sport = (uint16_t)(ip[hl] << 8 | ip[hl + 1]);
	k->dport = (uint16_t)(ip[hl + 2] << 8 | ip[hl + 3]);
	*flags = ip[hl + 13];
	return true;
}

static void handshake(struct capture *c, const struct pcap_pkthdr *h, const u_char *pkt)
{
	uint64_t t = (uint64_t)h->ts.tv_sec * 1000000000u + (uint64_t)h->ts.tv_usec; /* ns */
	uint64_t elapsed;
	uint16_t ethertype;
	struct syn_key k;
	uint8_t flags;
	int off = l3_offset(c->linktype, pkt, h->caplen, &ethertype);

	if (off < 0 || !tcp_of(pkt + off, h->caplen - (uint32_t)off, ethertype, &k, &flags) ||
	    !(flags & 0x02))
		return;
	if (!(flags & 0x10))
		synmatch_syn(&c->syns, &k, t);
	else if (synmatch_synack(&c->syns, &k, t, &elapsed))
		log2hist_add(&c->synrtt, elapsed / 1000);
}

static void on_packet(u_char *arg, const struct pcap_pkthdr *h, const u_char *pkt)
{
	struct capture *c = (struct capture *)arg;

	c->packets++;
	c->bytes += h->len;
	log2hist_add(&c->pktsize, h->len);
	handshake(c, h, pkt);
}

/* pcap_stats' counters are 32 bits wide: count their wraps. */
static void update_drops(struct capture *c)
{
	struct pcap_stat st;

	if (!c->live || pcap_stats(c->p, &st) != 0)
		return;
	if (st.ps_drop < c->last_drop)
		c->drops_base += 1ull << 32;
	if (st.ps_ifdrop < c->last_ifdrop)
		c->ifdrops_base += 1ull << 32;
	c->last_drop = st.ps_drop;
	c->last_ifdrop = st.ps_ifdrop;
	atomic_store_explicit(&c->counts.kernel_drops, c->drops_base + st.ps_drop,
			      memory_order_relaxed);
	atomic_store_explicit(&c->counts.if_drops, c->ifdrops_base + st.ps_ifdrop,
			      memory_order_relaxed);
}

/* After each block of packets: publish the counters, hand over the batch. */
static void publish(struct capture *c)
{
	atomic_store_explicit(&c->counts.packets, c->packets, memory_order_relaxed);
	atomic_store_explicit(&c->counts.bytes, c->bytes, memory_order_relaxed);
	update_drops(c);
	if (c->flush != NULL && (c->pktsize.count > 0 || c->synrtt.count > 0))
		c->flush(c->flush_arg, &c->pktsize, &c->synrtt);
	log2hist_init(&c->pktsize, CAPTURE_HIST_BUCKETS);
	log2hist_init(&c->synrtt, CAPTURE_HIST_BUCKETS);
}

void capture_run(struct capture *c)
{
	int n;

	do {
		n = pcap_dispatch(c->p, -1, on_packet, (u_char *)c);
		publish(c);
	} while (n >= 0 && (c->live || n > 0));
}

void capture_stop(struct capture *c)
{
	pcap_breakloop(c->p);
}

void capture_close(struct capture *c)
{
	if (c == NULL)
		return;
	pcap_close(c->p);
	free(c);
}
