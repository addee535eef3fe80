/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * logq.h - log lines from threads that must not call net-snmp (its log is
 * not thread-safe and belongs to the SNMP thread): queued here, and written
 * by the SNMP thread through snmp_log at its next turn, so that -L's
 * destination holds for them too. Any thread may queue; the queue holds
 * LOGQ_LINES lines, and lines queued while it is full are counted, then
 * reported as one line.
 */
#ifndef CLUSTERMON_LOGQ_H
#define CLUSTERMON_LOGQ_H

#define LOGQ_LINES 32
#define LOGQ_LINE_MAX 256   /* longer lines are cut there */

/* Called after a line is queued (the SNMP thread's wake-up), or NULL. */
void logq_set_wake(void (*wake)(void));
/* Queues one line at a syslog priority (no trailing newline needed). */
void logq_printf(int priority, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Hands every queued line to emit, oldest first, then a line saying how
 * many were dropped, if any; the SNMP thread calls it. */
void logq_drain(void (*emit)(int priority, const char *line));

#endif
