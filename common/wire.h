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
 *                                   clustermond); one line per TGID.
 *                                   Only the trusted peer (below) drains.
 *   maps                         -> ok maps SLOTS RINGS NCPU, the line
 *                                   carrying (SCM_RIGHTS) fds of the
 *                                   per-process accounting's maps:
 *                                   proc_slots, ran_rings, cpu_state,
 *                                   proc_spill (clustermon_kprobe.h); the
 *                                   client reads them itself through mmap
 *                                   and keeps the connection open, so it
 *                                   sees the helper go (issue 30).
 *                                   proc_slots and ran_rings are WRITABLE
 *                                   (the kernel mmaps a BPF array only
 *                                   through a fd that may write; the
 *                                   client maps them read-only), so only
 *                                   the trusted peer gets them
 *   exits                        -> ok exits BYTES, the line carrying
 *                                   (SCM_RIGHTS) the fds of exit_ring, the
 *                                   exit log's BPF ring buffer of BYTES,
 *                                   and oom_ring, OOM victims'
 *                                   (clustermon_kprobe.h), WRITABLE (a
 *                                   ring's reader moves its consumer
 *                                   position), so to the trusted peer
 *                                   alone; one reader of each (issue 43)
 *   dist ID SPEC[ FILTERS]       -> ok attached | ok unchanged | err CLASS REASON
 *                                   (distspec.h: clusterMonDistTable's rows)
 *   undist ID                    -> ok | err invalid no dist ID
 *   dists                        -> ok N, then N lines "dist ID HITS SAMPLED
 *                                   MISSES SUM SLOT0 ... SLOT63"
 *   cgmaps                       -> ok cgmaps ENTRIES NCPU, the line
 *                                   carrying read-only fds of cgroup_sched
 *                                   (each cgroup's waits and CPU time) and
 *                                   cpu_state (what each CPU runs now),
 *                                   clustermon_kprobe.h
 *
 * The trusted peer is root, or the helper's -u user (clustermond's), by
 * SO_PEERCRED; another peer (without -u, whoever the socket's group lets
 * in) asking for maps or procs gets "err failed uid N may not ask for
 * ...". Every uid holds at most half of the helper's 32 connections: one
 * more gets "err busy uid N holds 16 of the 32 client slots ..." and is
 * closed. An add, trace or dist of a hook the helper's policy denies gets
 * "err invalid HOOK is denied by FILE:LINE (RULE)".
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
 * KiB). A session the helper's budgets (its -B, -Q, -R) have no room for
 * is refused with err busy and the reason; one that reaches the quota or
 * the reserve while it runs ends, finished. Lines of a traces reply:
 *
 *   trace ID STATE RECORDS LOST BYTES ELAPSED-MS DIR REASON...
 *
 * STATE is running, finished (duration, size, quota, reserve or stop:
 * REASON says which) or failed (REASON says why: the disk full, a write
 * error); sessions that ended are listed until their ID is used again.
 *
 * Pure C, shared by the helper and the subagent: every request and every
 * reply line has a struct below, one formatter and one parser, so neither
 * side writes or reads the text by hand.
 */
#ifndef CLUSTERMON_WIRE_H
#define CLUSTERMON_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "distspec.h"
#include "spec.h"

#define WIRE_PROTOCOL 1
#define WIRE_MAX_REQUEST 512
#define WIRE_MAX_ID 65535u
#define WIRE_MAX_CPUS 8192u          /* per-CPU arrays in a reply */
/* The longest reply line: a per-CPU array of 20-digit numbers. */
#define WIRE_MAX_REPLY_LINE (WIRE_MAX_CPUS * 21 + 128)
/* A list line's spec and filters. */
#define WIRE_MAX_PROBE_LINE (SPEC_MAX_TEXT + 64)
#define WIRE_HIST_SLOTS 64           /* log2 slots of hist and runqlat lines */
#define WIRE_MAX_INSTANCE 63
#define WIRE_MAX_REASON 255          /* err REASON, a trace's REASON */
#define WIRE_MAX_DIR 255             /* a trace's directory */
#define WIRE_MAX_DROP_NAME 47
#define WIRE_MAX_PID 4194304u        /* the kernel's PID_MAX_LIMIT */
#define WIRE_MAX_COUNT (1u << 20)    /* lines an "ok N" announces */
#define WIRE_MAX_SLOTS (1u << 17)    /* ok maps: CM_MAX_PROC_SLOTS */
#define WIRE_MAX_CGMAP 65536u        /* ok cgmaps: entries */
#define WIRE_MAX_EXIT_RING (1u << 26) /* ok exits: bytes */

