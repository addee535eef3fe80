/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ctl.h - what clustermonctl's files share: its exit codes, die() and the
 * other helpers of ctlutil.c, and the commands main() dispatches to
 * (views.c reads, rows.c creates rows; views.c may ask rows.c, never the
 * other way round).
 */
#ifndef CLUSTERMON_CTL_H
#define CLUSTERMON_CTL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "snmpclient.h"

#define EXIT_DOWN 1      /* the node did not answer, or clustermond is not there */
#define EXIT_REFUSED 2   /* bad arguments, no write access, a probe that cannot attach */

void die(int code, const char *fmt, ...) __attribute__((noreturn, format(printf, 2, 3)));
/* text is one decimal number in lo..hi (common/number.h's rules): into *out. */
bool ctl_number(const char *text, long lo, long hi, long *out);
/* A new zeroed element at the end of *rows (n, cap grown as needed), each
 * SIZE bytes; out of memory ends the program. */
void *ctl_append(void **rows, size_t *n, size_t *cap, size_t size);
/* v in decimal, in one of four rotating buffers (four per printf). */
const char *u64_text(uint64_t v);

/* views.c */
void cmd_overview(int argc, char **argv);
void cmd_cpu(int argc, char **argv);
void cmd_sources(int argc, char **argv);
void cmd_procs(int argc, char **argv);
void cmd_hist(int argc, char **argv);
void cmd_hists(int argc, char **argv);
void cmd_nodes(int argc, char **argv);
void cmd_tcp(int argc, char **argv);
void cmd_history(int argc, char **argv);
/* Draws distribution NAME as `hist` does; false if the node has none. */
bool ctl_show_hist(const char *name, size_t width);
/* cgroups.c */
void cmd_cgroups(int argc, char **argv);
/* ended.c */
void cmd_exits(int argc, char **argv);
void cmd_jobs(int argc, char **argv);
/* rows.c */
size_t probe_count(void);   /* rows of clusterMonProbeTable */
void cmd_probes(int argc, char **argv);
void cmd_probe(int argc, char **argv);
void cmd_thresholds(int argc, char **argv);
void cmd_threshold(int argc, char **argv);
void cmd_traces(int argc, char **argv);
void cmd_trace(int argc, char **argv);
/* The lowest free index of a read-create table; a SET's error status; the
 * OperStatus a just-activated row settles on (down(2) while waiting). */
oid ctl_free_index(const oid *entry, size_t entry_len, unsigned status_col);
long ctl_set(netsnmp_pdu *pdu);
/* Column col of row index of a one-index table: a number (0 if absent), a string. */
uint64_t ctl_col_num(const oid *entry, size_t entry_len, unsigned col, oid index);
void ctl_col_str(const oid *entry, size_t entry_len, unsigned col, oid index, char *buf,
		 size_t len);
/* argv[0] as the index of an existing row (its status column read), or die
 * naming what: "trace stop", "dist show". */
oid ctl_row_arg(int argc, char **argv, const oid *entry, size_t entry_len, unsigned status_col,
		const char *what);
uint64_t ctl_attach_outcome(const oid *entry, size_t entry_len, unsigned oper_col, oid index);
/* dists.c */
void cmd_dist(int argc, char **argv);

#endif
