/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_capture.c - the SYN matcher on its own, then the capture collector
 * reading a pcap file this test writes: Ethernet, IPv4 and IPv6 handshakes
 * with known gaps, a retransmitted SYN, a SYN-ACK without a SYN, UDP and a
 * fragment, a filter.
 */
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collect/capture.h"
#include "core/synmatch.h"
#include "tap.h"

static struct syn_key key4(uint8_t a, uint8_t b, uint16_t sp, uint16_t dp)
{
	struct syn_key k;

	memset(&k, 0, sizeof(k));
	k.family = 4;
	k.src[0] = 10, k.src[3] = a;
	k.dst[0] = 10, k.dst[3] = b;
	k.sport = sp, k.dport = dp;
	return k;
}

static void matcher(void)
{
	static struct synmatch m;
	struct syn_key syn = key4(1, 2, 40000, 80), ack = key4(2, 1, 80, 40000);
	uint64_t e = 0;

	synmatch_init(&m);
	synmatch_syn(&m, &syn, 1000);
	ok(synmatch_synack(&m, &ack, 251000, &e) && e == 250000, "a SYN-ACK 250 us later: 250 us");
	ok(!synmatch_synack(&m, &ack, 300000, &e), "a second SYN-ACK matches nothing");
	synmatch_syn(&m, &syn, 1000);
	synmatch_syn(&m, &syn, 3001000); /* retransmitted after 3 s */
	ok(synmatch_synack(&m, &ack, 3002000, &e) && e == 3001000,
	   "a retransmitted SYN: timed from the first");
	ok(!synmatch_synack(&m, &syn, 10, &e), "a SYN-ACK in the SYN's own direction does not match");
	for (uint32_t i = 0; i < 3 * SYNMATCH_SLOTS; i++) {
		struct syn_key k = key4(1, 2, (uint16_t)(i & 0xffff), (uint16_t)(i >> 16));

		synmatch_syn(&m, &k, i + 1);
	}
	ok(m.dropped > 0, "a SYN flood evicts and counts (%llu), memory stays fixed",
	   (unsigned long long)m.dropped);
}

/* ------------------------------------------------------------ a pcap file */

static void put(pcap_dumper_t *d, uint64_t t_ns, const uint8_t *pkt, size_t len)
{
	struct pcap_pkthdr h = { .caplen = (bpf_u_int32)len, .len = (bpf_u_int32)len };

	h.ts.tv_sec = (time_t)(t_ns / 1000000000u);
	h.ts.tv_usec = (suseconds_t)(t_ns % 1000000000u); /* nanosecond file */
	pcap_dump((u_char *)d, &h, pkt);
}

/* Ethernet + IPv4 + TCP with flags, from 10.0.0.a:sp to 10.0.0.b:dp. */
static size_t tcp4(uint8_t *p, uint8_t a, uint8_t b, uint16_t sp, uint16_t dp, uint8_t flags)
{
	memset(p, 0, 54);
	p[12] = 0x08;                     /* ethertype IPv4 */
	p[14] = 0x45; p[17] = 40; p[23] = 6;
	p[26] = 10; p[29] = a; p[30] = 10; p[33] = b;
	p[34] = (uint8_t)(sp >> 8); p[35] = (uint8_t)sp;
	p[36] = (uint8_t)(dp >> 8); p[37] = (uint8_t)dp;
	p[46] = 0x50; p[47] = flags;
	return 54;
}

static size_t tcp6(uint8_t *p, uint8_t a, uint8_t b, uint16_t sp, uint16_t dp, uint8_t flags)
{
	memset(p, 0, 74);
	p[12] = 0x86; p[13] = 0xdd;
	p[14] = 0x60; p[19] = 20; p[20] = 6; p[21] = 64;
	p[22] = 0xfd; p[37] = a; p[38] = 0xfd; p[53] = b;
	p[54] = (uint8_t)(sp >> 8); p[55] = (uint8_t)sp;
	p[56] = (uint8_t)(dp >> 8); p[57] = (uint8_t)dp;
	p[66] = 0x50; p[67] = flags;
	return 74;
}

