/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * snmpclient.h - the SNMP calls clustermonctl and check_clustermon share:
 * one exchange with one way to fail, numbers out of varbinds (one list of
 * the numeric types), GETNEXT walks of a column, and "is clustermond there".
 * Each tool opens its session and words its own failures.
 */
#ifndef CLUSTERMON_SNMPCLIENT_H
#define CLUSTERMON_SNMPCLIENT_H

#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>

#include <stdbool.h>
#include <stdint.h>

enum cm_failure {
	CM_TIMEOUT,   /* the node did not answer */
	CM_ERROR,     /* the exchange failed: detail says how */
};

struct cm_client {
	netsnmp_session *ss;
	const char *context;   /* an SNMPv3 context (an aggregator's node), or NULL */
	/* Says why the node cannot be asked; must not return. */
	void (*fail)(enum cm_failure why, const char *detail);
};
/* The tools' one session: each fills it in before its first request. */
extern struct cm_client cm_client;

/* Sends pdu (freed); the response, which the caller frees. Never NULL. */
netsnmp_pdu *cm_exchange(netsnmp_pdu *pdu);
/* One GET or GETNEXT of name: the response (cm_exchange's). */
netsnmp_pdu *cm_request(int type, const oid *name, size_t len);

bool cm_is_number(const netsnmp_variable_list *v);
/* INTEGER sign-extended, the unsigned types as they are. */
uint64_t cm_number_of(const netsnmp_variable_list *v);
/* The same as a double: INTEGER keeps its sign. */
double cm_double_of(const netsnmp_variable_list *v);

typedef void (*cm_walk_fn)(const oid *index, size_t len, const netsnmp_variable_list *v,
			   void *arg);
/* fn for each instance under col, with its index (the OID after col); fn may
 * make requests of its own. Ends where the subtree or the view ends. */
void cm_walk(const oid *col, size_t col_len, cm_walk_fn fn, void *arg);
/* The same from the instance after col.from (from_len sub-identifiers). */
void cm_walk_from(const oid *col, size_t col_len, const oid *from, size_t from_len,
		  cm_walk_fn fn, void *arg);
/* The same for column col of a table entry. */
void cm_walk_entry(const oid *entry, size_t entry_len, unsigned col, cm_walk_fn fn, void *arg);
/* The number at base.index (n sub-identifiers); false when absent. */
bool cm_get_number(const oid *base, size_t base_len, const oid *index, size_t n, uint64_t *out);
/* The string at base.index into buf ("" when absent). */
void cm_get_string(const oid *base, size_t base_len, const oid *index, size_t n, char *buf,
		   size_t len);
/* Adds entry.col.index = val (of type, len bytes) to a SET's pdu. */
void cm_add_column(netsnmp_pdu *pdu, const oid *entry, size_t entry_len, unsigned col,
		   oid index, u_char type, const void *val, size_t len);
/* clusterMonNodeName.0 is served: clustermond is registered with the snmpd. */
bool cm_registered(void);

#endif
