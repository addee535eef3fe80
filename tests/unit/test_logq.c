/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_logq.c - the queue of log lines other threads hand to the SNMP
 * thread: lines come out in order with their priorities, a full queue
 * counts what it drops and says so once, the wake-up runs for each line,
 * and under four writing threads and a draining one every line is either
 * emitted or counted as dropped.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>

#include "runtime/logq.h"
#include "tap.h"

static char got[64][LOGQ_LINE_MAX];
static int got_prio[64];
static int ngot;
static atomic_uint wakes;
static atomic_uint emitted, reported_drops;

static void keep(int priority, const char *line)
{
	if (ngot < 64) {
		got_prio[ngot] = priority;
		snprintf(got[ngot], sizeof(got[ngot]), "%s", line);
	}
	ngot++;
}

static void wake(void)
{
	wakes++;
}

static void count(int priority, const char *line)
{
	unsigned n;

	(void)priority;
	if (sscanf(line, "clustermond: %u log lines dropped", &n) == 1)
		reported_drops += n;
	else
		emitted++;
}

static void *writer(void *arg)
{
	for (int i = 0; i < 1000; i++)
		logq_printf(LOG_INFO, "writer %d line %d", *(int *)arg, i);
	return NULL;
}

static void *drainer(void *arg)
{
	atomic_int *done = arg;

	while (!*done)
		logq_drain(count);
	return NULL;
}

int main(void)
{
	char long_line[LOGQ_LINE_MAX * 2];
	pthread_t w[4], d;
	atomic_int done = 0;
	int id[4] = { 0, 1, 2, 3 };

	logq_set_wake(wake);
	logq_printf(LOG_ERR, "first %d", 1);
	logq_printf(LOG_INFO, "second");
	logq_drain(keep);
	ok(ngot == 2 && strcmp(got[0], "first 1") == 0 && got_prio[0] == LOG_ERR &&
		   strcmp(got[1], "second") == 0 && got_prio[1] == LOG_INFO,
	   "lines come out in order with their priorities");
	ok(wakes == 2, "the wake-up runs once a line (%u)", (unsigned)wakes);

	ngot = 0;
	for (int i = 0; i < LOGQ_LINES + 5; i++)
		logq_printf(LOG_INFO, "line %d", i);
	logq_drain(keep);
	ok(ngot == LOGQ_LINES + 1 && strcmp(got[LOGQ_LINES - 1], "line 31") == 0,
	   "a full queue keeps the first %d lines", LOGQ_LINES);
	ok(strcmp(got[LOGQ_LINES], "clustermond: 5 log lines dropped (the queue was full)") == 0 &&
		   got_prio[LOGQ_LINES] == LOG_WARNING,
	   "and says once how many it dropped: '%s'", got[LOGQ_LINES]);
	ngot = 0;
	logq_drain(keep);
	ok(ngot == 0, "then it is empty");

	memset(long_line, 'x', sizeof(long_line) - 1);
	long_line[sizeof(long_line) - 1] = '\0';
	logq_printf(LOG_INFO, "%s", long_line);
	logq_drain(keep);
	ok(ngot == 1 && strlen(got[0]) == LOGQ_LINE_MAX - 1, "a long line is cut at %d bytes",
	   LOGQ_LINE_MAX - 1);

	logq_set_wake(NULL);
	pthread_create(&d, NULL, drainer, &done);
	for (int i = 0; i < 4; i++)
		pthread_create(&w[i], NULL, writer, &id[i]);
	for (int i = 0; i < 4; i++)
		pthread_join(w[i], NULL);
	done = 1;
	pthread_join(d, NULL);
	logq_drain(count);
	ok(emitted + reported_drops == 4000, "four threads' 4000 lines: %u emitted, %u dropped",
	   (unsigned)emitted, (unsigned)reported_drops);
	return done_testing();
}
