/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * procread.h - what the scanner (procscan.c) uses of the reader
 * (procread.c) beyond proc.h: single files through its kept-open set, so the
 * scanner decides what a sample reads and the reader how.
 */
#ifndef CLUSTERMON_COLLECT_PROCREAD_H
#define CLUSTERMON_COLLECT_PROCREAD_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "proc.h"

/* stat through a kept fd when pid has (or, hot, may take) one; with sched
 * also schedstat. 0, or -1 with errno as proc_read. */
int proc_read_stat_kept(struct proc_reader *r, pid_t pid, bool hot, bool sched,
			struct proc_sample *o);
/* A single-threaded process's schedstat into o (have_schedstat). */
void proc_read_sched_kept(struct proc_reader *r, pid_t pid, struct proc_sample *o);
/* The command line, arguments joined by spaces ("" for kernel threads). */
int proc_read_cmdline(struct proc_reader *r, pid_t pid, char *out, size_t cap);

#endif
