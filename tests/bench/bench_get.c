/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * bench_get.c - GET latency through the master: an object clustermond
 * serves over AgentX against sysUpTime.0, which snmpd answers itself.
 * Requests alternate so both see the same machine noise.
 *
 * usage: bench_get HOST:PORT [COUNT [RATIO-TARGET P99-TARGET [PATH]]]
 * (defaults: 2000 requests, the AgentX path's targets 1.4 and 3)
 */
#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../system/timed_get.h"

#include "mib/cm-oids.h"

static const oid sys_uptime[] = { 1, 3, 6, 1, 2, 1, 1, 3, 0 };
static const oid cpu_util_1[] = { CM_OID_clusterMonCpuUtil, 1 };

int main(int argc, char **argv)
{
	netsnmp_session init, *ss;
	int n = argc > 2 ? atoi(argv[2]) : 2000;
	double *ours = calloc(n, sizeof(double)), *base = calloc(n, sizeof(double));
	double med_ours, med_base, p99_ours;
	double target = argc > 3 ? atof(argv[3]) : 1.4, p99_target = argc > 4 ? atof(argv[4]) : 3;
	const char *path = argc > 5 ? argv[5] : "AgentX";

	if (argc < 2 || n < 10 || !ours || !base) {
		fprintf(stderr, "usage: bench_get HOST:PORT [COUNT>=10]\n");
		return 2;
	}
	netsnmp_ds_set_boolean(NETSNMP_DS_LIBRARY_ID, NETSNMP_DS_LIB_DISABLE_PERSISTENT_LOAD, 1);
	init_snmp("bench_get");
	snmp_sess_init(&init);
	init.peername = argv[1];
	init.version = SNMP_VERSION_2c;
	init.community = (u_char *)"public";
	init.community_len = 6;
	init.timeout = 1000000;
	ss = snmp_open(&init);
	if (ss == NULL) {
		snmp_perror("bench_get");
		return 1;
	}
	for (int i = 0; i < n; i++) {
		base[i] = timed_get(ss, sys_uptime, OID_LENGTH(sys_uptime));
		ours[i] = timed_get(ss, cpu_util_1, OID_LENGTH(cpu_util_1));
		if (base[i] < 0 || ours[i] < 0) {
			fprintf(stderr, "bench_get: request %d failed\n", i);
			return 1;
		}
	}
	qsort(ours, n, sizeof(double), cmp_double);
	qsort(base, n, sizeof(double), cmp_double);
	med_ours = ours[n / 2];
	med_base = base[n / 2];
	p99_ours = ours[n * 99 / 100];
	printf("GET clusterMonCpuUtil.1 (%s): median %.1f us, p99 %.1f us (%.2fx its median)\n",
	       path, med_ours, p99_ours, p99_ours / med_ours);
	printf("GET sysUpTime.0 (snmpd itself): median %.1f us, p99 %.1f us (%.2fx its median:"
	       " the machine's own tail)\n", med_base, base[n * 99 / 100],
	       base[n * 99 / 100] / med_base);
	printf("median ratio clustermond/snmpd: %.2f (target <= %g); p99/median %.2f (target < %g)\n",
	       med_ours / med_base, target, p99_ours / med_ours, p99_target);
	snmp_close(ss);
	free(ours);
	free(base);
	return 0;
}
