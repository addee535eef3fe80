/* SPDX-License-Identifier: BSD-2-Clause */
/* snmpclient.c - the client tools' SNMP calls (snmpclient.h). */
#include "snmpclient.h"

#include <stdlib.h>
#include <string.h>

#include "mib/cm-oids.h"

struct cm_client cm_client;

netsnmp_pdu *cm_exchange(netsnmp_pdu *pdu)
{
	netsnmp_pdu *response = NULL;
	int rc;

	if (cm_client.context != NULL) {
		pdu->contextName = strdup(cm_client.context);
		pdu->contextNameLen = strlen(cm_client.context);
	}
	rc = snmp_synch_response(cm_client.ss, pdu, &response);
	if (rc == STAT_TIMEOUT)
		cm_client.fail(CM_TIMEOUT, "");
	if (rc != STAT_SUCCESS || response == NULL)
		cm_client.fail(CM_ERROR, snmp_api_errstring(snmp_errno));
	return response;
}

netsnmp_pdu *cm_request(int type, const oid *name, size_t len)
{
	netsnmp_pdu *pdu = snmp_pdu_create(type);

	snmp_add_null_var(pdu, name, len);
	return cm_exchange(pdu);
}

bool cm_is_number(const netsnmp_variable_list *v)
{
	return v != NULL && (v->type == ASN_INTEGER || v->type == ASN_GAUGE ||
			     v->type == ASN_COUNTER || v->type == ASN_COUNTER64 ||
			     v->type == ASN_TIMETICKS || v->type == ASN_UINTEGER);
}

uint64_t cm_number_of(const netsnmp_variable_list *v)
{
	if (v->type == ASN_COUNTER64)
		return ((uint64_t)v->val.counter64->high << 32) | v->val.counter64->low;
	if (v->type == ASN_INTEGER)
		return (uint64_t)(int64_t)*v->val.integer;
	return (uint64_t)(unsigned long)*v->val.integer;
}

double cm_double_of(const netsnmp_variable_list *v)
{
	if (v->type == ASN_INTEGER)
		return (double)*v->val.integer;
	return (double)cm_number_of(v);
}

void cm_walk(const oid *col, size_t col_len, cm_walk_fn fn, void *arg)
{
	cm_walk_from(col, col_len, NULL, 0, fn, arg);
}

void cm_walk_from(const oid *col, size_t col_len, const oid *from, size_t from_len,
		  cm_walk_fn fn, void *arg)
{
	oid name[MAX_OID_LEN];
	size_t len = col_len + from_len;

	if (len > MAX_OID_LEN)
		return;
	memcpy(name, col, col_len * sizeof(oid));
	if (from_len)
		memcpy(name + col_len, from, from_len * sizeof(oid));
	for (;;) {
		netsnmp_pdu *r = cm_request(SNMP_MSG_GETNEXT, name, len);
		netsnmp_variable_list *v = r->variables;

		/* An error status is SNMPv1's end of the view (noSuchName). */
		if (r->errstat != SNMP_ERR_NOERROR || v == NULL || v->type == SNMP_ENDOFMIBVIEW ||
		    v->name_length <= col_len || v->name_length > MAX_OID_LEN ||
		    snmp_oid_compare(v->name, col_len, col, col_len) != 0) {
			snmp_free_pdu(r);
			return;
		}
		memcpy(name, v->name, v->name_length * sizeof(oid));
		len = v->name_length;
		fn(v->name + col_len, v->name_length - col_len, v, arg);
		snmp_free_pdu(r);
	}
}

void cm_walk_entry(const oid *entry, size_t entry_len, unsigned col, cm_walk_fn fn, void *arg)
{
	oid name[MAX_OID_LEN];

	memcpy(name, entry, entry_len * sizeof(oid));
	name[entry_len] = col;
	cm_walk(name, entry_len + 1, fn, arg);
}

bool cm_get_number(const oid *base, size_t base_len, const oid *index, size_t n, uint64_t *out)
{
	oid name[MAX_OID_LEN];
	netsnmp_pdu *r;
	bool found;

	memcpy(name, base, base_len * sizeof(oid));
	memcpy(name + base_len, index, n * sizeof(oid));
	r = cm_request(SNMP_MSG_GET, name, base_len + n);
	found = r->errstat == SNMP_ERR_NOERROR && cm_is_number(r->variables);
	if (found)
		*out = cm_number_of(r->variables);
	snmp_free_pdu(r);
	return found;
}

bool cm_registered(void)
{
	static const oid node_name[] = { CM_OID_clusterMonNodeName, 0 };
	netsnmp_pdu *r = cm_request(SNMP_MSG_GET, node_name, OID_LENGTH(node_name));
	bool there = r->errstat == SNMP_ERR_NOERROR && r->variables != NULL &&
		     r->variables->type == ASN_OCTET_STR;

	snmp_free_pdu(r);
	return there;
}

void cm_get_string(const oid *base, size_t base_len, const oid *index, size_t n, char *buf,
		   size_t len)
{
	oid name[MAX_OID_LEN];
	netsnmp_pdu *r;
	netsnmp_variable_list *v;

	memcpy(name, base, base_len * sizeof(oid));
	memcpy(name + base_len, index, n * sizeof(oid));
	r = cm_request(SNMP_MSG_GET, name, base_len + n);
	v = r->variables;
	buf[0] = '\0';
	if (r->errstat == SNMP_ERR_NOERROR && v != NULL && v->type == ASN_OCTET_STR)
		snprintf(buf, len, "%.*s", (int)v->val_len, (const char *)v->val.string);
	snmp_free_pdu(r);
}

void cm_add_column(netsnmp_pdu *pdu, const oid *entry, size_t entry_len, unsigned col,
		   oid index, u_char type, const void *val, size_t len)
{
	oid name[MAX_OID_LEN];

	memcpy(name, entry, entry_len * sizeof(oid));
	name[entry_len] = col;
	name[entry_len + 1] = index;
	snmp_pdu_add_variable(pdu, name, entry_len + 2, type, val, len);
}