enum wire_verb { WIRE_HELLO, WIRE_ADD, WIRE_DEL, WIRE_LIST, WIRE_READ, WIRE_TRACE, WIRE_STOP,
		 WIRE_TRACES, WIRE_PROCS, WIRE_MAPS, WIRE_CGMAPS, WIRE_DIST, WIRE_UNDIST,
		 WIRE_DISTS, WIRE_EXITS };
/* The last verb (fuzz_wire reads a reply as each): a new one moves it. */
#define WIRE_VERB_LAST WIRE_EXITS

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
	struct dist_spec dist;       /* dist */
	struct dist_filter dfilter;  /* dist */
};

enum wire_line_status { WIRE_NEED_MORE, WIRE_LINE, WIRE_TOO_LONG };

/*
 * Takes the first complete line out of buf (len bytes held): copies it
 * without its newline (and a \r before it) into line[max + 1] and moves the
 * rest of buf to its start. WIRE_TOO_LONG when no newline comes within max
 * bytes.
 */
enum wire_line_status wire_take_line(char *buf, size_t *len, size_t max, char *line);

/* One request line: 0, or -1 with the reason in why. A trace's spec
 * "sched_switch" reads as tracepoint:sched:sched_switch. */
int wire_parse_request(const char *line, struct wire_request *req, char *why, size_t whylen);
/* The request line (with its newline) a client sends. */
int wire_format_request(const struct wire_request *req, char *buf, size_t len);
/* A trace's spec word (sched_switch, a tracepoint: or a raw_tracepoint:):
 * 0, or -1 with why. The trace request and clusterMonTraceSpec read it. */
int wire_parse_trace_spec(const char *word, struct probe_spec *out, char *why, size_t whylen);
/* One option word of a trace (pid=, cpu=, every=, duration=, bytes=,
 * buffer=) into f or l: 0, or -1 with why. */
int wire_trace_option(const char *word, struct probe_filter *f, struct trace_limits *l,
		      char *why, size_t whylen);
/* A trace request's default filter and limits. */
void wire_trace_defaults(struct wire_request *req);

/* ------------------------------------------------------------ replies */

enum wire_reply_kind {
	WIRE_R_HELLO,      /* ok clustermon-kprobe PROTOCOL INSTANCE */
	WIRE_R_OK,         /* ok | ok attached | ok unchanged */
	WIRE_R_ERR,        /* err CLASS REASON */
	WIRE_R_COUNT,      /* ok N: N lines follow */
	WIRE_R_STARTED,    /* ok started DIR */
	WIRE_R_MAPS,       /* ok maps SLOTS RINGS NCPU, with the fds */
	WIRE_R_CGMAPS,     /* ok cgmaps ENTRIES NCPU, with the fds */
	WIRE_R_EXITS,      /* ok exits BYTES, with the fd */
	WIRE_R_PROBE,      /* list: probe ID SPEC[ FILTERS] */
	WIRE_R_COUNTS,     /* read: probe ID HITS SAMPLED LOST NCPU HITS-CPU... */
	WIRE_R_HIST,       /* read: hist ID SUM SLOT0 ... SLOT63 */
	WIRE_R_BUSY,       /* read: busy NCPU NS-CPU... */
	WIRE_R_SWITCHES,   /* read: switches NCPU N-CPU... */
	WIRE_R_RUNQLAT,    /* read: runqlat SUM SLOT0 ... SLOT63 */
	WIRE_R_SENSORS,    /* read: sensors RETRANS DROPS RUNQLAT-LOST [PROCS-LOST] */
	WIRE_R_DROP,       /* read: drop REASON COUNT NAME */
	WIRE_R_PROC,       /* procs: proc TGID CPU-NS RUN-DELAY-NS MARK */
	WIRE_R_TRACE,      /* traces: trace ID STATE RECORDS LOST BYTES MS DIR REASON */
	WIRE_R_DIST,       /* dists: dist ID HITS SAMPLED MISSES SUM SLOT0 ... SLOT63 */
};

