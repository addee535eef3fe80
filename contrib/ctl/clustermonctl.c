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
#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>

#include <arpa/inet.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "format.h"
#include "mib/cm-oids.h"

#define EXIT_DOWN 1
#define EXIT_REFUSED 2

static netsnmp_session *ss;
static const char *host_opt;
static int watch_seconds;
/* --cluster: the aggregator's contexts, one per node (contrib/cluster). */
static char *cluster_list;
static const char *context;

static void die(int code, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "clustermonctl: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(code);
}

/* ------------------------------------------------------------ SNMP */

static netsnmp_pdu *exchange(netsnmp_pdu *pdu)
{
	netsnmp_pdu *response = NULL;
	int rc;

	if (context != NULL) {
		pdu->contextName = strdup(context);
		pdu->contextNameLen = strlen(context);
	}
	rc = snmp_synch_response(ss, pdu, &response);

	if (rc == STAT_TIMEOUT)
		die(EXIT_DOWN, "%s does not answer", ss->peername);
	if (rc != STAT_SUCCESS || response == NULL)
		die(EXIT_DOWN, "talking to %s: %s", ss->peername, snmp_api_errstring(snmp_errno));
	return response;
}

static bool is_number(const netsnmp_variable_list *v)
{
	return v->type == ASN_INTEGER || v->type == ASN_GAUGE || v->type == ASN_COUNTER ||
	       v->type == ASN_COUNTER64 || v->type == ASN_TIMETICKS;
}

static uint64_t number_of(const netsnmp_variable_list *v)
{
	if (v->type == ASN_COUNTER64)
		return ((uint64_t)v->val.counter64->high << 32) | v->val.counter64->low;
	if (v->type == ASN_INTEGER)
		return (uint64_t)(int64_t)*v->val.integer;
	return (uint64_t)(unsigned long)*v->val.integer;
}

/* clusterMonNodeName.0 first: a clear word when clustermond is not there. */
static void require_subagent(void)
{
	static const oid node_name[] = { CM_OID_clusterMonNodeName, 0 };
	netsnmp_pdu *pdu = snmp_pdu_create(SNMP_MSG_GET), *r;
	bool there;

	snmp_add_null_var(pdu, node_name, OID_LENGTH(node_name));
	r = exchange(pdu);
	there = r->errstat == SNMP_ERR_NOERROR && r->variables->type == ASN_OCTET_STR;
	snmp_free_pdu(r);
	if (!there)
		die(EXIT_DOWN, "clustermond is not registered with the snmpd on %s", ss->peername);
}

typedef void (*walk_fn)(const oid *index, size_t len, const netsnmp_variable_list *v,
			void *arg);

/* Every instance under col (GETNEXT until the subtree ends). */
static void walk(const oid *col, size_t col_len, walk_fn fn, void *arg)
{
	oid name[MAX_OID_LEN];
	size_t len = col_len;

	memcpy(name, col, col_len * sizeof(oid));
	for (;;) {
		netsnmp_pdu *pdu = snmp_pdu_create(SNMP_MSG_GETNEXT), *r;
		netsnmp_variable_list *v;

		snmp_add_null_var(pdu, name, len);
		r = exchange(pdu);
		v = r->variables;
		if (r->errstat != SNMP_ERR_NOERROR || v == NULL || v->type == SNMP_ENDOFMIBVIEW ||
		    v->name_length <= col_len || snmp_oid_compare(v->name, col_len, col, col_len) != 0) {
			snmp_free_pdu(r);
			return;
		}
		fn(v->name + col_len, v->name_length - col_len, v, arg);
		memcpy(name, v->name, v->name_length * sizeof(oid));
		len = v->name_length;
		snmp_free_pdu(r);
	}
}

/* Walks column col of a table entry. */
static void walk_entry(const oid *entry, size_t entry_len, unsigned col, walk_fn fn, void *arg)
{
	oid name[MAX_OID_LEN];

	memcpy(name, entry, entry_len * sizeof(oid));
	name[entry_len] = col;
	walk(name, entry_len + 1, fn, arg);
}

/* A number at base.index (index of n sub-identifiers); false if absent. */
static bool get_at(const oid *base, size_t base_len, const oid *index, size_t n, uint64_t *out)
{
	oid name[MAX_OID_LEN];
	netsnmp_pdu *pdu = snmp_pdu_create(SNMP_MSG_GET), *r;
	bool found;

	memcpy(name, base, base_len * sizeof(oid));
	memcpy(name + base_len, index, n * sizeof(oid));
	snmp_add_null_var(pdu, name, base_len + n);
	r = exchange(pdu);
	found = r->errstat == SNMP_ERR_NOERROR && is_number(r->variables);
	if (found)
		*out = number_of(r->variables);
	snmp_free_pdu(r);
	return found;
}

static const char *u64_text(uint64_t v)
{
	static char buf[4][24];
	static int next;

	next = (next + 1) % 4;
	snprintf(buf[next], sizeof(buf[next]), "%llu", (unsigned long long)v);
	return buf[next];
}

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
	double pct = (double)number_of(v) / 100.0;

	(void)arg;
	if (len != 1 || !is_number(v))
		return;
	fmt_bar(bar, 40, pct / 100.0);
	printf("cpu%-4lu %s %6.2f%%\n", (unsigned long)index[0] - 1, bar, pct);
}

