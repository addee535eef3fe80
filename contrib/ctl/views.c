/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * views.c - clustermonctl's read-only screens: CPUs, processes, histograms,
 * TCP connections, histories, nodes, sources and the overview.
 */
#include "ctl.h"

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "mib/cm-oids.h"

static uint64_t min_of(const uint64_t *v, size_t n)
{
	uint64_t m = v[0];

	for (size_t i = 1; i < n; i++)
		m = v[i] < m ? v[i] : m;
	return m;
}

static uint64_t max_of(const uint64_t *v, size_t n)
{
	uint64_t m = v[0];

	for (size_t i = 1; i < n; i++)
		m = v[i] > m ? v[i] : m;
	return m;
}

/* ------------------------------------------------------------ cpu */

static void print_cpu(const oid *index, size_t len, const netsnmp_variable_list *v, void *arg)
{
	char bar[48];
	double pct = (double)cm_number_of(v) / 100.0;

	(void)arg;
	if (len != 1 || !cm_is_number(v))
		return;
	fmt_bar(bar, 40, pct / 100.0);
	printf("cpu%-4lu %s %6.2f%%\n", (unsigned long)index[0] - 1, bar, pct);
}

void cmd_cpu(int argc, char **argv)
{
	static const oid util[] = { CM_OID_clusterMonCpuUtil };
	static const oid total[] = { CM_OID_clusterMonCpuTotalUtil };
	static const oid zero[] = { 0 };
	uint64_t t = 0;
	char bar[48];

	(void)argc, (void)argv;
	cm_walk(util, OID_LENGTH(util), print_cpu, NULL);
	if (cm_get_number(total, OID_LENGTH(total), zero, 1, &t)) {
		fmt_bar(bar, 40, (double)t / 10000.0);
		printf("%-7s %s %6.2f%%\n", "all", bar, (double)t / 100.0);
	}
}

/* ------------------------------------------------------------ procs */

struct proc_row {
	unsigned long pid;
	char name[64];
	uint64_t util, rss;
};

struct proc_list {
	size_t n, cap;
	struct proc_row *rows;
};

static void collect_proc(const oid *index, size_t len, const netsnmp_variable_list *v, void *arg)
{
	static const oid util[] = { CM_OID_clusterMonProcCpuUtil };
	static const oid rss[] = { CM_OID_clusterMonProcRssKB };
	struct proc_list *l = arg;
	struct proc_row *r;

	if (len != 1 || v->type != ASN_OCTET_STR)
		return;
	r = ctl_append((void **)&l->rows, &l->n, &l->cap, sizeof(*r));
	r->pid = index[0];
	snprintf(r->name, sizeof(r->name), "%.*s", (int)v->val_len, (const char *)v->val.string);
	cm_get_number(util, OID_LENGTH(util), index, 1, &r->util);
	cm_get_number(rss, OID_LENGTH(rss), index, 1, &r->rss);
}

