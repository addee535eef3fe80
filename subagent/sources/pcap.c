/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pcap.c - the "pcap" source: one capture thread per pcapInterface line,
 * and a snapshot of their counters each sample. Captures are opened by the
 * first sample, before clustermond drops its privileges: CAP_NET_RAW is
 * needed only to open them. An interface added by a later SIGHUP under -u
 * cannot be opened; the log says so.
 */
#include <net/if.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "../collect/capture.h"
#include "../runtime/dist.h"
#include "../runtime/logq.h"
#include "pcap.h"
#include "sources.h"

static struct snapshot_slot pcap_slot = SNAPSHOT_SLOT_INIT;

struct running {
	struct pcap_iface_conf conf;
	uint32_t ifindex;
	struct capture *cap;
	pthread_t thread;
};

struct pcap_source {
	unsigned n;
	struct running run[PCAP_MAX_IFACES];
	unsigned pktsize_dist, synrtt_dist;
};

static void *capture_thread(void *arg)
{
	capture_run(arg);
	return NULL;
}

static void flush(void *arg, const struct log2hist *pktsize, const struct log2hist *synrtt)
{
	const struct pcap_source *ps = arg;

	dist_merge(ps->pktsize_dist, pktsize);
	dist_merge(ps->synrtt_dist, synrtt);
}

static void stop(struct running *r)
{
	capture_stop(r->cap);
	pthread_join(r->thread, NULL);
	capture_close(r->cap);
}

static bool start(struct pcap_source *ps, const struct pcap_iface_conf *want, struct running *r)
{
	char err[512], name[16];

	r->conf = *want;
	r->ifindex = if_nametoindex(want->ifname);
	r->cap = capture_open(want->ifname, want->filter, err, sizeof(err));
	if (r->cap == NULL) {
		/* The config check already refused interfaces and filters that
		 * are wrong; what is left here is mostly a missing CAP_NET_RAW. */
		logq_printf(LOG_ERR, "clustermond: pcapInterface %s: %s", want->ifname, err);
		return false;
	}
	capture_set_flush(r->cap, flush, ps);
	if (r->ifindex == 0 || pthread_create(&r->thread, NULL, capture_thread, r->cap) != 0) {
		capture_close(r->cap);
		return false;
	}
	/* "cm-pcap-IF" in top and /proc/PID/task: its CPU is its alone. */
	snprintf(name, sizeof(name), "cm-pcap-%.7s", want->ifname);
	pthread_setname_np(r->thread, name);
	return true;
}

static bool same(const struct pcap_iface_conf *a, const struct pcap_iface_conf *b)
{
	return strcmp(a->ifname, b->ifname) == 0 && strcmp(a->filter, b->filter) == 0;
}

/* Stops captures no longer configured, starts new ones, keeps the rest
 * (and their counts). */
static void reconcile(struct pcap_source *ps, const struct pcap_conf *want)
{
	struct running next[PCAP_MAX_IFACES];
	bool kept[PCAP_MAX_IFACES] = { false };
	unsigned n = 0;

	for (unsigned i = 0; i < want->n; i++) {
		unsigned j;

		for (j = 0; j < ps->n && !(same(&ps->run[j].conf, &want->iface[i]) && !kept[j]); j++)
			;
		if (j < ps->n) {
			kept[j] = true;
			next[n++] = ps->run[j];
		} else if (start(ps, &want->iface[i], &next[n])) {
			n++;
		}
	}
	for (unsigned j = 0; j < ps->n; j++)
		if (!kept[j])
			stop(&ps->run[j]);
	if (n > 0)
		memcpy(ps->run, next, n * sizeof(next[0]));
	ps->n = n;
}

static void *pcap_init(const char *root)
{
	struct pcap_source *ps = calloc(1, sizeof(*ps));

	(void)root; /* captures are live: nothing to read under a fixture root */
	if (ps == NULL)
		return NULL;
	ps->pktsize_dist = dist_register("pcap.pktsize", "bytes", CAPTURE_HIST_BUCKETS);
	ps->synrtt_dist = dist_register("pcap.synrtt", "us", CAPTURE_HIST_BUCKETS);
	return ps;
}

static void pcap_fini(void *ctx)
{
	struct pcap_source *ps = ctx;

	if (ps == NULL)
		return;
	for (unsigned i = 0; i < ps->n; i++)
		stop(&ps->run[i]);
	free(ps);
}

static int by_ifindex(const void *a, const void *b)
{
	const struct pcap_row *x = a, *y = b;

	return (x->ifindex > y->ifindex) - (x->ifindex < y->ifindex);
}

static void pcap_snapshot_destroy(struct snapshot *s)
{
	free(s);
}

static int pcap_sample(void *ctx)
{
	struct pcap_source *ps = ctx;
	struct pcap_snapshot *snap;

	snap = calloc(1, sizeof(*snap));
	if (snap == NULL)
		return -1;
	snap->hdr.refs = 1;
	snap->hdr.destroy = pcap_snapshot_destroy;
	for (unsigned i = 0; i < ps->n; i++) {
		const struct capture_counts *c = capture_counts(ps->run[i].cap);
		struct pcap_row *r = &snap->rows[snap->nrows++];

		r->ifindex = ps->run[i].ifindex;
		memcpy(r->ifname, ps->run[i].conf.ifname, sizeof(r->ifname));
		r->packets = atomic_load_explicit(&c->packets, memory_order_relaxed);
		r->bytes = atomic_load_explicit(&c->bytes, memory_order_relaxed);
		r->kernel_drops = atomic_load_explicit(&c->kernel_drops, memory_order_relaxed);
		r->if_drops = atomic_load_explicit(&c->if_drops, memory_order_relaxed);
	}
	if (snap->nrows > 1)
		qsort(snap->rows, snap->nrows, sizeof(snap->rows[0]), by_ifindex);
	snapshot_publish(&pcap_slot, &snap->hdr);
	return 0;
}

/* Each (re)load: captures open, close or change filter on this thread. */
static void pcap_configure(void *ctx, const struct sources_conf *c)
{
	reconcile(ctx, &c->pcap);
}

const struct source_ops pcap_source_ops = {
	.index = SOURCE_PCAP,
	.name = "pcap",
	.slot = &pcap_slot,
	.default_interval_ms = 1000,
	.init = pcap_init,
	.sample = pcap_sample,
	.fini = pcap_fini,
	.configure = pcap_configure,
};
