/* SPDX-License-Identifier: BSD-2-Clause */
/* synmatch.c - SYN to SYN-ACK matching in a fixed table. */
#include "synmatch.h"

#include <string.h>

void synmatch_init(struct synmatch *m)
{
	memset(m, 0, sizeof(*m));
}

/* FNV-1a over the key's bytes. */
static uint32_t hash(const struct syn_key *k)
{
	const uint8_t *p = (const uint8_t *)k;
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < sizeof(*k); i++)
		h = (h ^ p[i]) * 16777619u;
	return h;
}

static bool same(const struct syn_key *a, const struct syn_key *b)
{
	return memcmp(a, b, sizeof(*a)) == 0;
}

void synmatch_syn(struct synmatch *m, const struct syn_key *k, uint64_t t_ns)
{
	uint32_t h = hash(k), oldest = h % SYNMATCH_SLOTS;

	if (t_ns == 0)
		t_ns = 1; /* 0 marks a free slot */
	for (uint32_t i = 0; i < SYNMATCH_PROBES; i++) {
		uint32_t s = (h + i) % SYNMATCH_SLOTS;

		if (m->slot[s].t_ns != 0 && same(&m->slot[s].key, k))
			return; /* a retransmitted SYN: keep the first time */
		if (m->slot[s].t_ns == 0) {
			m->slot[s].key = *k;
			m->slot[s].t_ns = t_ns;
			return;
		}
		if (m->slot[s].t_ns < m->slot[oldest].t_ns)
			oldest = s;
	}
	m->dropped++;
	m->slot[oldest].key = *k;
	m->slot[oldest].t_ns = t_ns;
}

bool synmatch_synack(struct synmatch *m, const struct syn_key *k, uint64_t t_ns,
		     uint64_t *elapsed_ns)
{
	struct syn_key syn;
	uint32_t h;

	/* The SYN it answers went the other way. */
	memset(&syn, 0, sizeof(syn));
	memcpy(syn.src, k->dst, 16);
	memcpy(syn.dst, k->src, 16);
	syn.sport = k->dport;
	syn.dport = k->sport;
	syn.family = k->family;
	h = hash(&syn);
	for (uint32_t i = 0; i < SYNMATCH_PROBES; i++) {
		uint32_t s = (h + i) % SYNMATCH_SLOTS;

		if (m->slot[s].t_ns != 0 && same(&m->slot[s].key, &syn)) {
			*elapsed_ns = t_ns > m->slot[s].t_ns ? t_ns - m->slot[s].t_ns : 0;
			m->slot[s].t_ns = 0;
			return true;
		}
	}
	return false;
}
