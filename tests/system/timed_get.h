/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * timed_get.h - one timed SNMP GET, for tests/system/getlat.c and
 * tests/bench/bench_get.c (header only; needs net-snmp's headers first).
 */
#ifndef CLUSTERMON_TIMED_GET_H
#define CLUSTERMON_TIMED_GET_H

#include <time.h>

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

/* One GET's round trip in us; -1 for a timeout, an error or no value. */
static double timed_get(netsnmp_session *ss, const oid *name, size_t len)
{
	netsnmp_pdu *pdu = snmp_pdu_create(SNMP_MSG_GET), *resp = NULL;
	double t0, dt = -1;

	snmp_add_null_var(pdu, name, len);
	t0 = now_us();
	if (snmp_synch_response(ss, pdu, &resp) == STAT_SUCCESS && resp != NULL &&
	    resp->errstat == SNMP_ERR_NOERROR && resp->variables != NULL &&
	    resp->variables->type != SNMP_NOSUCHOBJECT &&
	    resp->variables->type != SNMP_NOSUCHINSTANCE &&
	    resp->variables->type != SNMP_ENDOFMIBVIEW)
		dt = now_us() - t0;
	if (resp != NULL)
		snmp_free_pdu(resp);
	return dt;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

#endif
