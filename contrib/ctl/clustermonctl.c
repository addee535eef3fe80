/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * clustermonctl - look at a node's CLUSTER-MON-MIB without reading OIDs:
 * per-CPU bars, the busiest processes, histograms as bcc draws them, and
 * the probe table, managed too. SNMP options are snmpget's (snmpcmd(1)).
 *
 *   clustermonctl [SNMP OPTIONS] [-W SECONDS] HOST COMMAND [ARGS]
 *   clustermonctl [SNMP OPTIONS] -H HOST COMMAND [ARGS]
 *
 * Exit status: 0 done, 1 the node did not answer or clustermond is not
 * there, 2 refused (bad arguments, no write access, a probe that cannot
 * attach).
 */
#include "ctl.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *host_opt;
static int watch_seconds;
/* --cluster: the aggregator's contexts, one per node (contrib/cluster). */
static char *cluster_list;

/* Failures of an exchange, in clustermonctl's words. */
static void snmp_failed(enum cm_failure why, const char *detail)
{
	if (why == CM_TIMEOUT)
		die(EXIT_DOWN, "%s does not answer", cm_client.ss->peername);
	die(EXIT_DOWN, "talking to %s: %s", cm_client.ss->peername, detail);
}

/* clusterMonNodeName.0 first: a clear word when clustermond is not there. */
static void require_subagent(void)
{
	if (!cm_registered())
		die(EXIT_DOWN, "clustermond is not registered with the snmpd on %s",
		    cm_client.ss->peername);
}

/* ------------------------------------------------------------ main */

static const struct {
	const char *name;
	void (*run)(int argc, char **argv);
	bool writes;
} commands[] = {
	{ "overview", cmd_overview, false },
	{ "cpu", cmd_cpu, false },
	{ "sources", cmd_sources, false },
	{ "procs", cmd_procs, false },
	{ "cgroups", cmd_cgroups, false },
	{ "exits", cmd_exits, false },
	{ "jobs", cmd_jobs, false },
	{ "hist", cmd_hist, false },
	{ "hists", cmd_hists, false },
	{ "probes", cmd_probes, false },
	{ "probe", cmd_probe, true },
	{ "nodes", cmd_nodes, false },
	{ "tcp", cmd_tcp, false },
	{ "history", cmd_history, false },
	{ "thresholds", cmd_thresholds, false },
	{ "threshold", cmd_threshold, true },
	{ "traces", cmd_traces, false },
	{ "trace", cmd_trace, true },
	{ "dist", cmd_dist, true },
};

/* The command on the one node, or on each node of --cluster in turn (a
 * node that fails is reported and skipped: the others still show). */
static void run_everywhere(void (*run)(int, char **), int argc, char **argv, bool headers)
{
	char *list, *save = NULL;

	if (cluster_list == NULL) {
		require_subagent();
		run(argc, argv);
		return;
	}
	list = strdup(cluster_list);
	for (char *node = strtok_r(list, ",", &save); node; node = strtok_r(NULL, ",", &save)) {
		pid_t pid;
		int status;

		cm_client.context = node;
		if (headers)
			printf("== %s\n", node);
		fflush(stdout);
		/* One node per child, so a node that is down (die) does not end the rest. */
		pid = fork();
		if (pid == 0) {
			require_subagent();
			run(argc, argv);
			fflush(stdout);
			_exit(0);
		}
		if (pid > 0)
			waitpid(pid, &status, 0);
	}
	cm_client.context = NULL;
	free(list);
}

