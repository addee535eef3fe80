/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * wire.h - the control socket protocol of clustermon-kprobe.
 *
 * Text lines, so an operator can speak it with socat. A request is one line
 * of at most WIRE_MAX_REQUEST bytes:
 *
 *   hello                        -> ok clustermon-kprobe PROTOCOL INSTANCE
 *   add ID SPEC [pid=N] [cpu=N] [every=N]
 *                                -> ok attached | ok unchanged | err CLASS REASON
 *   del ID                       -> ok | err invalid no probe ID
 *   list                         -> ok N, then N lines "probe ID SPEC[ FILTERS]"
 *   read                         -> ok N, then N lines of counters (below)
 *   trace ID SPEC [pid=N] [cpu=N] [every=N] [duration=MS] [bytes=N] [buffer=N]
 *                                -> ok started DIR | err CLASS REASON
 *   stop ID                      -> ok | err invalid no trace ID
 *   traces                       -> ok N, then N lines (below)
 *   procs                        -> ok N, then N lines "proc TGID CPU-NS
 *                                   RUN-DELAY-NS MARK": the processes that
 *                                   ran (MARK 1), whose leader or last
 *                                   thread exited (2), or that are new (3:
 *                                   forked as a new tgid, or exec'd, so its
 *                                   name changed) since the last procs,
 *                                   which drains the list (one reader:
 *                                   clustermond); one line per TGID
 *   maps                         -> ok maps SLOTS RINGS NCPU, the line
 *                                   carrying (SCM_RIGHTS) read-only fds of
 *                                   the per-process accounting's maps:
 *                                   proc_slots, ran_rings, cpu_state,
 *                                   proc_spill (clustermon_kprobe.h); the
 *                                   client reads them itself through mmap
 *                                   and keeps the connection open, so it
 *                                   sees the helper go (issue 30)
 *   cgmaps                       -> ok cgmaps ENTRIES NCPU, the line
 *                                   carrying read-only fds of cgroup_sched
 *                                   (each cgroup's waits and CPU time) and
 *                                   cpu_state (what each CPU runs now),
 *                                   clustermon_kprobe.h
 *
 * CLASS is invalid (the request is wrong), unsupported (this kernel cannot
 * do it), failed (attaching failed) or busy. ID is 1..65535; adding an ID
 * that exists with the same spec and filters keeps its counts ("ok
 * unchanged"), with others replaces it (counts start again from zero). A request line longer than the limit gets "err invalid" and
 * the connection is closed; a line cut short by the peer closing is never
 * executed. Lines of a read reply:
 *
 *   probe ID HITS SAMPLED LOST NCPU HITS-CPU0 ... HITS-CPU(NCPU-1)
 *   hist ID SUM SLOT0 ... SLOT63         (latency probes: durations in ns)
 *   busy NCPU NS-CPU0 ...                (scheduler sensors, when running)
 *   switches NCPU N-CPU0 ...
 *   runqlat SUM SLOT0 ... SLOT63
 *   sensors TCP-RETRANSMITS SKB-DROPS RUNQLAT-LOST [PROCS-LOST]
 *   drop REASON COUNT NAME               (skb:kfree_skb by reason, if any)
 *
 * A trace session (ID 1..65535, its own number space) records the events
 * of SPEC (a tracepoint:, a raw_tracepoint: or "sched_switch", short for
 * tracepoint:sched:sched_switch) as CTF into a directory the helper names
 * under its trace directory, until duration milliseconds (default 10000)
 * or bytes on disk (default 64 MiB) are reached, or a stop. buffer is the
 * ring buffer size per CPU (a power of two, 4 KiB..256 MiB, default 256
 * KiB). Lines of a traces reply:
 *
 *   trace ID STATE RECORDS LOST BYTES ELAPSED-MS DIR REASON...
 *
 * STATE is running, finished (duration, size or stop: REASON says which)
 * or failed (REASON says why: the disk full, a write error); sessions that
 * ended are listed until their ID is used again.
 *
 * Pure C, shared by the helper and the subagent.
 */
#ifndef CLUSTERMON_WIRE_H
#define CLUSTERMON_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "spec.h"

#define WIRE_PROTOCOL 1
#define WIRE_MAX_REQUEST 512
#define WIRE_MAX_REPLY_LINE 4096
#define WIRE_MAX_ID 65535u

enum wire_verb { WIRE_HELLO, WIRE_ADD, WIRE_DEL, WIRE_LIST, WIRE_READ, WIRE_TRACE, WIRE_STOP,
		 WIRE_TRACES, WIRE_PROCS, WIRE_MAPS, WIRE_CGMAPS };

#define TRACE_DEFAULT_DURATION_MS 10000u
#define TRACE_MAX_DURATION_MS 86400000u          /* a day */
#define TRACE_DEFAULT_BYTES (64ull << 20)
#define TRACE_MIN_BYTES 4096ull
#define TRACE_MAX_BYTES (1ull << 40)
#define TRACE_DEFAULT_BUFFER (256u << 10)
#define TRACE_MIN_BUFFER 4096u
#define TRACE_MAX_BUFFER (256u << 20)

struct trace_limits {
	uint32_t duration_ms;
	uint32_t buffer_bytes;    /* per CPU */
	uint64_t max_bytes;
};

struct wire_request {
	enum wire_verb verb;
	uint32_t id;                 /* add, del */
	struct probe_spec spec;      /* add */
	struct probe_filter filter;  /* add, trace */
	struct trace_limits limits;  /* trace */
};

enum wire_line_status { WIRE_NEED_MORE, WIRE_LINE, WIRE_TOO_LONG };

/*
 * Takes the first complete line out of buf (len bytes held): copies it
 * without its newline (and a \r before it) into line[max + 1] and moves the
 * rest of buf to its start. WIRE_TOO_LONG when no newline comes within max
 * bytes.
 */
enum wire_line_status wire_take_line(char *buf, size_t *len, size_t max, char *line);

/* One request line: 0, or -1 with the reason in why. */
int wire_parse_request(const char *line, struct wire_request *req, char *why, size_t whylen);
/* The request line (with its newline) a client sends. */
int wire_format_request(const struct wire_request *req, char *buf, size_t len);

#endif