static void cmd_cpu(int argc, char **argv)
{
	static const oid util[] = { CM_OID_clusterMonCpuUtil };
	static const oid total[] = { CM_OID_clusterMonCpuTotalUtil };
	static const oid zero[] = { 0 };
	uint64_t t = 0;
	char bar[48];

	(void)argc, (void)argv;
	walk(util, OID_LENGTH(util), print_cpu, NULL);
	if (get_at(total, OID_LENGTH(total), zero, 1, &t)) {
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
	if (l->n == l->cap) {
		struct proc_row *grown = realloc(l->rows, (l->cap ? l->cap * 2 : 64) * sizeof(*grown));

		if (grown == NULL)
			die(EXIT_DOWN, "out of memory");
		l->rows = grown;
		l->cap = l->cap ? l->cap * 2 : 64;
	}
	r = &l->rows[l->n++];
	memset(r, 0, sizeof(*r));
	r->pid = index[0];
	snprintf(r->name, sizeof(r->name), "%.*s", (int)v->val_len, (const char *)v->val.string);
	get_at(util, OID_LENGTH(util), index, 1, &r->util);
	get_at(rss, OID_LENGTH(rss), index, 1, &r->rss);
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

	walk(names, OID_LENGTH(names), collect_proc, &l);
	if (l.n > 1)
		qsort(l.rows, l.n, sizeof(l.rows[0]), by_util);
	printf("%8s  %-20s %7s %10s\n", "PID", "COMMAND", "CPU%", "RSS(KB)");
	for (size_t i = 0; i < l.n && i < (size_t)top; i++)
		printf("%8lu  %-20.20s %7.2f %10llu\n", l.rows[i].pid, l.rows[i].name,
		       (double)l.rows[i].util / 100.0, (unsigned long long)l.rows[i].rss);
	free(l.rows);
}

static void cmd_procs(int argc, char **argv)
{
	long top = argc > 0 ? strtol(argv[0], NULL, 10) : 20;

	if (top < 1)
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
	if (len != 1 || !is_number(v) || l->n == 65)
		return;
	l->b[l->n++].count = number_of(v);
}

/* A string at base.index into buf ("" if absent). */
static void get_string(const oid *base, size_t base_len, const oid *index, size_t n, char *buf,
		       size_t len)
{
	oid name[MAX_OID_LEN];
	netsnmp_pdu *pdu = snmp_pdu_create(SNMP_MSG_GET), *r;
	netsnmp_variable_list *v;

	memcpy(name, base, base_len * sizeof(oid));
	memcpy(name + base_len, index, n * sizeof(oid));
	snmp_add_null_var(pdu, name, base_len + n);
	r = exchange(pdu);
	v = r->variables;
	buf[0] = '\0';
	if (r->errstat == SNMP_ERR_NOERROR && v->type == ASN_OCTET_STR)
		snprintf(buf, len, "%.*s", (int)v->val_len, (const char *)v->val.string);
	snmp_free_pdu(r);
}

static void unit_of(oid source, char *buf, size_t len)
{
	static const oid src[] = { CM_OID_clusterMonHistSourceEntry };
	oid idx[2] = { CM_ARC_clusterMonHistSourceUnit, source };

	get_string(src, OID_LENGTH(src), idx, 2, buf, len);
}

static void edges(oid source, struct bucket_list *l)
{
	static const oid low[] = { CM_OID_clusterMonHistBucketLow };
	static const oid high[] = { CM_OID_clusterMonHistBucketHigh };

	for (size_t i = 0; i < l->n; i++) {
		oid idx[2] = { source, (oid)i + 1 };

		get_at(low, OID_LENGTH(low), idx, 2, &l->b[i].low);
		get_at(high, OID_LENGTH(high), idx, 2, &l->b[i].high);
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

	walk(names, OID_LENGTH(names), match_name, &m);
	if (m.index == 0)
		return false;
	l = calloc(1, sizeof(*l));
	if (l == NULL)
		die(EXIT_DOWN, "out of memory");
	counts[OID_LENGTH(counts) - 1] = m.index;
	walk(counts, OID_LENGTH(counts), collect_bucket, l);
	edges(m.index, l);
	for (int i = 0; i < 3; i++) {
		oid idx[2] = { pcols[i], m.index };

		get_at(src, OID_LENGTH(src), idx, 2, &p[i]);
	}
	{
		oid idx[2] = { CM_ARC_clusterMonHistSourceCount, m.index };

		get_at(src, OID_LENGTH(src), idx, 2, &count);
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

static void cmd_hist(int argc, char **argv)
{
	if (argc < 1)
		die(EXIT_REFUSED, "hist takes a distribution name (clustermonctl HOST hists lists them)");
	if (!show_hist(argv[0], 40))
		die(EXIT_REFUSED, "no distribution named %s on %s", argv[0], ss->peername);
}

static void print_name(const oid *index, size_t len, const netsnmp_variable_list *v, void *arg)
{
	(void)arg;
	if (len == 1 && v->type == ASN_OCTET_STR)
		printf("%5lu  %.*s\n", (unsigned long)index[0], (int)v->val_len,
		       (const char *)v->val.string);
}

static void cmd_hists(int argc, char **argv)
{
	static const oid names[] = { CM_OID_clusterMonHistSourceName };

	(void)argc, (void)argv;
	walk(names, OID_LENGTH(names), print_name, NULL);
}

/* ------------------------------------------------------------ probes */

static const oid probe_entry[] = { CM_OID_clusterMonProbeEntry };
enum {
	P_SPEC = CM_ARC_clusterMonProbeSpec, P_FILTERPID = CM_ARC_clusterMonProbeFilterPid,
	P_FILTERCPU = CM_ARC_clusterMonProbeFilterCpu, P_EVERY = CM_ARC_clusterMonProbeSampleEvery,
	P_HITS = CM_ARC_clusterMonProbeHits, P_LOST = CM_ARC_clusterMonProbeLost,
	P_OPER = CM_ARC_clusterMonProbeOperStatus, P_ERROR = CM_ARC_clusterMonProbeLastError,
	P_STATUS = CM_ARC_clusterMonProbeRowStatus
};

static void print_probe(const oid *index, size_t len, const netsnmp_variable_list *v, void *arg)
{
	static const char *const oper[] = { "?", "up", "down", "failed", "unsupported" };
	uint64_t hits = 0, lost = 0, st = 0;
	char error[256];

	(void)arg;
	if (len != 1 || v->type != ASN_OCTET_STR)
		return;
	{
		oid h[2] = { P_HITS, index[0] }, l[2] = { P_LOST, index[0] };
		oid o[2] = { P_OPER, index[0] }, e[2] = { P_ERROR, index[0] };

		get_at(probe_entry, OID_LENGTH(probe_entry), h, 2, &hits);
		get_at(probe_entry, OID_LENGTH(probe_entry), l, 2, &lost);
		get_at(probe_entry, OID_LENGTH(probe_entry), o, 2, &st);
		get_string(probe_entry, OID_LENGTH(probe_entry), e, 2, error, sizeof(error));
	}
	printf("%5lu  %-11s %14llu %8llu  %.*s%s%s\n", (unsigned long)index[0],
	       oper[st <= 4 ? st : 0], (unsigned long long)hits, (unsigned long long)lost,
	       (int)v->val_len, (const char *)v->val.string, error[0] ? "  # " : "", error);
}

static void cmd_probes(int argc, char **argv)
{
	(void)argc, (void)argv;
	printf("%5s  %-11s %14s %8s  %s\n", "INDEX", "STATUS", "HITS", "LOST", "SPEC");
	walk_entry(probe_entry, OID_LENGTH(probe_entry), P_SPEC, print_probe, NULL);
}

static void mark_used(const oid *index, size_t len, const netsnmp_variable_list *v, void *arg)
{
	unsigned char *used = arg;

	(void)v;
	if (len == 1 && index[0] >= 1 && index[0] <= 65535)
		used[index[0]] = 1;
}

/* The lowest index no row of the table has (its RowStatus column walked). */
static oid free_index(const oid *entry, size_t entry_len, unsigned status_col)
{
	unsigned char *used = calloc(65536, 1);
	oid index = 0;

	if (used == NULL)
		die(EXIT_DOWN, "out of memory");
	walk_entry(entry, entry_len, status_col, mark_used, used);
	for (oid i = 1; i <= 65535 && index == 0; i++)
		if (!used[i])
			index = i;
	free(used);
	if (index == 0)
		die(EXIT_REFUSED, "the table on %s is full", ss->peername);
	return index;
}

static void add_int(netsnmp_pdu *pdu, unsigned col, oid index, u_char type, long value)
{
	oid name[OID_LENGTH(probe_entry) + 2];

	memcpy(name, probe_entry, sizeof(probe_entry));
	name[OID_LENGTH(probe_entry)] = col;
	name[OID_LENGTH(probe_entry) + 1] = index;
	snmp_pdu_add_variable(pdu, name, OID_LENGTH(name), type, &value, sizeof(value));
}

/* A SET; the error status (noError when it went through). */
static long set(netsnmp_pdu *pdu)
{
	netsnmp_pdu *r = exchange(pdu);
	long err = r->errstat;

	snmp_free_pdu(r);
	if (err == SNMP_ERR_NOACCESS || err == SNMP_ERR_AUTHORIZATIONERROR ||
	    err == SNMP_ERR_NOTWRITABLE || err == SNMP_ERR_READONLY)
		die(EXIT_REFUSED, "no write access to the probe table on %s (%s): use a "
		    "community or v3 user that may SET it", ss->peername, snmp_errstring(err));
	return err;
}

static long filter_value(const char *word, const char *key)
{
	size_t k = strlen(key);
	char *end;
	long v;

	if (strncmp(word, key, k) != 0)
		return -2;
	v = strtol(word + k, &end, 10);
	if (*end != '\0' || end == word + k || v < 0)
		die(EXIT_REFUSED, "'%s': %s takes a number", word, key);
	return v;
}

/* clustermond answers the activating SET at once and attaches afterwards:
 * the outcome is the row's OperStatus, up(1), failed(3) or unsupported(4).
 * down(2) while it is being attached; still down after ATTACH_WAIT_S (no
 * helper running, say) counts as not attached. */
#define ATTACH_WAIT_S 10

static uint64_t attach_outcome(oid index)
{
	const struct timespec pause = { .tv_nsec = 50000000 };
	oid o[2] = { P_OPER, index };
	uint64_t st = 0;

	for (int i = 0; i < ATTACH_WAIT_S * 20; i++) {
		if (get_at(probe_entry, OID_LENGTH(probe_entry), o, 2, &st) && st != 2)
			return st;
		nanosleep(&pause, NULL);
	}
	return st;
}

static void probe_add(int argc, char **argv)
{
	long pid = -1, cpu = -1, every = 1, v;
	oid index;
	netsnmp_pdu *pdu;
	char error[256];

	if (argc < 1)
		die(EXIT_REFUSED, "probe add takes SPEC [pid=N] [cpu=N] [every=N]");
	for (int i = 1; i < argc; i++) {
		if ((v = filter_value(argv[i], "pid=")) != -2) pid = v;
		else if ((v = filter_value(argv[i], "cpu=")) != -2) cpu = v;
		else if ((v = filter_value(argv[i], "every=")) != -2) every = v;
		else die(EXIT_REFUSED, "unknown word '%s' (pid=N, cpu=N or every=N)", argv[i]);
	}
	index = free_index(probe_entry, OID_LENGTH(probe_entry), P_STATUS);
	pdu = snmp_pdu_create(SNMP_MSG_SET);
	add_int(pdu, P_STATUS, index, ASN_INTEGER, 5); /* createAndWait */
	{
		oid name[OID_LENGTH(probe_entry) + 2];

		memcpy(name, probe_entry, sizeof(probe_entry));
		name[OID_LENGTH(probe_entry)] = P_SPEC;
		name[OID_LENGTH(probe_entry) + 1] = index;
		snmp_pdu_add_variable(pdu, name, OID_LENGTH(name), ASN_OCTET_STR, argv[0],
				      strlen(argv[0]));
	}
	add_int(pdu, P_FILTERPID, index, ASN_INTEGER, pid);
	add_int(pdu, P_FILTERCPU, index, ASN_INTEGER, cpu);
	add_int(pdu, P_EVERY, index, ASN_UNSIGNED, every);
	if ((v = set(pdu)) != SNMP_ERR_NOERROR)
		die(EXIT_REFUSED, "probe '%s' refused: %s", argv[0], snmp_errstring(v));
	pdu = snmp_pdu_create(SNMP_MSG_SET);
	add_int(pdu, P_STATUS, index, ASN_INTEGER, 1); /* active */
	if ((v = set(pdu)) != SNMP_ERR_NOERROR || attach_outcome(index) != 1) {
		oid e[2] = { P_ERROR, index };

		get_string(probe_entry, OID_LENGTH(probe_entry), e, 2, error, sizeof(error));
		if (error[0] == '\0' && v == SNMP_ERR_NOERROR)
			snprintf(error, sizeof(error), "not attached within %d s (is "
				 "clustermon-kprobe running?)", ATTACH_WAIT_S);
		pdu = snmp_pdu_create(SNMP_MSG_SET);
		add_int(pdu, P_STATUS, index, ASN_INTEGER, 6); /* destroy */
		set(pdu);
		die(EXIT_REFUSED, "probe '%s' cannot attach: %s", argv[0],
		    error[0] ? error : snmp_errstring(v));
	}
	printf("probe %lu: %s\n", (unsigned long)index, argv[0]);
}

static void probe_del(int argc, char **argv)
{
	char *end;
	long index = argc > 0 ? strtol(argv[0], &end, 10) : 0;
	netsnmp_pdu *pdu;
	long err;

	if (argc < 1 || *end != '\0' || index < 1 || index > 65535)
		die(EXIT_REFUSED, "probe del takes a probe index (1..65535)");
	{
		oid st[2] = { P_STATUS, (oid)index };
		uint64_t v;

		if (!get_at(probe_entry, OID_LENGTH(probe_entry), st, 2, &v))
			die(EXIT_REFUSED, "no probe %ld on %s", index, ss->peername);
	}
	pdu = snmp_pdu_create(SNMP_MSG_SET);
	add_int(pdu, P_STATUS, (oid)index, ASN_INTEGER, 6);
	err = set(pdu);
	if (err != SNMP_ERR_NOERROR)
		die(EXIT_REFUSED, "probe %ld cannot be removed: %s", index, snmp_errstring(err));
	printf("probe %ld removed\n", index);
}

static void cmd_probe(int argc, char **argv)
{
	if (argc > 0 && strcmp(argv[0], "add") == 0)
		probe_add(argc - 1, argv + 1);
	else if (argc > 0 && strcmp(argv[0], "del") == 0)
		probe_del(argc - 1, argv + 1);
	else
		die(EXIT_REFUSED, "probe add SPEC [pid=N] [cpu=N] [every=N] | probe del INDEX");
}

/* ------------------------------------------------------------ traces */

static const oid trace_entry[] = { CM_OID_clusterMonTraceEntry };
enum {
	TR_SPEC = CM_ARC_clusterMonTraceSpec,
	TR_FILTERPID = CM_ARC_clusterMonTraceFilterPid,
	TR_FILTERCPU = CM_ARC_clusterMonTraceFilterCpu,
	TR_EVERY = CM_ARC_clusterMonTraceSampleEvery,
	TR_DURATION = CM_ARC_clusterMonTraceDurationMs,
	TR_MAXBYTES = CM_ARC_clusterMonTraceMaxBytes,
	TR_BUFFER = CM_ARC_clusterMonTraceBufferBytes,
	TR_STORAGE = CM_ARC_clusterMonTraceStorageType,
	TR_STATUS = CM_ARC_clusterMonTraceRowStatus,
	TR_DIR = CM_ARC_clusterMonTraceDirectory,
	TR_RECORDS = CM_ARC_clusterMonTraceRecords,
	TR_LOST = CM_ARC_clusterMonTraceLost,
	TR_BYTES = CM_ARC_clusterMonTraceBytes,
	TR_OPER = CM_ARC_clusterMonTraceOperStatus,
	TR_ERROR = CM_ARC_clusterMonTraceLastError,
};
static const char *const trace_oper[] = { "?", "idle", "pending", "running", "finished",
					  "failed" };

static void trace_var(netsnmp_pdu *pdu, unsigned col, oid index, u_char type, const void *val,
		      size_t len)
{
	oid name[OID_LENGTH(trace_entry) + 2];

	memcpy(name, trace_entry, sizeof(trace_entry));
	name[OID_LENGTH(trace_entry)] = col;
	name[OID_LENGTH(trace_entry) + 1] = index;
	snmp_pdu_add_variable(pdu, name, OID_LENGTH(name), type, val, len);
}

static uint64_t trace_num(oid index, unsigned col)
{
	oid at[2] = { col, index };
	uint64_t v = 0;

	get_at(trace_entry, OID_LENGTH(trace_entry), at, 2, &v);
	return v;
}

static void trace_str(oid index, unsigned col, char *buf, size_t len)
{
	oid at[2] = { col, index };

	get_string(trace_entry, OID_LENGTH(trace_entry), at, 2, buf, len);
}

static void print_trace(const oid *index, size_t len, const netsnmp_variable_list *v, void *arg)
{
	uint64_t st;
	char dir[256];

	(void)arg;
	if (len != 1 || v->type != ASN_OCTET_STR)
		return;
	st = trace_num(index[0], TR_OPER);
	trace_str(index[0], TR_DIR, dir, sizeof(dir));
	printf("%5lu  %-9s %12s", (unsigned long)index[0], trace_oper[st <= 5 ? st : 0],
	       u64_text(trace_num(index[0], TR_RECORDS)));
	printf(" %10s", u64_text(trace_num(index[0], TR_LOST)));
	printf(" %12s  %.*s  %s\n", u64_text(trace_num(index[0], TR_BYTES)), (int)v->val_len,
	       (const char *)v->val.string, dir);
}

static void trace_list(void)
{
	printf("%5s  %-9s %12s %10s %12s  %s  %s\n", "INDEX", "STATUS", "RECORDS", "LOST", "BYTES",
	       "SPEC", "DIRECTORY");
	walk_entry(trace_entry, OID_LENGTH(trace_entry), TR_SPEC, print_trace, NULL);
}

/* SPEC [pid=N] [cpu=N] [every=N] [duration=MS] [bytes=N] [buffer=N]: one
 * createAndGo; the agent queues it and OperStatus follows. */
static void trace_add(int argc, char **argv)
{
	static const char *const keys[] = { "pid=", "cpu=", "every=", "duration=", "bytes=",
					    "buffer=" };
	static const unsigned cols[] = { TR_FILTERPID, TR_FILTERCPU, TR_EVERY, TR_DURATION,
					 TR_MAXBYTES, TR_BUFFER };
	netsnmp_pdu *pdu;
	oid index;
	long err, v, go = 4;

	if (argc < 1)
		die(EXIT_REFUSED, "trace add takes SPEC [pid=N] [cpu=N] [every=N] [duration=MS] "
		    "[bytes=N] [buffer=N]");
	index = free_index(trace_entry, OID_LENGTH(trace_entry), TR_STATUS);
	pdu = snmp_pdu_create(SNMP_MSG_SET);
	trace_var(pdu, TR_SPEC, index, ASN_OCTET_STR, argv[0], strlen(argv[0]));
	for (int i = 1; i < argc; i++) {
		size_t k = 0;

		while (k < 6 && (v = filter_value(argv[i], keys[k])) == -2)
			k++;
		if (k == 6)
			die(EXIT_REFUSED, "unknown word '%s' (pid=, cpu=, every=, duration=, bytes=, "
			    "buffer=)", argv[i]);
		trace_var(pdu, cols[k], index, k < 2 ? ASN_INTEGER : ASN_UNSIGNED, &v, sizeof(v));
	}
	trace_var(pdu, TR_STATUS, index, ASN_INTEGER, &go, sizeof(go));
	if ((err = set(pdu)) != SNMP_ERR_NOERROR)
		die(EXIT_REFUSED, "trace '%s' refused: %s", argv[0], snmp_errstring(err));
	printf("trace %lu: %s (queued; see trace show %lu)\n", (unsigned long)index, argv[0],
	       (unsigned long)index);
}

static oid trace_index(int argc, char **argv, const char *what)
{
	char *end;
	long index = argc > 0 ? strtol(argv[0], &end, 10) : 0;

	if (argc < 1 || *end != '\0' || index < 1 || index > 65535)
		die(EXIT_REFUSED, "trace %s takes a trace index (1..65535)", what);
	if (trace_num((oid)index, TR_STATUS) == 0)
		die(EXIT_REFUSED, "no trace %ld on %s", index, ss->peername);
	return (oid)index;
}

static void trace_stop(int argc, char **argv)
{
	oid index = trace_index(argc, argv, "stop");
	netsnmp_pdu *pdu = snmp_pdu_create(SNMP_MSG_SET);
	long nis = 2, err;

	trace_var(pdu, TR_STATUS, index, ASN_INTEGER, &nis, sizeof(nis));
	if ((err = set(pdu)) != SNMP_ERR_NOERROR)
		die(EXIT_REFUSED, "trace %lu cannot be stopped: %s", (unsigned long)index,
		    snmp_errstring(err));
	printf("trace %lu stopping\n", (unsigned long)index);
}

static void trace_show(int argc, char **argv)
{
	oid i = trace_index(argc, argv, "show");
	uint64_t st = trace_num(i, TR_OPER);
	char spec[256], dir[256], error[256];

	trace_str(i, TR_SPEC, spec, sizeof(spec));
	trace_str(i, TR_DIR, dir, sizeof(dir));
	trace_str(i, TR_ERROR, error, sizeof(error));
	printf("trace %lu: %s\n", (unsigned long)i, spec);
	printf("  status     %s%s%s\n", trace_oper[st <= 5 ? st : 0], error[0] ? ": " : "", error);
	printf("  filters    pid %lld, cpu %lld, 1 in %llu\n",
	       (long long)(int32_t)trace_num(i, TR_FILTERPID),
	       (long long)(int32_t)trace_num(i, TR_FILTERCPU),
	       (unsigned long long)trace_num(i, TR_EVERY));
	printf("  limits     %llu ms, %s bytes, buffers of %s bytes per CPU\n",
	       (unsigned long long)trace_num(i, TR_DURATION), u64_text(trace_num(i, TR_MAXBYTES)),
	       u64_text(trace_num(i, TR_BUFFER)));
	printf("  records    %s", u64_text(trace_num(i, TR_RECORDS)));
	printf(", lost %s", u64_text(trace_num(i, TR_LOST)));
	printf(", %s bytes\n", u64_text(trace_num(i, TR_BYTES)));
	printf("  directory  %s\n", dir[0] ? dir : "-");
	if (dir[0])
		printf("  read it    babeltrace2 %s\n%s%s\n", dir,
		       strstr(spec, "sched_switch") ? "  idle view  clustermon-idle " : "",
		       strstr(spec, "sched_switch") ? dir : "");
}

static void cmd_traces(int argc, char **argv)
{
	(void)argc, (void)argv;
	trace_list();
}

static void cmd_trace(int argc, char **argv)
{
	if (argc > 0 && strcmp(argv[0], "add") == 0)
		trace_add(argc - 1, argv + 1);
	else if (argc > 0 && strcmp(argv[0], "list") == 0)
		trace_list();
	else if (argc > 0 && strcmp(argv[0], "stop") == 0)
		trace_stop(argc - 1, argv + 1);
	else if (argc > 0 && strcmp(argv[0], "show") == 0)
		trace_show(argc - 1, argv + 1);
	else
		die(EXIT_REFUSED, "trace add SPEC [OPTIONS] | trace list | trace stop INDEX | "
		    "trace show INDEX");
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
	r = exchange(pdu);
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

		get_at(col, OID_LENGTH(col), idx, 2, &v64[i]);
	}
	{
		oid idx[2] = { CM_ARC_clusterMonTcpConnState, index[0] };

		get_at(col, OID_LENGTH(col), idx, 2, &state);
	}
	printf("%-28s %-28s %-12s %9llu %6llu %8llu\n",
	       strcat(strcat(local, ":"), u64_text(v64[0])),
	       strcat(strcat(remote, ":"), u64_text(v64[1])),
	       states[state < 12 ? state : 0], (unsigned long long)v64[2],
	       (unsigned long long)v64[3], (unsigned long long)v64[4]);
}

static void cmd_tcp(int argc, char **argv)
{
	static const oid state[] = { CM_OID_clusterMonTcpConnState };

	(void)argc, (void)argv;
	printf("%-28s %-28s %-12s %9s %6s %8s\n", "LOCAL", "REMOTE", "STATE", "RTT(us)",
	       "CWND", "RETRANS");
	walk(state, OID_LENGTH(state), print_conn, NULL);
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
	if (len == 1 && is_number(v) && h->n < 1024)
		h->mean[h->n++] = number_of(v);
}

static void cmd_history(int argc, char **argv)
{
	static const oid owners[] = { CM_OID_clusterMonHistoryCtlOwner };
	oid means[] = { CM_OID_clusterMonHistoryMean, 0 };
	struct history *h = calloc(1, sizeof(*h));
	struct name_match m = { argc > 0 ? argv[0] : NULL, 0 };
	char *line;

	if (m.want == NULL || h == NULL)
		die(EXIT_REFUSED, "history takes the owner name of a clusterMonHistoryCtlTable row");
	walk(owners, OID_LENGTH(owners), match_name, &m);
	if (m.index == 0)
		die(EXIT_REFUSED, "no history named %s on %s", m.want, ss->peername);
	means[OID_LENGTH(means) - 1] = m.index;
	walk(means, OID_LENGTH(means), collect_mean, h);
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
static void cmd_nodes(int argc, char **argv)
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
	get_string(name_oid, OID_LENGTH(name_oid), zero, 1, name, sizeof(name));
	get_at(util, OID_LENGTH(util), zero, 1, &u);
	get_at(ncpu, OID_LENGTH(ncpu), zero, 1, &n);
	get_at(total, OID_LENGTH(total), zero, 1, &t);
	get_at(avail, OID_LENGTH(avail), zero, 1, &a);
	get_at(helper, OID_LENGTH(helper), zero, 1, &h);
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

		get_at(src_entry, OID_LENGTH(src_entry), idx, 2, &f[i]);
	}
	printf("%-8.*s %12llu %10llu %12llu %8llu\n", (int)v->val_len, (const char *)v->val.string,
	       (unsigned long long)f[0], (unsigned long long)f[1], (unsigned long long)f[2],
	       (unsigned long long)f[3]);
}

/* The sampling control table (dproc): what each source costs and how often. */
static void cmd_sources(int argc, char **argv)
{
	(void)argc, (void)argv;
	printf("%-8s %12s %10s %12s %8s\n", "SOURCE", "INTERVAL(ms)", "COST(us)", "SAMPLES",
	       "LATE");
	walk_entry(src_entry, OID_LENGTH(src_entry), S_NAME, print_source, NULL);
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

		get_at(mem, OID_LENGTH(mem), idx, 2, &kb[i]);
		printf(" %s %.1f GiB%s", name[i], (double)kb[i] / (1024.0 * 1024.0), i < 3 ? "," : "");
	}
	printf("\n");
}

/* One screen for a first look: the node, CPUs, memory, the busiest
 * processes, one distribution drawn, and the source table. Each part is
 * what its own command shows, shortened to fit 50 lines. */
static void cmd_overview(int argc, char **argv)
{
	static const oid ver[] = { CM_OID_clusterMonAgentVersion };
	static const oid zero[] = { 0 };
	char version[32];

	(void)argc, (void)argv;
	get_string(ver, OID_LENGTH(ver), zero, 1, version, sizeof(version));
	printf("== node (clustermond %s)\n", version);
	cmd_nodes(0, NULL);
	printf("\n== CPUs (clusterMonCpuTable)\n");
	cmd_cpu(0, NULL);
	printf("\n== memory (clusterMonMemory)\n");
	print_memory();
	printf("\n== busiest processes (clusterMonProcTable)\n");
	show_procs(5);
	/* The cost of a cpu sample: always filled within a second of start,
	 * and the figure dproc's sampling control is about. */
	printf("\n== a distribution (clusterMonHistBucketTable)\n");
	if (!show_hist("sample.cost.cpu", 20))
		printf("(no distribution sample.cost.cpu yet)\n");
	printf("\n== sources (clusterMonSourceTable)\n");
	cmd_sources(0, NULL);
}

/* ------------------------------------------------------------ thresholds */

static const oid th_entry[] = { CM_OID_clusterMonThresholdEntry };
enum {
	T_VARIABLE = CM_ARC_clusterMonThresholdVariable, T_TYPE = CM_ARC_clusterMonThresholdSampleType,
	T_INTERVAL = CM_ARC_clusterMonThresholdIntervalMs,
	T_RISING = CM_ARC_clusterMonThresholdRisingLevel,
	T_FALLING = CM_ARC_clusterMonThresholdFallingLevel, T_VALUE = CM_ARC_clusterMonThresholdValue,
	T_STATE = CM_ARC_clusterMonThresholdState, T_STATUS = CM_ARC_clusterMonThresholdRowStatus,
	T_OWNER = CM_ARC_clusterMonThresholdOwner
};

static void print_threshold(const oid *index, size_t len, const netsnmp_variable_list *v,
			    void *arg)
{
	static const char *const states[] = { "?", "armed", "risen", "fallen" };
	char owner[128], rising[32], falling[32], var[256];
	uint64_t value = 0, state = 0;
	oid i[2] = { 0, index[0] };

	(void)arg;
	if (len != 1 || v->type != ASN_OBJECT_ID)
		return;
	snprint_objid(var, sizeof(var), v->val.objid, v->val_len / sizeof(oid));
	i[0] = T_OWNER;
	get_string(th_entry, OID_LENGTH(th_entry), i, 2, owner, sizeof(owner));
	i[0] = T_RISING;
	get_string(th_entry, OID_LENGTH(th_entry), i, 2, rising, sizeof(rising));
	i[0] = T_FALLING;
	get_string(th_entry, OID_LENGTH(th_entry), i, 2, falling, sizeof(falling));
	i[0] = T_STATE;
	get_at(th_entry, OID_LENGTH(th_entry), i, 2, &state);
	i[0] = T_VALUE;
	if (!get_at(th_entry, OID_LENGTH(th_entry), i, 2, &value))
		value = 0;
	printf("%5lu  %-12s %-7s %12llu  rising %s falling %s  %s\n", (unsigned long)index[0],
	       owner, states[state <= 3 ? state : 0], (unsigned long long)value, rising, falling,
	       var);
}

static void cmd_thresholds(int argc, char **argv)
{
	(void)argc, (void)argv;
	printf("%5s  %-12s %-7s %12s  %s\n", "INDEX", "OWNER", "STATE", "VALUE", "LEVELS, VARIABLE");
	walk_entry(th_entry, OID_LENGTH(th_entry), T_VARIABLE, print_threshold, NULL);
}

static void th_add_var(netsnmp_pdu *pdu, unsigned col, oid index, u_char type, const void *val,
		       size_t len)
{
	oid name[OID_LENGTH(th_entry) + 2];

	memcpy(name, th_entry, sizeof(th_entry));
	name[OID_LENGTH(th_entry)] = col;
	name[OID_LENGTH(th_entry) + 1] = index;
	snmp_pdu_add_variable(pdu, name, OID_LENGTH(name), type, val, len);
}

/* threshold add NAME OID rising=N falling=N [delta] [interval=MS] */
static void threshold_add(int argc, char **argv)
{
	const char *rising = NULL, *falling = NULL;
	long type = 1, interval = 1000, go = 4, err;
	oid var[MAX_OID_LEN], index;
	size_t var_len = MAX_OID_LEN;
	netsnmp_pdu *pdu;

	if (argc < 2 || !snmp_parse_oid(argv[1], var, &var_len))
		die(EXIT_REFUSED, "threshold add NAME OID rising=N falling=N [delta] [interval=MS] "
		    "(OID numeric)");
	for (int i = 2; i < argc; i++) {
		if (strncmp(argv[i], "rising=", 7) == 0) rising = argv[i] + 7;
		else if (strncmp(argv[i], "falling=", 8) == 0) falling = argv[i] + 8;
		else if (strcmp(argv[i], "delta") == 0) type = 2;
		else if (strncmp(argv[i], "interval=", 9) == 0) interval = atol(argv[i] + 9);
		else die(EXIT_REFUSED, "unknown word '%s'", argv[i]);
	}
	if (rising == NULL || falling == NULL)
		die(EXIT_REFUSED, "threshold add needs rising=N and falling=N");
	index = free_index(th_entry, OID_LENGTH(th_entry), T_STATUS);
	pdu = snmp_pdu_create(SNMP_MSG_SET);
	th_add_var(pdu, T_STATUS, index, ASN_INTEGER, &go, sizeof(go));
	th_add_var(pdu, T_VARIABLE, index, ASN_OBJECT_ID, var, var_len * sizeof(oid));
	th_add_var(pdu, T_TYPE, index, ASN_INTEGER, &type, sizeof(type));
	th_add_var(pdu, T_INTERVAL, index, ASN_UNSIGNED, &interval, sizeof(interval));
	th_add_var(pdu, T_RISING, index, ASN_OCTET_STR, rising, strlen(rising));
	th_add_var(pdu, T_FALLING, index, ASN_OCTET_STR, falling, strlen(falling));
	th_add_var(pdu, T_OWNER, index, ASN_OCTET_STR, argv[0], strlen(argv[0]));
	err = set(pdu);
	if (err != SNMP_ERR_NOERROR)
		die(EXIT_REFUSED, "threshold '%s' refused: %s", argv[0], snmp_errstring(err));
	printf("threshold %lu: %s\n", (unsigned long)index, argv[0]);
}

static void cmd_threshold(int argc, char **argv)
{
	if (argc > 0 && strcmp(argv[0], "add") == 0)
		threshold_add(argc - 1, argv + 1);
	else
		die(EXIT_REFUSED, "threshold add NAME OID rising=N falling=N [delta] [interval=MS]");
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

		context = node;
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
	context = NULL;
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
	case 'W':
		watch_seconds = atoi(optarg);
		if (watch_seconds < 1)
			die(EXIT_REFUSED, "-W takes a number of seconds (1 or more)");
		break;
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
	ss = snmp_open(&session);
	/* snmp_open copied the community snmp_parse_args allocated. */
	free(session.community);
	session.community = NULL;
	if (ss == NULL)
		die(EXIT_DOWN, "cannot open an SNMP session to %s", session.peername);
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (strcmp(argv[arg], commands[i].name) != 0)
			continue;
		do {
			if (watch_seconds > 0 && !commands[i].writes)
				printf("\033[H\033[2J%s: %s, every %d s\n\n", ss->peername, argv[arg],
				       watch_seconds);
			run_everywhere(commands[i].run, argc - arg - 1, argv + arg + 1,
				       commands[i].run != cmd_nodes);
			fflush(stdout);
		} while (watch_seconds > 0 && !commands[i].writes && sleep((unsigned)watch_seconds) == 0);
		snmp_close(ss);
		snmp_shutdown("clustermonctl");
		return 0;
	}
	die(EXIT_REFUSED, "unknown command '%s'", argv[arg]);
}
