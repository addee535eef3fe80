/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * dists.c - clustermonctl's distribution rows (clusterMonDistTable): listed,
 * added from a spec or a ready one (biolatency, readlat, ...), removed, and
 * drawn as `hist` draws sched.runqlat.
 */
#include "ctl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mib/cm-oids.h"

static const oid dist_entry[] = { CM_OID_clusterMonDistEntry };
enum {
	D_SPEC = CM_ARC_clusterMonDistSpec, D_PID = CM_ARC_clusterMonDistFilterPid,
	D_CPU = CM_ARC_clusterMonDistFilterCpu, D_EVERY = CM_ARC_clusterMonDistSampleEvery,
	D_CGROUP = CM_ARC_clusterMonDistFilterCgroup, D_INFLIGHT = CM_ARC_clusterMonDistMaxInflight,
	D_SOURCE = CM_ARC_clusterMonDistSourceIndex, D_HITS = CM_ARC_clusterMonDistHits,
	D_MISSES = CM_ARC_clusterMonDistMisses, D_RECENT = CM_ARC_clusterMonDistRecentP99,
	D_OPER = CM_ARC_clusterMonDistOperStatus, D_ERROR = CM_ARC_clusterMonDistLastError,
	D_STATUS = CM_ARC_clusterMonDistRowStatus,
};

/* Specs for the questions operators bring to bcc and bpftrace. */
static const struct {
	const char *name, *spec, *what;
} ready[] = {
	{ "biolatency", "latency tracepoint:block:block_rq_issue tracepoint:block:block_rq_complete "
	  "key dev+sector", "block I/O latency, issue to completion, of every disk (ns)" },
	{ "readlat", "latency tracepoint:syscalls:sys_enter_read tracepoint:syscalls:sys_exit_read",
	  "read() latency (ns); pid=N for one process" },
	{ "writelat", "latency tracepoint:syscalls:sys_enter_write tracepoint:syscalls:sys_exit_write",
	  "write() latency (ns); pid=N for one process" },
	{ "readsize", "value tracepoint:syscalls:sys_exit_read ret", "bytes per read()" },
	{ "tcpsend", "value tracepoint:sock:sock_send_length ret",
	  "bytes per send on a socket (TCP's among them)" },
};
#define NREADY (sizeof(ready) / sizeof(ready[0]))

static uint64_t num(oid index, unsigned col)
{
	return ctl_col_num(dist_entry, OID_LENGTH(dist_entry), col, index);
}

static void str(oid index, unsigned col, char *buf, size_t len)
{
	ctl_col_str(dist_entry, OID_LENGTH(dist_entry), col, index, buf, len);
}

static void print_row(const oid *index, size_t len, const netsnmp_variable_list *v, void *arg)
{
	static const char *const oper[] = { "?", "up", "down", "failed" };
	uint64_t st;
	char error[256];

	(void)arg;
	if (len != 1 || v->type != ASN_OCTET_STR)
		return;
	st = num(index[0], D_OPER);
	str(index[0], D_ERROR, error, sizeof(error));
	printf("%5lu  %-7s %12s %8s %14s  %.*s%s%s\n", (unsigned long)index[0],
	       oper[st <= 3 ? st : 0], u64_text(num(index[0], D_HITS)),
	       u64_text(num(index[0], D_MISSES)), u64_text(num(index[0], D_RECENT)),
	       (int)v->val_len, (const char *)v->val.string, error[0] ? "  # " : "", error);
}

static void list(void)
{
	printf("%5s  %-7s %12s %8s %14s  %s\n", "INDEX", "STATUS", "HITS", "MISSES", "RECENT-P99",
	       "SPEC (source dist.INDEX)");
	cm_walk_entry(dist_entry, OID_LENGTH(dist_entry), D_SPEC, print_row, NULL);
}

static void specs(void)
{
	for (size_t i = 0; i < NREADY; i++)
		printf("%-11s %s\n            %s\n", ready[i].name, ready[i].what, ready[i].spec);
}

static void add_int(netsnmp_pdu *pdu, unsigned col, oid index, u_char type, long value)
{
	cm_add_column(pdu, dist_entry, OID_LENGTH(dist_entry), col, index, type, &value,
		      sizeof(value));
}

static void add_str(netsnmp_pdu *pdu, unsigned col, oid index, const char *s)
{
	cm_add_column(pdu, dist_entry, OID_LENGTH(dist_entry), col, index, ASN_OCTET_STR, s,
		      strlen(s));
}

/* A filter word into the pdu: pid=, cpu=, every=, cgroup=, inflight=. */
static void filter(netsnmp_pdu *pdu, oid index, const char *w)
{
	static const struct {
		const char *key;
		unsigned col;
		u_char type;
		long lo, hi;
	} keys[] = {
		{ "pid=", D_PID, ASN_INTEGER, 1, 2147483647L },
		{ "cpu=", D_CPU, ASN_INTEGER, 0, 8191 },
		{ "every=", D_EVERY, ASN_UNSIGNED, 1, 1000000 },
		{ "inflight=", D_INFLIGHT, ASN_UNSIGNED, 1, 65536 },
	};
	long v;

	if (strncmp(w, "cgroup=", 7) == 0) {
		add_str(pdu, D_CGROUP, index, w + 7);
		return;
	}
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		size_t k = strlen(keys[i].key);

		if (strncmp(w, keys[i].key, k) != 0)
			continue;
		if (!ctl_number(w + k, keys[i].lo, keys[i].hi, &v))
			die(EXIT_REFUSED, "'%s': %s takes %ld..%ld", w, keys[i].key, keys[i].lo,
			    keys[i].hi);
		add_int(pdu, keys[i].col, index, keys[i].type, v);
		return;
	}
	die(EXIT_REFUSED, "unknown word '%s' (pid=N, cpu=N, every=N, cgroup=PATH, inflight=N)", w);
}