static void write_file(const char *path)
{
	pcap_t *dead = pcap_open_dead_with_tstamp_precision(DLT_EN10MB, 65535,
							    PCAP_TSTAMP_PRECISION_NANO);
	pcap_dumper_t *d = pcap_dump_open(dead, path);
	uint8_t p[128];
	size_t n;

	n = tcp4(p, 1, 2, 40000, 80, 0x02); put(d, 1000000000, p, n);         /* SYN */
	n = tcp4(p, 2, 1, 80, 40000, 0x12); put(d, 1000150000, p, n);         /* +150 us */
	n = tcp6(p, 1, 2, 40001, 443, 0x02); put(d, 2000000000, p, n);
	n = tcp6(p, 2, 1, 443, 40001, 0x12); put(d, 2003000000, p, n);        /* +3 ms */
	n = tcp4(p, 3, 1, 5000, 22, 0x12); put(d, 2100000000, p, n);          /* no SYN */
	n = tcp4(p, 1, 2, 40000, 80, 0x10); put(d, 2200000000, p, n);         /* plain ACK */
	memset(p, 0, 60); p[12] = 0x08; p[14] = 0x45; p[23] = 17;
	put(d, 2300000000, p, 60);                                             /* UDP */
	n = tcp4(p, 1, 2, 40002, 80, 0x02); p[20] = 0x00; p[21] = 0x10;
	put(d, 2400000000, p, n);                                              /* a later fragment */
	pcap_dump_close(d);
	pcap_close(dead);
}

struct batches {
	struct log2hist pktsize, synrtt;
};

static void on_flush(void *arg, const struct log2hist *pktsize, const struct log2hist *synrtt)
{
	struct batches *b = arg;

	log2hist_merge(&b->pktsize, pktsize);
	log2hist_merge(&b->synrtt, synrtt);
}

static void from_file(const char *path)
{
	struct batches b;
	char err[512];
	struct capture *c = capture_open_file(path, NULL, err, sizeof(err));
	const struct capture_counts *n;

	ok(c != NULL, "the file opens (%s)", c ? "ok" : err);
	if (c == NULL)
		return;
	log2hist_init(&b.pktsize, CAPTURE_HIST_BUCKETS);
	log2hist_init(&b.synrtt, CAPTURE_HIST_BUCKETS);
	capture_set_flush(c, on_flush, &b);
	capture_run(c);
	n = capture_counts(c);
	ok(n->packets == 8 && n->bytes == 5 * 54 + 2 * 74 + 60,
	   "8 packets, their bytes (%llu)", (unsigned long long)n->bytes);
	ok(b.synrtt.count == 2, "two handshakes timed (%llu)", (unsigned long long)b.synrtt.count);
	ok(b.synrtt.sum == 150 + 3000, "150 us and 3000 us (sum %llu)",
	   (unsigned long long)b.synrtt.sum);
	ok(b.pktsize.count == 8 && b.pktsize.bucket[log2hist_bucket_of(&b.pktsize, 54)] == 6 &&
	   b.pktsize.bucket[log2hist_bucket_of(&b.pktsize, 74)] == 2,
	   "packet sizes: six in 32-63 bytes (54 and 60), two in 64-127 (74)");
	capture_close(c);
	c = capture_open_file(path, "ip6", err, sizeof(err));
	log2hist_init(&b.synrtt, CAPTURE_HIST_BUCKETS);
	capture_set_flush(c, on_flush, &b);
	capture_run(c);
	ok(capture_counts(c)->packets == 2 && b.synrtt.count == 1 && b.synrtt.sum == 3000,
	   "with filter \"ip6\": the IPv6 handshake alone");
	capture_close(c);
	ok(capture_open_file(path, "tcp port", err, sizeof(err)) == NULL && strstr(err, "filter"),
	   "a filter that does not compile is refused: %s", err);
	ok(capture_open_file("/nonexistent.pcap", NULL, err, sizeof(err)) == NULL,
	   "a missing file is refused");
}

int main(void)
{
	char path[] = "/tmp/test_capture.XXXXXX";
	int fd = mkstemp(path);

	matcher();
	if (fd >= 0)
		close(fd);
	write_file(path);
	from_file(path);
	unlink(path);
	return done_testing();
}
