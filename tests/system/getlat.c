/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * getlat.c - COUNT GETs of one instance, one after the other, each timed:
 * prints how many answered, how many took longer than LIMIT ms (a timeout
 * or an error counts as the 2 s timeout), the median, the p99 and the slowest.
 * tests/system/getload.sh and tests/bench/getload.sh judge what it prints.
 *
 * usage: getlat HOST:PORT COUNT LIMIT-MS OID
 * prints: answered N over M median-us A p99-us B max-us C
 */
#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "timed_get.h"

int main(int argc, char **argv)
{
	netsnmp_session init, *ss;
	oid name[MAX_OID_LEN];
	size_t len = MAX_OID_LEN;
	int n = argc == 5 ? atoi(argv[2]) : 0, answered = 0, over = 0;
	double limit_us = argc == 5 ? atof(argv[3]) * 1000 : 0;
	double *t = n > 0 ? calloc((size_t)n, sizeof(double)) : NULL;

	if (t == NULL || limit_us <= 0) {
		fprintf(stderr, "usage: getlat HOST:PORT COUNT LIMIT-MS OID\n");
		return 2;
	}
	netsnmp_ds_set_boolean(NETSNMP_DS_LIBRARY_ID, NETSNMP_DS_LIB_DISABLE_PERSISTENT_LOAD, 1);
	netsnmp_ds_set_boolean(NETSNMP_DS_LIBRARY_ID, NETSNMP_DS_LIB_DONT_PERSIST_STATE, 1);
	init_snmp("getlat");
	if (read_objid(argv[4], name, &len) == 0) {
		fprintf(stderr, "getlat: bad OID %s\n", argv[4]);
		return 2;
	}
	snmp_sess_init(&init);
	init.peername = argv[1];
	init.version = SNMP_VERSION_2c;
	init.community = (u_char *)"public";
	init.community_len = 6;
	init.timeout = 2000000;  /* a miss is a miss: no retry hides it */
	init.retries = 0;
	ss = snmp_open(&init);
	if (ss == NULL) {
		snmp_perror("getlat");
		return 1;
	}
	for (int i = 0; i < n; i++) {
		t[i] = timed_get(ss, name, len);
		if (t[i] >= 0)
			answered++;
		if (t[i] < 0)
			t[i] = init.timeout;  /* no answer: as slow as the timeout */
		if (t[i] > limit_us)
			over++;
	}
	qsort(t, (size_t)n, sizeof(double), cmp_double);
	printf("answered %d over %d median-us %.0f p99-us %.0f max-us %.0f\n", answered, over,
	       t[n / 2], t[(size_t)n * 99 / 100], t[n - 1]);
	snmp_close(ss);
	free(t);
	return 0;
}
