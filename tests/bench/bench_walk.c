/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * bench_walk.c - the time a poller takes to walk a subtree with GETBULK,
 * measured in-process (decoding every varbind, printing none), so the
 * figure is the agent's and the wire's, not a terminal's.
 *
 * usage: bench_walk HOST:PORT OID [MAX-REPETITIONS]
 * prints: "walk OID: N varbinds in T ms (U us a varbind)"
 */
#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static netsnmp_session *open_session(const char *peer)
{
	netsnmp_session init;

	snmp_sess_init(&init);
	init.peername = (char *)peer;
	init.version = SNMP_VERSION_2c;
	init.community = (u_char *)"public";
	init.community_len = 6;
	init.timeout = 5000000;
	init.retries = 1;
	return snmp_open(&init);
}

/* One GETBULK from cur; advances cur; returns varbinds inside root, -1 on error. */
static long bulk(netsnmp_session *ss, const oid *root, size_t rlen, oid *cur, size_t *clen,
		 long reps, int *done)
{
	netsnmp_pdu *pdu = snmp_pdu_create(SNMP_MSG_GETBULK), *resp = NULL;
	long n = 0;

	pdu->non_repeaters = 0;
	pdu->max_repetitions = reps;
	snmp_add_null_var(pdu, cur, *clen);
	if (snmp_synch_response(ss, pdu, &resp) != STAT_SUCCESS || resp == NULL ||
	    resp->errstat != SNMP_ERR_NOERROR) {
		if (resp)
			snmp_free_pdu(resp);
		return -1;
	}
	*done = 1;
	for (netsnmp_variable_list *v = resp->variables; v; v = v->next_variable) {
		if (v->type == SNMP_ENDOFMIBVIEW || v->name_length < rlen ||
		    snmp_oid_compare(v->name, rlen, root, rlen) != 0) {
			*done = 1;
			break;
		}
		n++;
		*done = 0;
		memcpy(cur, v->name, v->name_length * sizeof(oid));
		*clen = v->name_length;
	}
	snmp_free_pdu(resp);
	return n;
}

int main(int argc, char **argv)
{
	oid root[MAX_OID_LEN], cur[MAX_OID_LEN];
	size_t rlen = MAX_OID_LEN, clen;
	long reps = argc > 3 ? atol(argv[3]) : 50, total = 0, n;
	netsnmp_session *ss;
	int done = 0;
	double t0, ms;

	if (argc < 3 || reps < 1) {
		fprintf(stderr, "usage: bench_walk HOST:PORT OID [MAX-REPETITIONS]\n");
		return 2;
	}
	netsnmp_ds_set_boolean(NETSNMP_DS_LIBRARY_ID, NETSNMP_DS_LIB_DISABLE_PERSISTENT_LOAD, 1);
	init_snmp("bench_walk");
	if (!read_objid(argv[2], root, &rlen) || (ss = open_session(argv[1])) == NULL) {
		snmp_perror("bench_walk");
		return 1;
	}
	memcpy(cur, root, rlen * sizeof(oid));
	clen = rlen;
	t0 = now_ms();
	while (!done) {
		n = bulk(ss, root, rlen, cur, &clen, reps, &done);
		if (n < 0) {
			fprintf(stderr, "bench_walk: request failed after %ld varbinds\n", total);
			return 1;
		}
		total += n;
	}
	ms = now_ms() - t0;
	printf("walk %s: %ld varbinds in %.0f ms (%.2f us a varbind)\n", argv[2], total, ms,
	       total ? ms * 1000 / total : 0);
	snmp_close(ss);
	return total > 0 ? 0 : 1;
}
