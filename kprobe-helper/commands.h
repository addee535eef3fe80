/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * commands.h - the control socket's verbs (common/wire.h): each request
 * line served into a reply, the hook policy, and the trace sessions kept
 * running between requests. clustermon-kprobe.c reads the lines and polls;
 * this file does what they ask.
 */
#ifndef CLUSTERMON_KPROBE_COMMANDS_H
#define CLUSTERMON_KPROBE_COMMANDS_H

#include <stdio.h>

#include "peers.h"

/* Reads the policy (-P, or the default path, which may be absent): 0, or
 * -1 with why, the policy in force unchanged. */
int load_policy(char *why, size_t whylen);
/* SIGHUP: the policy again, for the requests that follow (hooks made
 * already stay); a file now bad leaves the old one in force. */
void reload_policy(void);
/* One request line from peer, its reply into out (fds it hands over in
 * helper.reply_fds). */
void serve_request(const struct peer *peer, const char *line, FILE *out);
/* Drains every running session; the poll timeout until the next drain or
 * duration limit (-1: no session runs). */
int drain_traces(void);
/* Retention (-K, -A) after a session ended, and at start. */
void retain_traces(void);
/* At exit: every session ended, every probe and distribution detached. */
void commands_stop_all(void);

#endif
