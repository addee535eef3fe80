/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * trace.h - trace sessions of clustermon-kprobe: a loaded copy of
 * trace.bpf.c recording one tracepoint into per-CPU ring buffers, drained
 * by the helper's poll loop into a CTF directory (ctf.h) until the
 * session's duration or byte budget is reached or it is stopped. A session
 * lives in the helper, not in a client connection: it keeps writing when
 * clustermond goes away, and a write error ends the session, never the
 * helper.
 */
#ifndef CLUSTERMON_TRACE_H
#define CLUSTERMON_TRACE_H

#include <linux/types.h>
#include <stdio.h>
#include <sys/types.h>

#include "budget.h"
#include "common/clustermon_kprobe.h"
#include "common/clock.h"     /* cm_clock_ns(): the records' clock */
#include "ctf.h"
#include "tpformat.h"
#include "common/wire.h"

/* Room for a session's directory name (PATH_MAX). */
#define TRACE_DIR_MAX 4096

enum trace_state { TRACE_RUNNING, TRACE_FINISHED, TRACE_FAILED };

struct trace_bpf;
struct bpf_link;
struct ring_buffer;
struct trace_session;

/* What a ring buffer callback needs: its CPU's stream and the session. */
struct trace_cpu {
	struct trace_session *t;
	struct ctf_stream stream;
	__u64 lost_seen;          /* that CPU's lost counter, applied so far */
};

struct trace_session {
	uint32_t id;
	struct probe_spec spec;
	struct probe_filter filter;
	struct trace_limits limits;
	struct trace_bpf *skel;
	struct bpf_link *link;
	int *buffer_fds;
	struct ring_buffer *rb;
	unsigned ncpu;
	struct trace_cpu *cpus;
	struct ctf_event_class cls;
	size_t payload;           /* bytes of fields after the common header */
	bool builtin_switch;      /* sched_switch: trace_switch, cm_switch_rec */
	/* Fields holding kernel addresses (tpformat_is_pointer), zeroed in
	 * every record before the CTF writer sees it: in user space, where one
	 * memset per field is exact and costs the traced event nothing; the
	 * ring buffer they pass through is mapped by the helper alone. */
	struct tp_span zero[CTF_MAX_FIELDS];
	unsigned nzero;
	uint64_t misses;          /* events the kernel did not run the program for */
	uint64_t meta_bytes;
	uint8_t uuid[16];
	char dir[TRACE_DIR_MAX];
	int dirfd;                /* dir, open while the session runs (-1 after) */
	enum trace_state state;
	char reason[160];
	uint64_t start_ns, end_ns;    /* CLOCK_MONOTONIC */
	uint64_t records, lost, dropped_at_end;
	bool out_of_budget;
	const char *limit;        /* why, when out_of_budget: MaxBytes, -Q, -R */
	struct trace_budget *budget;  /* the node's (NULL: none); set by the caller */
	int budget_slot;          /* its booking there, -1 while none */
};

/*
 * Opens the trace base, an absolute path, creating it and its missing
 * parents: base 0750 in group gid ((gid_t)-1: root's), so only the socket's
 * group reads traces; parents 0755. An existing base keeps its mode. Never
 * follows a symbolic link, and refuses a base that is not a directory owned
 * by root (or the helper's own uid) and writable by nobody else, or that
 * has on its way a directory another user owns or may write in (sticky
 * ones like /tmp excepted). The base's fd, or -1 with why.
 */
int trace_open_base(const char *base, gid_t gid, char *why, size_t whylen);
/* trace_open_base without keeping the fd: 0, or -1 with why. */
int trace_make_base(const char *base, gid_t gid, char *why, size_t whylen);
/* Loads, attaches and starts t (id, spec, filter, limits, budget set),
 * writing into a new directory under base (trace_open_base), named
 * trace-ID-UTCSTAMP-RANDOM and made by the helper (never one that exists),
 * its files made in it with O_EXCL|O_NOFOLLOW. 0; -2 with why when the
 * budget has no room for it now (budget_admit); or -1 with why (nothing
 * left behind in the kernel; an empty directory may stay). */
int trace_start(struct trace_session *t, const char *base, gid_t gid, char *why,
		size_t whylen);
/* The fd to poll for records (-1 once the session ended). */
int trace_fd(const struct trace_session *t);
/* Writes what the buffers hold; ends the session at its limits. */
void trace_drain(struct trace_session *t, uint64_t now_ns);
/* Milliseconds until the session's duration is up (0 if ended or due). */
int trace_ms_left(const struct trace_session *t, uint64_t now_ns);
/* The programs wake the helper only when a buffer is a quarter full: it
 * drains every running session this often as well. */
#define TRACE_DRAIN_MS 50
/* Milliseconds until the session must be drained next. */
int trace_next_drain_ms(const struct trace_session *t, uint64_t now_ns);
/* Ends a running session: detach, drain, close (reason a short text); its
 * budget is released. */
void trace_end(struct trace_session *t, enum trace_state st, const char *reason);
/* Frees what an ended session still holds. */
void trace_free(struct trace_session *t);
/* Its "trace ID STATE RECORDS LOST BYTES ELAPSED-MS DIR REASON" line. */
/* Its traces line: 1, or 0 when it did not fit the protocol. */
int trace_report(const struct trace_session *t, uint64_t now_ns, FILE *out);


#endif