static int by_util(const void *a, const void *b)
{
	const struct proc_row *x = a, *y = b;

	if (x->util != y->util)
		return x->util < y->util ? 1 : -1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

static void show_procs(long top)
{
	static const oid names[] = { CM_OID_clusterMonProcName };
	struct proc_list l = { 0, 0, NULL };

	cm_walk(names, OID_LENGTH(names), collect_proc, &l);
	if (l.n > 1)
		qsort(l.rows, l.n, sizeof(l.rows[0]), by_util);
	printf("%8s  %-20s %7s %10s\n", "PID", "COMMAND", "CPU%", "RSS(KB)");
	for (size_t i = 0; i < l.n && i < (size_t)top; i++)
		printf("%8lu  %-20.20s %7.2f %10llu\n", l.rows[i].pid, l.rows[i].name,
		       (double)l.rows[i].util / 100.0, (unsigned long long)l.rows[i].rss);
	free(l.rows);
}

void cmd_procs(int argc, char **argv)
{
	long top = 20;

	if (argc > 0 && !ctl_number(argv[0], 1, INT32_MAX, &top))
		die(EXIT_REFUSED, "procs takes how many processes to show (1 or more)");
	show_procs(top);
}

/* ------------------------------------------------------------ hist */

struct name_match {
	const char *want;
	oid index;
};

static void match_name(const oid *index, size_t len, const netsnmp_variable_list *v, void *arg)
{
	struct name_match *m = arg;

	if (len == 1 && v->type == ASN_OCTET_STR && v->val_len == strlen(m->want) &&
	    memcmp(v->val.string, m->want, v->val_len) == 0)
		m->index = index[0];
}

struct bucket_list {
	size_t n;
	struct hist_bucket b[65];
};

static void collect_bucket(const oid *index, size_t len, const netsnmp_variable_list *v,
			   void *arg)
{
	struct bucket_list *l = arg;

	(void)index;
	if (len != 1 || !cm_is_number(v) || l->n == 65)
		return;
	l->b[l->n++].count = cm_number_of(v);
}

static void unit_of(oid source, char *buf, size_t len)
{
	static const oid src[] = { CM_OID_clusterMonHistSourceEntry };
	oid idx[2] = { CM_ARC_clusterMonHistSourceUnit, source };

	cm_get_string(src, OID_LENGTH(src), idx, 2, buf, len);
}

static void edges(oid source, struct bucket_list *l)
{
	static const oid low[] = { CM_OID_clusterMonHistBucketLow };
	static const oid high[] = { CM_OID_clusterMonHistBucketHigh };

	for (size_t i = 0; i < l->n; i++) {
		oid idx[2] = { source, (oid)i + 1 };

		cm_get_number(low, OID_LENGTH(low), idx, 2, &l->b[i].low);
		cm_get_number(high, OID_LENGTH(high), idx, 2, &l->b[i].high);
	}
}

/* Distribution name drawn with bars of up to width stars; false if the
 * node serves no distribution of that name. */
static bool show_hist(const char *name, size_t width)
{
	static const oid names[] = { CM_OID_clusterMonHistSourceName };
	static const oid src[] = { CM_OID_clusterMonHistSourceEntry };
	static const oid pcols[3] = { CM_ARC_clusterMonHistSourceP50, CM_ARC_clusterMonHistSourceP90,
				      CM_ARC_clusterMonHistSourceP99 };
	oid counts[] = { CM_OID_clusterMonHistBucketCount, 0 };
	struct name_match m = { name, 0 };
	struct bucket_list *l;
	uint64_t p[3] = { 0, 0, 0 }, count = 0;
	char unit[32] = "value";

	cm_walk(names, OID_LENGTH(names), match_name, &m);
	if (m.index == 0)
		return false;
	l = calloc(1, sizeof(*l));
	if (l == NULL)
		die(EXIT_DOWN, "out of memory");
	counts[OID_LENGTH(counts) - 1] = m.index;
	cm_walk(counts, OID_LENGTH(counts), collect_bucket, l);
	edges(m.index, l);
	for (int i = 0; i < 3; i++) {
		oid idx[2] = { pcols[i], m.index };

		cm_get_number(src, OID_LENGTH(src), idx, 2, &p[i]);
	}
	{
		oid idx[2] = { CM_ARC_clusterMonHistSourceCount, m.index };

		cm_get_number(src, OID_LENGTH(src), idx, 2, &count);
	}
	unit_of(m.index, unit, sizeof(unit));
	if (unit[0] == '\0')
		strcpy(unit, "value");
	printf("%s: %llu values; p50 %llu, p90 %llu, p99 %llu %s\n", name,
	       (unsigned long long)count, (unsigned long long)p[0], (unsigned long long)p[1],
	       (unsigned long long)p[2], unit);
	fmt_hist(stdout, unit, l->b, l->n, width);
	free(l);
	return true;
}

bool ctl_show_hist(const char *name, size_t width)
{
	return show_hist(name, width);
}

void cmd_hist(int argc, char **argv)
{
	if (argc < 1)
		die(EXIT_REFUSED, "hist takes a distribution name (clustermonctl HOST hists lists them)");
	if (!show_hist(argv[0], 40))
		die(EXIT_REFUSED, "no distribution named %s on %s", argv[0], cm_client.ss->peername);
}

static void print_name(const oid *index, size_t len, const netsnmp_variable_list *v, void *arg)
{
	(void)arg;
	if (len == 1 && v->type == ASN_OCTET_STR)
		printf("%5lu  %.*s\n", (unsigned long)index[0], (int)v->val_len,
		       (const char *)v->val.string);
}

void cmd_hists(int argc, char **argv)
{
	static const oid names[] = { CM_OID_clusterMonHistSourceName };

	(void)argc, (void)argv;
	cm_walk(names, OID_LENGTH(names), print_name, NULL);
}

/* ------------------------------------------------------------ tcp */

/* An InetAddress value (4 or 16 bytes) as text. */
static void address(const oid *col, size_t col_len, oid index, char *buf, size_t len)
{
	oid name[MAX_OID_LEN];
	netsnmp_pdu *pdu = snmp_pdu_create(SNMP_MSG_GET), *r;
	netsnmp_variable_list *v;

	memcpy(name, col, col_len * sizeof(oid));
	name[col_len] = index;
	snmp_add_null_var(pdu, name, col_len + 1);
	r = cm_exchange(pdu);
	v = r->variables;
	snprintf(buf, len, "?");
	if (r->errstat == SNMP_ERR_NOERROR && v->type == ASN_OCTET_STR &&
	    (v->val_len == 4 || v->val_len == 16))
		inet_ntop(v->val_len == 4 ? AF_INET : AF_INET6, v->val.string, buf, (socklen_t)len);
	snmp_free_pdu(r);
}

static void print_conn(const oid *index, size_t len, const netsnmp_variable_list *v, void *arg)
{
	static const oid col[] = { CM_OID_clusterMonTcpConnEntry };
	static const char *const states[] = { "?", "ESTABLISHED", "SYN_SENT", "SYN_RECV",
		"FIN_WAIT1", "FIN_WAIT2", "TIME_WAIT", "CLOSE", "CLOSE_WAIT", "LAST_ACK", "LISTEN",
		"CLOSING" };
	oid c[OID_LENGTH(col) + 1];
	char local[64], remote[64];
	uint64_t v64[5] = { 0 };
	static const unsigned cols[5] = { /* ports, rtt, cwnd, retrans */
		CM_ARC_clusterMonTcpConnLocalPort, CM_ARC_clusterMonTcpConnRemPort,
		CM_ARC_clusterMonTcpConnRttUs, CM_ARC_clusterMonTcpConnCwnd,
		CM_ARC_clusterMonTcpConnTotalRetrans };
	uint64_t state = 0;

	(void)v, (void)arg;
	if (len != 1)
		return;
	memcpy(c, col, sizeof(col));
	c[OID_LENGTH(col)] = CM_ARC_clusterMonTcpConnLocalAddress;
	address(c, OID_LENGTH(c), index[0], local, sizeof(local));
	c[OID_LENGTH(col)] = CM_ARC_clusterMonTcpConnRemAddress;
	address(c, OID_LENGTH(c), index[0], remote, sizeof(remote));
	for (int i = 0; i < 5; i++) {
		oid idx[2] = { cols[i], index[0] };

		cm_get_number(col, OID_LENGTH(col), idx, 2, &v64[i]);
	}
	{
		oid idx[2] = { CM_ARC_clusterMonTcpConnState, index[0] };

		cm_get_number(col, OID_LENGTH(col), idx, 2, &state);
	}
	printf("%-28s %-28s %-12s %9llu %6llu %8llu\n",
	       strcat(strcat(local, ":"), u64_text(v64[0])),
	       strcat(strcat(remote, ":"), u64_text(v64[1])),
	       states[state < 12 ? state : 0], (unsigned long long)v64[2],
	       (unsigned long long)v64[3], (unsigned long long)v64[4]);
}

void cmd_tcp(int argc, char **argv)
{
	static const oid state[] = { CM_OID_clusterMonTcpConnState };

	(void)argc, (void)argv;
	printf("%-28s %-28s %-12s %9s %6s %8s\n", "LOCAL", "REMOTE", "STATE", "RTT(us)",
	       "CWND", "RETRANS");
	cm_walk(state, OID_LENGTH(state), print_conn, NULL);
}

/* ------------------------------------------------------------ history */

struct history {
	const char *want;
	oid ctl;
	size_t n;
	uint64_t mean[1024];
};

static void collect_mean(const oid *index, size_t len, const netsnmp_variable_list *v, void *arg)
{
	struct history *h = arg;

	(void)index;
	if (len == 1 && cm_is_number(v) && h->n < 1024)
		h->mean[h->n++] = cm_number_of(v);
}

void cmd_history(int argc, char **argv)
{
	static const oid owners[] = { CM_OID_clusterMonHistoryCtlOwner };
	oid means[] = { CM_OID_clusterMonHistoryMean, 0 };
	struct history *h = calloc(1, sizeof(*h));
	struct name_match m = { argc > 0 ? argv[0] : NULL, 0 };
	char *line;

	if (m.want == NULL || h == NULL)
		die(EXIT_REFUSED, "history takes the owner name of a clusterMonHistoryCtlTable row");
	cm_walk(owners, OID_LENGTH(owners), match_name, &m);
	if (m.index == 0)
		die(EXIT_REFUSED, "no history named %s on %s", m.want, cm_client.ss->peername);
	means[OID_LENGTH(means) - 1] = m.index;
	cm_walk(means, OID_LENGTH(means), collect_mean, h);
	line = malloc(3 * h->n + 1);
	if (line == NULL)
		die(EXIT_DOWN, "out of memory");
	fmt_sparkline(line, h->mean, h->n);
	printf("%s: %zu buckets, means from %llu to %llu\n%s\n", m.want, h->n,
	       (unsigned long long)(h->n ? min_of(h->mean, h->n) : 0),
	       (unsigned long long)(h->n ? max_of(h->mean, h->n) : 0), line);
	free(line);
	free(h);
}

/* ------------------------------------------------------------ nodes */

/* One line for the node being read: the cluster overview of --cluster. */
void cmd_nodes(int argc, char **argv)
{
	static const oid name_oid[] = { CM_OID_clusterMonNodeName };
	static const oid helper[] = { CM_OID_clusterMonHelperStatus };
	static const oid util[] = { CM_OID_clusterMonCpuTotalUtil };
	static const oid ncpu[] = { CM_OID_clusterMonCpuCount };
	static const oid total[] = { CM_OID_clusterMonMemTotalKB };
	static const oid avail[] = { CM_OID_clusterMonMemAvailableKB };
	static const oid zero[] = { 0 };
	static const char *const helper_state[] = { "?", "running", "absent", "failed" };
	uint64_t u = 0, n = 0, t = 0, a = 0, h = 0;
	char name[64], bar[24];

	(void)argc, (void)argv;
	cm_get_string(name_oid, OID_LENGTH(name_oid), zero, 1, name, sizeof(name));
	cm_get_number(util, OID_LENGTH(util), zero, 1, &u);
	cm_get_number(ncpu, OID_LENGTH(ncpu), zero, 1, &n);
	cm_get_number(total, OID_LENGTH(total), zero, 1, &t);
	cm_get_number(avail, OID_LENGTH(avail), zero, 1, &a);
	cm_get_number(helper, OID_LENGTH(helper), zero, 1, &h);
	fmt_bar(bar, 20, (double)u / 10000.0);
	printf("%-16s %3llu CPUs %s %6.2f%%  mem %6.2f%% available  helper %s\n",
	       name, (unsigned long long)n, bar, (double)u / 100.0,
	       t ? (double)a * 100.0 / (double)t : 0.0, helper_state[h <= 3 ? h : 0]);
}

/* ------------------------------------------------------------ sources */

static const oid src_entry[] = { CM_OID_clusterMonSourceEntry };
enum {
	S_NAME = CM_ARC_clusterMonSourceName, S_INTERVAL = CM_ARC_clusterMonSourceIntervalMs,
	S_LASTUS = CM_ARC_clusterMonSourceLastSampleUs, S_SAMPLES = CM_ARC_clusterMonSourceSamples,
	S_LATE = CM_ARC_clusterMonSourceLateSamples
};

static void print_source(const oid *index, size_t len, const netsnmp_variable_list *v, void *arg)
{
	uint64_t f[4] = { 0, 0, 0, 0 };
	static const unsigned col[4] = { S_INTERVAL, S_LASTUS, S_SAMPLES, S_LATE };

	(void)arg;
	if (len != 1 || v->type != ASN_OCTET_STR)
		return;
	for (int i = 0; i < 4; i++) {
		oid idx[2] = { col[i], index[0] };

		cm_get_number(src_entry, OID_LENGTH(src_entry), idx, 2, &f[i]);
	}
	printf("%-8.*s %12llu %10llu %12llu %8llu\n", (int)v->val_len, (const char *)v->val.string,
	       (unsigned long long)f[0], (unsigned long long)f[1], (unsigned long long)f[2],
	       (unsigned long long)f[3]);
}

/* The sampling control table (dproc): what each source costs and how often. */
void cmd_sources(int argc, char **argv)
{
	(void)argc, (void)argv;
	printf("%-8s %12s %10s %12s %8s\n", "SOURCE", "INTERVAL(ms)", "COST(us)", "SAMPLES",
	       "LATE");
	cm_walk_entry(src_entry, OID_LENGTH(src_entry), S_NAME, print_source, NULL);
}

/* ------------------------------------------------------------ overview */

static void print_memory(void)
{
	static const oid mem[] = { CM_OID_clusterMonMemory };
	static const char *const name[] = { "total", "available", "cached", "swap free" };
	static const oid which[] = { CM_ARC_clusterMonMemTotalKB, CM_ARC_clusterMonMemAvailableKB,
				     CM_ARC_clusterMonMemCachedKB, CM_ARC_clusterMonMemSwapFreeKB };
	uint64_t kb[4] = { 0, 0, 0, 0 };

	printf("memory ");
	for (int i = 0; i < 4; i++) {
		oid idx[2] = { which[i], 0 };

		cm_get_number(mem, OID_LENGTH(mem), idx, 2, &kb[i]);
		printf(" %s %.1f GiB%s", name[i], (double)kb[i] / (1024.0 * 1024.0), i < 3 ? "," : "");
	}
	printf("\n");
}

/* One screen for a first look: the node, CPUs, memory, the busiest
 * processes, one distribution drawn, and the source table. Each part is
 * what its own command shows, shortened to fit 50 lines. */
void cmd_overview(int argc, char **argv)
{
	static const oid ver[] = { CM_OID_clusterMonAgentVersion };
	static const oid zero[] = { 0 };
	char version[32];

	(void)argc, (void)argv;
	cm_get_string(ver, OID_LENGTH(ver), zero, 1, version, sizeof(version));
	printf("== node (clustermond %s)\n", version);
	cmd_nodes(0, NULL);
	printf("\n== CPUs (clusterMonCpuTable)\n");
	cmd_cpu(0, NULL);
	printf("\n== memory (clusterMonMemory)\n");
	print_memory();
	printf("\n== busiest processes (clusterMonProcTable)\n");
	show_procs(5);
	/* Run-queue latency when the helper runs: what /proc cannot show. Else
	 * the cost of a cpu sample, filled within a second of start. */
	printf("\n== a distribution (clusterMonHistBucketTable)\n");
	if (!show_hist("sched.runqlat", 20) && !show_hist("sample.cost.cpu", 20))
		printf("(no distribution sample.cost.cpu yet)\n");
	if (probe_count() > 0) {
		printf("\n== probes (clusterMonProbeTable)\n");
		cmd_probes(0, NULL);
	}
	printf("\n== sources (clusterMonSourceTable)\n");
	cmd_sources(0, NULL);
}
