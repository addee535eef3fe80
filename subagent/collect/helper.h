/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * helper.h - the subagent's side of clustermon-kprobe's control socket
 * (common/wire.h): one connection per exchange, the request lines
 * sent and the write side shut, the reply read to the end with a deadline,
 * so a stopped or dying helper costs at most the timeout.
 *
 * No net-snmp headers: the reply parser is tested against fake replies.
 */
#ifndef CLUSTERMON_COLLECT_HELPER_H
#define CLUSTERMON_COLLECT_HELPER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/wire.h"
#include "core/log2hist.h"

#define HELPER_MAX_REPLY (8u << 20)
#define HELPER_HIST_BUCKETS WIRE_HIST_SLOTS

enum helper_result {
	HELPER_OK,
	HELPER_DOWN,        /* no socket, refused, timed out, cut short */
	HELPER_REFUSED,     /* "err CLASS REASON" */
};

/* A connected socket to the helper, or -1 with why. */
int helper_connect(const char *path, char *why, size_t whylen);
/* For a connection that carried map fds and stays open: the helper never
 * writes on it again, so anything readable (its close) means the helper
 * went, and with it the programs that feed the maps. */
bool helper_conn_alive(int sock);

/* Sends request (lines ending in \n); *reply is the whole reply, malloc'd
 * and NUL-terminated. On HELPER_DOWN, why says what happened. */
enum helper_result helper_exchange(const char *path, const char *request, int timeout_ms,
				   char **reply, char *why, size_t whylen);

/* helper_exchange of one request, written by common/wire.h. */
enum helper_result helper_send(const char *path, const struct wire_request *req, int timeout_ms,
			       char **reply, char *why, size_t whylen);

/* One add (or dist) request: HELPER_OK (fresh: a new attachment, counting
 * from zero), HELPER_DOWN, or HELPER_REFUSED with the helper's class
 * (invalid, unsupported, failed, busy) in cls and its reason in why. */
enum helper_result helper_add(const char *path, const struct wire_request *req, int timeout_ms,
			      bool *fresh, char *cls, size_t clslen, char *why, size_t whylen);

/* A reply "ok N" and N lines to verb (no hello before it), each line
 * parsed by common/wire.h and handed to take, which returns false to
 * refuse it (and may keep r->cpu, setting it NULL): 0, or -1 with why. */
int helper_parse_counted(const char *reply, enum wire_verb verb, void *ctx,
			 bool (*take)(void *, struct wire_reply *), char *why, size_t whylen);

/* A counted reply read as an array: every line of one kind, at most max
 * of them, each filling one element of elem bytes (zeroed first). */
struct helper_list {
	enum wire_reply_kind kind;
	size_t max, elem;
	void (*fill)(void *elem, const struct wire_reply *w);
};

/* The array (malloc'd, never NULL on success, *n elements), or NULL with
 * why: the one shape of tracelist.c's and distlist.c's readers. */
void *helper_parse_list(const char *reply, enum wire_verb verb, const struct helper_list *how,
			size_t *n, char *why, size_t whylen);

/* The first line of a reply as a status (ok, ok attached, ok unchanged,
 * ok started DIR, err CLASS REASON) into w: false when it is none. */
bool helper_status(const char *reply, struct wire_reply *w);

struct helper_probe {
	uint32_t id;
	bool listed;                /* from list: */
	struct probe_spec spec;
	struct probe_filter filter;
	uint64_t hits, sampled, lost;
	unsigned ncpu;
	uint64_t *cpu_hits;         /* ncpu entries */
	bool has_hist;
	struct log2hist hist;       /* durations in ns */
};

struct helper_drop {
	uint32_t reason;            /* the kernel's skb_drop_reason value */
	uint64_t count;
	char name[WIRE_MAX_DROP_NAME + 1];
};

struct helper_reading {
	char instance[64];          /* changes when the helper restarts */
	size_t nprobes;
	struct helper_probe *probes;
	bool has_sched;
	unsigned ncpu;
	uint64_t *busy_ns, *switches;
	bool has_runqlat;           /* false with the helper's -S without runqlat */
	struct log2hist runqlat;
	bool has_sensors;
	uint64_t tcp_retransmits, skb_drops, runqlat_lost;
	uint64_t procs_lost;        /* 0 from a helper that does not say */
	size_t ndrops;
	struct helper_drop *drops;
};

