/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * netstat.h - the "Prefix: Name Name ...\nPrefix: value value ..." tables of
 * /proc/net/snmp and /proc/net/netstat (Tcp:, TcpExt:, ...).
 */
#ifndef CLUSTERMON_NETSTAT_H
#define CLUSTERMON_NETSTAT_H

#include <stddef.h>
#include <stdint.h>

/*
 * Finds the header/value line pair of `prefix` (e.g. "Tcp") in buf and
 * stores the value of keys[i] into out[i], setting bit i of *found. A value
 * that is negative (Tcp MaxConn is -1) or not a number leaves its key
 * unfound. Returns 0, or -1 with EINVAL when the prefix's pair is missing,
 * cut, or has more values than names; then nothing is written. At most
 * 32 keys.
 */
int netstat_parse(const char *buf, const char *prefix, const char *const *keys, size_t nkeys,
		  uint64_t *out, uint32_t *found);

#endif
