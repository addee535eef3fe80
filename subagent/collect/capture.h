/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * capture.h - packet capture on one interface with libpcap: packet and byte
 * counts, the kernel's drop counters, and two distributions computed on
 * the fly, packet sizes and SYN to SYN-ACK times. No net-snmp here.
 *
 * The capture runs on a thread of its own (capture_run); counters are
 * read from any thread. Distributions are handed over in batches through
 * a callback, so no lock is taken per packet.
 */
#ifndef CLUSTERMON_CAPTURE_H
#define CLUSTERMON_CAPTURE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/log2hist.h"
#include "core/synmatch.h"

#define CAPTURE_SNAPLEN 128          /* link + IPv6 + TCP flags, with room */
#define CAPTURE_BUFFER (32u << 20)   /* kernel ring: bursts must not drop */
#define CAPTURE_HIST_BUCKETS 32

struct capture_counts {
	_Atomic uint64_t packets, bytes;     /* seen by us */
	_Atomic uint64_t kernel_drops, if_drops; /* pcap_stats, widened to 64 bits */
};

/* A batch of distribution values, cleared after each call. */
typedef void (*capture_flush_fn)(void *arg, const struct log2hist *pktsize,
				 const struct log2hist *synrtt_us);

struct capture;

/* A live capture: NULL with a reason in err (no such interface, no
 * permission, a filter that does not compile). */
struct capture *capture_open(const char *ifname, const char *filter, char *err, size_t errlen);
/* A saved file instead, read to its end by capture_run (tests). */
struct capture *capture_open_file(const char *path, const char *filter, char *err,
				  size_t errlen);
void capture_set_flush(struct capture *c, capture_flush_fn fn, void *arg);
/* Captures until capture_stop (live) or the end of the file. */
void capture_run(struct capture *c);
/* From another thread: makes capture_run return within its timeout. */
void capture_stop(struct capture *c);
const struct capture_counts *capture_counts(const struct capture *c);
void capture_close(struct capture *c);

#endif