/* The exchanges whose replies the parsers below read: poll (hello, list,
 * read), procs (hello, procs), maps (hello, maps), cgmaps (hello,
 * cgmaps), traces and dists. */
enum helper_ask { HELPER_ASK_POLL, HELPER_ASK_PROCS, HELPER_ASK_MAPS, HELPER_ASK_CGMAPS,
		  HELPER_ASK_TRACES, HELPER_ASK_DISTS, HELPER_ASK_EXITS };
/* Its request lines, written by common/wire.h, into buf: their length, or
 * -1 when buf is too small. */
int helper_ask_text(enum helper_ask ask, char *buf, size_t len);
/* helper_exchange of those lines. */
enum helper_result helper_ask(const char *path, enum helper_ask ask, int timeout_ms,
			      char **reply, char *why, size_t whylen);

/* Parses the reply to HELPER_ASK_POLL: 0, or -1 with why (then out
 * holds nothing to free). */
int helper_parse_poll(const char *reply, struct helper_reading *out, char *why, size_t whylen);
void helper_reading_free(struct helper_reading *r);
const struct helper_probe *helper_find_probe(const struct helper_reading *r, uint32_t id);

/* Per-process CPU accounting (the helper's procs request): the processes
 * that ran, started or exited since the last procs request. */
#define HELPER_MAX_PROCS WIRE_MAX_COUNT
#define HELPER_MAX_PID WIRE_MAX_PID

/* The MARK of a procs line. */
enum helper_proc_mark {
	HELPER_PROC_RAN = WIRE_PROC_RAN,
	HELPER_PROC_EXITED = WIRE_PROC_EXITED, /* its leader or last thread exited */
	HELPER_PROC_NEW = WIRE_PROC_NEW,       /* forked as a new process, or exec'd: its name changed */
};

struct helper_proc {
	uint32_t tgid;
	uint8_t mark;               /* enum helper_proc_mark */
	bool exited;                /* mark == HELPER_PROC_EXITED: check it is gone */
	uint64_t cpu_ns;            /* summed over threads, since the fork or */
	uint64_t run_delay_ns;      /* the helper's start */
};

struct helper_procs {
	char instance[64];
	size_t n, cap;
	struct helper_proc *v;
	bool lost;                  /* news may be missing: every process is
				       listed, but exits and execs may not be
				       (helpermaps.h); never set by the text reply */
};

/* Parses the reply to HELPER_ASK_PROCS: 0, or -1 with why (then out
 * holds nothing to free). */
int helper_parse_procs(const char *reply, struct helper_procs *out, char *why, size_t whylen);
void helper_procs_free(struct helper_procs *r);

/* The reply to HELPER_ASK_MAPS (the fds it carries aside). */
#define HELPER_MAX_SLOTS WIRE_MAX_SLOTS
#define HELPER_MAX_CPUS WIRE_MAX_CPUS
struct helper_maps_reply {
	char instance[64];
	uint64_t nslots;            /* a power of two, at most HELPER_MAX_SLOTS */
	uint64_t nrings;            /* possible CPUs, 1..HELPER_MAX_CPUS */
	uint64_t ncpu;              /* 1..nrings */
};
/* 0, or -1 with why. */
int helper_parse_maps(const char *reply, struct helper_maps_reply *out, char *why, size_t whylen);

/* The reply to "hello" and "cgmaps" (collect/helpercg.h): "ok cgmaps
 * ENTRIES NCPU" after the hello line -> ENTRIES (1..HELPER_MAX_CGMAP) and
 * the possible CPUs (1..HELPER_MAX_CPUS): 0, or -1. */
#define HELPER_MAX_CGMAP WIRE_MAX_CGMAP
int helper_parse_cgmaps(const char *reply, uint64_t *entries, uint64_t *ncpu);

/* The reply to "hello" and "exits" (collect/helperexits.h): "ok exits
 * BYTES" after the hello line -> the ring's size: 0, or -1. */
int helper_parse_exits(const char *reply, uint64_t *bytes);

#endif
