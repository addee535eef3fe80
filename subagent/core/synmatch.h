/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * synmatch.h - TCP handshake times from packets: a SYN is remembered by its
 * addresses and ports, and the SYN-ACK travelling the other way gives the
 * time between them. Works the same for our SYNs (the peer's answer time)
 * and for incoming ones (our own answer time). Pure C: no OS, no pcap.
 *
 * Fixed memory: SYNMATCH_SLOTS remembered SYNs in an open-addressed table;
 * when a SYN finds no free slot among its probes, the oldest of them is
 * dropped and counted (a SYN flood must not grow memory).
 */
#ifndef CLUSTERMON_SYNMATCH_H
#define CLUSTERMON_SYNMATCH_H

#include <stdbool.h>
#include <stdint.h>

#define SYNMATCH_SLOTS 4096u
#define SYNMATCH_PROBES 8u

/* One direction of a connection: src -> dst. Addresses are 4 or 16 bytes,
 * zero-padded, so keys compare as plain bytes. */
struct syn_key {
	uint8_t src[16], dst[16];
	uint16_t sport, dport;
	uint8_t family;         /* 4 or 6 */
};

struct synmatch {
	struct {
		struct syn_key key;
		uint64_t t_ns;      /* 0: free */
	} slot[SYNMATCH_SLOTS];
	uint64_t dropped;
};

void synmatch_init(struct synmatch *m);
/* A SYN (not ACK) went from key.src to key.dst at t_ns. A repeated SYN
 * keeps the first one's time: the handshake is timed from its start. */
void synmatch_syn(struct synmatch *m, const struct syn_key *k, uint64_t t_ns);
/* A SYN-ACK went from key.src to key.dst: if it answers a remembered SYN
 * (dst -> src), true with the time since it; the SYN is forgotten. */
bool synmatch_synack(struct synmatch *m, const struct syn_key *k, uint64_t t_ns,
		     uint64_t *elapsed_ns);

#endif
