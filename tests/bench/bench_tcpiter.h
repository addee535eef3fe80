/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * bench_tcpiter.h - what the parts of bench_tcpiter share: the load (a
 * child holding loopback connections in a netns of its own), the two ways
 * of reading the connection table, and their cost.
 */
#ifndef CLUSTERMON_BENCH_TCPITER_H
#define CLUSTERMON_BENCH_TCPITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/readings.h"

/* One pass's cost to the reading thread: CPU (exact, from the thread's
 * clock), user and system (getrusage, split by the tick), and the BPF
 * program's run time (bpf_stats; part of the system time). */
struct cost {
	int64_t cpu_ns, user_us, sys_us;
	uint64_t bpf_ns, bpf_runs;
};

/* The rows a pass read, as struct tcp_conn (what the tcp source keeps). */
struct rows {
	struct tcp_conn *v;
	size_t n, cap;
};

/* (b) or (c): an iterator, the program behind it, the rows it wrote. */
struct reader {
	const char *name;
	int link, prog;
	struct rows rows;
};

enum { READ_B, READ_C, READERS };

struct bench {
	int sockets;
	pid_t child;
	int ctl;                  /* the child's command socket */
	int diag;                 /* NETLINK_SOCK_DIAG */
	int stats;                /* bpf_stats while held */
	int adopt, tp_prog;       /* (c)'s first pass; its tracepoint */
	struct reader it[READERS];
	struct rows a, prev_a;
	size_t moved_a;           /* sockets that moved between the last two dumps */
	long checked, differ, set_differ;
};

/* Connections the load may open after the first pass (tcp_new's test). */
#define NEW_CONNS_MAX 64

/* tcpiter_load.c */
int own_netns(void);
int start_load(struct bench *b);
/* conns > 0: move that many connections; < 0: open that many more. */
int move_conns(struct bench *b, int conns);
void stop_load(struct bench *b);

/* tcpiter_pass.c */
int load_iter(struct bench *b, const char *obj);
int stats_set(struct bench *b, bool on);
void cost_now(int prog, struct cost *c);
void cost_since(int prog, const struct cost *t0, struct cost *c);
int pass_a(struct bench *b, struct cost *c);
int pass_it(struct bench *b, struct reader *r, struct cost *c);
int adopt_pass(struct bench *b, struct cost *c);
void moved_in_a(struct bench *b);
void check_rows(struct bench *b, const struct rows *r);

#endif
