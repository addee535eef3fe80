/* SPDX-License-Identifier: BSD-2-Clause */
/* logq.c - log lines from other threads for the SNMP thread (logq.h). */
#include "logq.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <syslog.h>

static struct {
	pthread_mutex_t lock;
	struct { int priority; char text[LOGQ_LINE_MAX]; } line[LOGQ_LINES];
	unsigned head, count, dropped;
	void (*wake)(void);
} q = { .lock = PTHREAD_MUTEX_INITIALIZER };

void logq_set_wake(void (*wake)(void))
{
	pthread_mutex_lock(&q.lock);
	q.wake = wake;
	pthread_mutex_unlock(&q.lock);
}

void logq_printf(int priority, const char *fmt, ...)
{
	void (*wake)(void);
	va_list ap;

	pthread_mutex_lock(&q.lock);
	if (q.count == LOGQ_LINES) {
		q.dropped++;
	} else {
		unsigned at = (q.head + q.count++) % LOGQ_LINES;

		q.line[at].priority = priority;
		va_start(ap, fmt);
		vsnprintf(q.line[at].text, sizeof(q.line[at].text), fmt, ap);
		va_end(ap);
	}
	wake = q.wake;
	pthread_mutex_unlock(&q.lock);
	if (wake != NULL)
		wake();
}

/* One line taken off under the lock, emitted outside it: emit may be slow
 * (a file, syslog) and must not hold up the threads that queue. */
static int take(int *priority, char *text)
{
	int got = 0;

	pthread_mutex_lock(&q.lock);
	if (q.count > 0) {
		*priority = q.line[q.head].priority;
		snprintf(text, LOGQ_LINE_MAX, "%s", q.line[q.head].text);
		q.head = (q.head + 1) % LOGQ_LINES;
		q.count--;
		got = 1;
	} else if (q.dropped > 0) {
		*priority = LOG_WARNING;
		snprintf(text, LOGQ_LINE_MAX, "clustermond: %u log lines dropped (the queue was full)",
			 q.dropped);
		q.dropped = 0;
		got = 1;
	}
	pthread_mutex_unlock(&q.lock);
	return got;
}

void logq_drain(void (*emit)(int priority, const char *line))
{
	char text[LOGQ_LINE_MAX];
	int priority;

	while (take(&priority, text))
		emit(priority, text);
}