/* The spec words of argv (those without '='), or the ready spec one names. */
static void spec_of(int argc, char **argv, char *spec, size_t len)
{
	size_t n = 0;

	spec[0] = '\0';
	for (int i = 0; i < argc; i++) {
		if (strchr(argv[i], '=') != NULL)
			continue;
		if (n + strlen(argv[i]) + 2 > len)
			die(EXIT_REFUSED, "the spec is longer than %zu characters", len - 1);
		n += (size_t)snprintf(spec + n, len - n, "%s%s", n ? " " : "", argv[i]);
	}
	for (size_t i = 0; i < NREADY; i++)
		if (strcmp(spec, ready[i].name) == 0)
			snprintf(spec, len, "%s", ready[i].spec);
	if (spec[0] == '\0')
		die(EXIT_REFUSED, "dist add takes a SPEC or one of the ready specs (dist specs)");
}

/* createAndWait with every column, then active: the agent attaches it
 * afterwards and OperStatus says how that went. */
static void add(int argc, char **argv)
{
	char spec[201], error[256];
	oid index = ctl_free_index(dist_entry, OID_LENGTH(dist_entry), D_STATUS);
	netsnmp_pdu *pdu = snmp_pdu_create(SNMP_MSG_SET);
	long err;

	spec_of(argc, argv, spec, sizeof(spec));
	add_int(pdu, D_STATUS, index, ASN_INTEGER, 5);
	add_str(pdu, D_SPEC, index, spec);
	for (int i = 0; i < argc; i++)
		if (strchr(argv[i], '=') != NULL)
			filter(pdu, index, argv[i]);
	if ((err = ctl_set(pdu)) != SNMP_ERR_NOERROR)
		die(EXIT_REFUSED, "'%s' refused: %s", spec, snmp_errstring(err));
	pdu = snmp_pdu_create(SNMP_MSG_SET);
	add_int(pdu, D_STATUS, index, ASN_INTEGER, 1);
	if ((err = ctl_set(pdu)) != SNMP_ERR_NOERROR ||
	    ctl_attach_outcome(dist_entry, OID_LENGTH(dist_entry), D_OPER, index) != 1) {
		str(index, D_ERROR, error, sizeof(error));
		pdu = snmp_pdu_create(SNMP_MSG_SET);
		add_int(pdu, D_STATUS, index, ASN_INTEGER, 6);
		ctl_set(pdu);
		die(EXIT_REFUSED, "'%s' cannot attach: %s", spec, error[0] ? error :
		    err != SNMP_ERR_NOERROR ? snmp_errstring(err) :
		    "not attached in time (is clustermon-kprobe running?)");
	}
	printf("dist %lu: %s (clustermonctl HOST dist show %lu)\n", (unsigned long)index, spec,
	       (unsigned long)index);
}

static oid row_arg(int argc, char **argv, const char *what)
{
	return ctl_row_arg(argc, argv, dist_entry, OID_LENGTH(dist_entry), D_STATUS, what);
}

static void del(int argc, char **argv)
{
	oid index = row_arg(argc, argv, "dist del");
	netsnmp_pdu *pdu = snmp_pdu_create(SNMP_MSG_SET);
	long err;

	add_int(pdu, D_STATUS, index, ASN_INTEGER, 6);
	if ((err = ctl_set(pdu)) != SNMP_ERR_NOERROR)
		die(EXIT_REFUSED, "dist %lu cannot be removed: %s", (unsigned long)index,
		    snmp_errstring(err));
	printf("dist %lu removed\n", (unsigned long)index);
}

static void show(int argc, char **argv)
{
	oid index = row_arg(argc, argv, "dist show");
	char name[32], spec[256];

	str(index, D_SPEC, spec, sizeof(spec));
	snprintf(name, sizeof(name), "dist.%lu", (unsigned long)index);
	printf("%s\nrecent p99 %s; %s misses\n", spec, u64_text(num(index, D_RECENT)),
	       u64_text(num(index, D_MISSES)));
	if (!ctl_show_hist(name, 40))
		die(EXIT_REFUSED, "dist %lu is not active (no %s)", (unsigned long)index, name);
}

void cmd_dist(int argc, char **argv)
{
	const char *verb = argc > 0 ? argv[0] : "list";

	if (strcmp(verb, "list") == 0)
		list();
	else if (strcmp(verb, "specs") == 0)
		specs();
	else if (strcmp(verb, "add") == 0)
		add(argc - 1, argv + 1);
	else if (strcmp(verb, "del") == 0)
		del(argc - 1, argv + 1);
	else if (strcmp(verb, "show") == 0)
		show(argc - 1, argv + 1);
	else
		die(EXIT_REFUSED, "dist [list] | dist specs | dist add SPEC|READY [FILTERS] | "
		    "dist del INDEX | dist show INDEX");
}
