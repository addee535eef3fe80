/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * inetdiag.h - TCP sockets with their struct tcp_info from the kernel's
 * sock_diag (inet_diag) netlink interface, for clusterMonTcpConnTable.
 * No net-snmp headers here (see docs/architecture.md).
 *
 * tcp_info grows with every kernel: a field is marked present only when the
 * kernel's copy reached it, so an older kernel's missing fields read as
 * absent instead of zero, and a newer kernel's extra fields are ignored.
 */
#ifndef CLUSTERMON_INETDIAG_H
#define CLUSTERMON_INETDIAG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../core/readings.h"

/* Called for each socket of a dump; a non-zero return stops the dump. */
typedef int (*tcp_conn_fn)(const struct tcp_conn *c, void *arg);

/*
 * One buffer of netlink messages as recv() returned it: calls fn for each
 * socket. Returns 1 after NLMSG_DONE, 0 when more buffers follow, -1 with
 * errno set on NLMSG_ERROR (the kernel's errno) or a malformed message
 * (EBADMSG), or what fn returned if it stopped the dump.
 */
int inetdiag_parse(const void *buf, size_t len, tcp_conn_fn fn, void *arg);

/* A NETLINK_SOCK_DIAG socket (close it with close()), or -1. */
int inetdiag_open(void);

#define INETDIAG_BC_MAX (INETDIAG_MAX_TERMS * 36)

/* inet_diag bytecode keeping sockets that meet every term, so the kernel
 * filters before copying anything out; its length, or -1 if too long or
 * an address term asks for either end. */
int inetdiag_filter(const struct diag_term *terms, size_t n, uint8_t *out, size_t cap);

/* All TCP sockets of one family (AF_INET, AF_INET6) in the states of the
 * bit mask (1 << TCP_ESTABLISHED | ...), with tcp_info, that pass the
 * bytecode (NULL/0: all); 0 or -1. */
int inetdiag_dump(int fd, int family, uint32_t states, const uint8_t *bc, size_t bclen,
		  tcp_conn_fn fn, void *arg);

#endif