enum wire_ok { WIRE_OK_PLAIN, WIRE_OK_ATTACHED, WIRE_OK_UNCHANGED };
enum wire_err_class { WIRE_ERR_INVALID, WIRE_ERR_UNSUPPORTED, WIRE_ERR_FAILED, WIRE_ERR_BUSY };
enum wire_proc_mark { WIRE_PROC_RAN = 1, WIRE_PROC_EXITED = 2, WIRE_PROC_NEW = 3 };
enum wire_trace_state { WIRE_TRACE_RUNNING, WIRE_TRACE_FINISHED, WIRE_TRACE_FAILED };

/* The maps reply hands over proc_slots, ran_rings (writable: to the
 * trusted peer alone), cpu_state and proc_spill; the cgmaps reply
 * cgroup_sched and cpu_state, read-only; with SCM_RIGHTS on the line's
 * first byte (clustermon_kprobe.h lays them out). */
#define WIRE_MAPS_FDS 4
#define WIRE_CGMAPS_FDS 2
#define WIRE_EXITS_FDS 2

struct wire_reply {
	enum wire_reply_kind kind;
	union {
		struct { uint32_t protocol; char instance[WIRE_MAX_INSTANCE + 1]; } hello;
		enum wire_ok ok;
		struct { enum wire_err_class cls; char reason[WIRE_MAX_REASON + 1]; } err;
		uint64_t count;
		char started[WIRE_MAX_DIR + 1];
		struct { uint64_t slots, rings, ncpu; } maps;
		struct { uint64_t entries, ncpu; } cgmaps;
		uint64_t exits;    /* the ring's bytes */
		struct { uint32_t id; struct probe_spec spec; struct probe_filter filter; } probe;
		struct { uint32_t id; uint64_t hits, sampled, lost; } counts;
		struct { uint32_t id; uint64_t sum, slot[WIRE_HIST_SLOTS]; } hist; /* runqlat: id 0 */
		struct {
			uint64_t tcp_retransmits, skb_drops, runqlat_lost, procs_lost;
			bool has_procs_lost;   /* an older helper leaves it out */
		} sensors;
		struct { uint32_t reason; uint64_t count; char name[WIRE_MAX_DROP_NAME + 1]; } drop;
		struct { uint32_t tgid; uint64_t cpu_ns, run_delay_ns; enum wire_proc_mark mark; } proc;
		struct {
			uint32_t id;
			enum wire_trace_state state;
			uint64_t records, lost, bytes, elapsed_ms;
			char dir[WIRE_MAX_DIR + 1];
			char reason[WIRE_MAX_REASON + 1];   /* "" is written "-" */
		} trace;
		struct {
			uint32_t id;
			uint64_t hits, sampled, misses, sum, slot[WIRE_HIST_SLOTS];
		} dist;
	} u;
	/* counts, busy, switches: ncpu values (1..WIRE_MAX_CPUS). The parser
	 * mallocs them (wire_reply_free); a writer points at its own. */
	unsigned ncpu;
	uint64_t *cpu;
};

/* Writes one reply line with its newline: 0, or -1 when a field is out of
 * the protocol's bounds (nothing is then written) or the stream fails. */
int wire_write_reply(FILE *out, const struct wire_reply *r);
/* One reply line (without its newline) to the request verb: 0, or -1 with
 * why. verb tells the two "probe" lines apart (list against read).
 * Untrusted: every number and length is checked against the limits above. */
int wire_parse_reply(enum wire_verb verb, const char *line, struct wire_reply *r, char *why,
		     size_t whylen);
void wire_reply_free(struct wire_reply *r);
/* The short replies, for the helper: wire_write_reply's return. */
int wire_write_ok(FILE *out, enum wire_ok ok);
int wire_write_count(FILE *out, uint64_t n);
int wire_write_err(FILE *out, enum wire_err_class cls, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
const char *wire_err_class_name(enum wire_err_class c);

#endif
