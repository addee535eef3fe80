/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * state.h - what every part of clustermon-kprobe reads: its options, the
 * sensors, probes and trace sessions it keeps, and its log. The state is
 * in state.c, below both commands.c (the control socket's verbs) and
 * clustermon-kprobe.c (start-up, options, the clients and the poll loop),
 * so neither calls back into the other.
 */
#ifndef CLUSTERMON_KPROBE_STATE_H
#define CLUSTERMON_KPROBE_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "budget.h"
#include "policy.h"
#include "probes.h"
#include "sensors.h"
#include "trace.h"

#define MAX_PROBES 1024
#define MAX_TRACES 64
_Static_assert(MAX_TRACES <= BUDGET_SLOTS, "a budget slot for every running session");

struct helper_state {
	bool foreground;
	bool raw_tracepoints;      /* -r: never tp_btf for the sensors */
	unsigned sensors_on;       /* -S: the SENSOR_ bits (-n: runqlat alone) */
	const char *socket_path, *bpffs_dir, *group, *trace_dir, *user, *trace_group;
	gid_t gid;                 /* -g's group, (gid_t)-1 without -g */
	gid_t trace_gid;           /* -G's group, -g's without -G: reads traces */
	uid_t peer_uid;            /* -u's user, (uid_t)-1 without -u */
	char instance[64];
	struct sensors sensors;
	struct probe *probes[MAX_PROBES];
	size_t nprobes;
	struct trace_session *traces[MAX_TRACES];
	size_t ntraces;
	struct trace_budget budget;   /* -B -Q -R -K -A */
	const char *policy_path;      /* -P (NULL: POLICY_DEFAULT_PATH, may be absent) */
	struct policy policy;         /* what may be hooked */
	/* fds the reply being built carries (a maps request), sent with its
	 * first byte and closed after */
	int reply_fds[SENSORS_SHARED_MAPS];
	size_t nreply_fds;
};

extern struct helper_state helper;

/* To stderr in the foreground (-f), else to syslog at level. */
void say(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