static void usage(void)
{
	fprintf(stderr,
		"usage: clustermonctl [SNMP OPTIONS] [-W SECONDS] HOST COMMAND [ARGS]\n"
		"       clustermonctl [SNMP OPTIONS] [-W SECONDS] -H HOST COMMAND [ARGS]\n"
		"commands:\n"
		"  overview               one screen: node, CPUs, memory, top processes,\n"
		"                         a distribution, the sources\n"
		"  cpu                    per-CPU utilisation bars\n"
		"  sources                the sampling sources: interval, cost, samples\n"
		"  procs [N]              the N busiest processes (default 20)\n"
		"  cgroups [N] [sort=cpu|mem|throttle|oom|runqlat]\n"
		"                         the N busiest cgroups over one second (default 20)\n"
		"  exits [N]              the N processes that ended last (default 20)\n"
		"  jobs ended [N]         the N cgroups removed last, with their totals\n"
		"  hists                  the distributions served\n"
		"  hist NAME              a distribution as log2 buckets, with p50/p90/p99\n"
		"  probes                 the probe table\n"
		"  probe add SPEC [pid=N] [cpu=N] [every=N]\n"
		"  probe del INDEX\n"
		"  nodes                  one line per node (with --cluster)\n"
		"  tcp                    TCP connections with RTT, cwnd, retransmits\n"
		"  history NAME           a history row's bucket means as a sparkline\n"
		"  thresholds             the threshold table\n"
		"  threshold add NAME OID rising=N falling=N [delta] [interval=MS]\n"
		"  traces                 the trace sessions (same as trace list)\n"
		"  trace add SPEC [pid=N] [cpu=N] [every=N] [duration=MS] [bytes=N] [buffer=N]\n"
		"                         record SPEC (sched_switch, tracepoint:CAT:NAME, ...) as CTF\n"
		"  trace stop INDEX | trace show INDEX\n"
		"  dist [list]            the distribution rows (clusterMonDistTable)\n"
		"  dist specs             ready specs: biolatency, readlat, writelat, readsize, tcpsend\n"
		"  dist add SPEC|READY [pid=N] [cpu=N] [every=N] [cgroup=PATH] [inflight=N]\n"
		"  dist del INDEX | dist show INDEX (drawn as hist draws it)\n"
		"--cluster NODE,NODE,...: run COMMAND on each node through an aggregator\n"
		"  (HOST) that proxies them as SNMPv3 contexts (contrib/cluster).\n"
		"-W (or --watch) SECONDS: redraw every SECONDS until interrupted.\n"
		"SNMP OPTIONS as snmpget takes them (-v 2c -c COMMUNITY, -v 3 -u -l -a -A -x -X).\n");
	exit(EXIT_REFUSED);
}

static void local_option(int argc, char *const *argv, int opt)
{
	(void)argc, (void)argv;
	switch (opt) {
	case 'W': {
		long v;

		if (!ctl_number(optarg, 1, INT_MAX, &v))
			die(EXIT_REFUSED, "-W takes a number of seconds (1 or more)");
		watch_seconds = (int)v;
		break;
	}
	default: usage();
	}
}

/* "--watch" is -W: net-snmp's option parser knows no long options. And -H
 * is its own (print config directives), so "-H HOST" is taken out here. */
static int own_options(int argc, char **argv)
{
	int out = 1;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--watch") == 0) {
			argv[out++] = "-W";
		} else if (strcmp(argv[i], "-H") == 0 && i + 1 < argc && host_opt == NULL) {
			host_opt = argv[++i];
		} else if (strcmp(argv[i], "--cluster") == 0 && i + 1 < argc) {
			cluster_list = argv[++i];
		} else {
			argv[out++] = argv[i];
		}
	}
	argv[out] = NULL;
	return out;
}

int main(int argc, char **argv)
{
	netsnmp_session session;
	int arg;

	setenv("MIBS", "", 1);
	argc = own_options(argc, argv);
	netsnmp_ds_set_boolean(NETSNMP_DS_LIBRARY_ID, NETSNMP_DS_LIB_DONT_PERSIST_STATE, 1);
	arg = snmp_parse_args(argc, argv, &session, "W:", local_option);
	if (arg == NETSNMP_PARSE_ARGS_ERROR_USAGE || arg < 0)
		usage();
	/* With -H the parser took the command for the host: give it back. */
	if (host_opt != NULL) {
		arg--;
		session.peername = (char *)host_opt;
	}
	if (arg >= argc)
		usage();
	cm_client.ss = snmp_open(&session);
	cm_client.fail = snmp_failed;
	/* snmp_open copied the community snmp_parse_args allocated. */
	free(session.community);
	session.community = NULL;
	if (cm_client.ss == NULL)
		die(EXIT_DOWN, "cannot open an SNMP session to %s", session.peername);
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (strcmp(argv[arg], commands[i].name) != 0)
			continue;
		do {
			if (watch_seconds > 0 && !commands[i].writes)
				printf("\033[H\033[2J%s: %s, every %d s\n\n", cm_client.ss->peername, argv[arg],
				       watch_seconds);
			run_everywhere(commands[i].run, argc - arg - 1, argv + arg + 1,
				       commands[i].run != cmd_nodes);
			fflush(stdout);
		} while (watch_seconds > 0 && !commands[i].writes && sleep((unsigned)watch_seconds) == 0);
		snmp_close(cm_client.ss);
		snmp_shutdown("clustermonctl");
		return 0;
	}
	die(EXIT_REFUSED, "unknown command '%s'", argv[arg]);
}
