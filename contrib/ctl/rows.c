/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * rows.c - clustermonctl's read-create tables: probes, traces and
 * thresholds listed, and rows created (the lowest free index, createAndGo)
 * and destroyed.
 */
#include "ctl.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mib/cm-oids.h"

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

		cm_get_number(probe_entry, OID_LENGTH(probe_entry), h, 2, &hits);
		cm_get_number(probe_entry, OID_LENGTH(probe_entry), l, 2, &lost);
		cm_get_number(probe_entry, OID_LENGTH(probe_entry), o, 2, &st);
		cm_get_string(probe_entry, OID_LENGTH(probe_entry), e, 2, error, sizeof(error));
	}
	printf("%5lu  %-11s %14llu %8llu  %.*s%s%s\n", (unsigned long)index[0],
	       oper[st <= 4 ? st : 0], (unsigned long long)hits, (unsigned long long)lost,
	       (int)v->val_len, (const char *)v->val.string, error[0] ? "  # " : "", error);
}

static void count_row(const oid *index, size_t len, const netsnmp_variable_list *v, void *arg)
{
	(void)index, (void)v;
	if (len == 1)
		++*(size_t *)arg;
}

size_t probe_count(void)
{
	size_t n = 0;

	cm_walk_entry(probe_entry, OID_LENGTH(probe_entry), P_STATUS, count_row, &n);
	return n;
}

void cmd_probes(int argc, char **argv)
{
	(void)argc, (void)argv;
	printf("%5s  %-11s %14s %8s  %s\n", "INDEX", "STATUS", "HITS", "LOST", "SPEC");
	cm_walk_entry(probe_entry, OID_LENGTH(probe_entry), P_SPEC, print_probe, NULL);
}

static void mark_used(const oid *index, size_t len, const netsnmp_variable_list *v, void *arg)
{
	unsigned char *used = arg;

	(void)v;
	if (len == 1 && index[0] >= 1 && index[0] <= 65535)
		used[index[0]] = 1;
}

/* The lowest index no row of the table has (its RowStatus column walked). */
oid ctl_free_index(const oid *entry, size_t entry_len, unsigned status_col)
{
	unsigned char *used = calloc(65536, 1);
	oid index = 0;

	if (used == NULL)
		die(EXIT_DOWN, "out of memory");
	cm_walk_entry(entry, entry_len, status_col, mark_used, used);
	for (oid i = 1; i <= 65535 && index == 0; i++)
		if (!used[i])
			index = i;
	free(used);
	if (index == 0)
		die(EXIT_REFUSED, "the table on %s is full", cm_client.ss->peername);
	return index;
}

static void add_int(netsnmp_pdu *pdu, unsigned col, oid index, u_char type, long value)
{
	cm_add_column(pdu, probe_entry, OID_LENGTH(probe_entry), col, index, type, &value,
		      sizeof(value));
}

/* A SET; the error status (noError when it went through). */
long ctl_set(netsnmp_pdu *pdu)
{
	netsnmp_pdu *r = cm_exchange(pdu);
	long err = r->errstat;

	snmp_free_pdu(r);
	if (err == SNMP_ERR_NOACCESS || err == SNMP_ERR_AUTHORIZATIONERROR ||
	    err == SNMP_ERR_NOTWRITABLE || err == SNMP_ERR_READONLY)
		die(EXIT_REFUSED, "no write access to the table on %s (%s): use a "
		    "community or v3 user that may SET it", cm_client.ss->peername, snmp_errstring(err));
	return err;
}

static long filter_value(const char *word, const char *key)
{
	size_t k = strlen(key);
	long v;

	if (strncmp(word, key, k) != 0)
		return -2;
	if (!ctl_number(word + k, 0, INT32_MAX, &v))
		die(EXIT_REFUSED, "'%s': %s takes a number", word, key);
	return v;
}

/* clustermond answers the activating SET at once and attaches afterwards:
 * the outcome is the row's OperStatus, up(1), failed(3) or unsupported(4).
 * down(2) while it is being attached; still down after ATTACH_WAIT_S (no
 * helper running, say) counts as not attached. */
#define ATTACH_WAIT_S 10

uint64_t ctl_attach_outcome(const oid *entry, size_t entry_len, unsigned oper_col, oid index)
{
	const struct timespec pause = { .tv_nsec = 50000000 };
	oid o[2] = { oper_col, index };
	uint64_t st = 0;

	for (int i = 0; i < ATTACH_WAIT_S * 20; i++) {
		if (cm_get_number(entry, entry_len, o, 2, &st) && st != 2)
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
	index = ctl_free_index(probe_entry, OID_LENGTH(probe_entry), P_STATUS);
	pdu = snmp_pdu_create(SNMP_MSG_SET);
	add_int(pdu, P_STATUS, index, ASN_INTEGER, 5); /* createAndWait */
	cm_add_column(pdu, probe_entry, OID_LENGTH(probe_entry), P_SPEC, index, ASN_OCTET_STR,
		      argv[0], strlen(argv[0]));
	add_int(pdu, P_FILTERPID, index, ASN_INTEGER, pid);
	add_int(pdu, P_FILTERCPU, index, ASN_INTEGER, cpu);
	add_int(pdu, P_EVERY, index, ASN_UNSIGNED, every);
	if ((v = ctl_set(pdu)) != SNMP_ERR_NOERROR)
		die(EXIT_REFUSED, "probe '%s' refused: %s", argv[0], snmp_errstring(v));
	pdu = snmp_pdu_create(SNMP_MSG_SET);
	add_int(pdu, P_STATUS, index, ASN_INTEGER, 1); /* active */
	if ((v = ctl_set(pdu)) != SNMP_ERR_NOERROR ||
	    ctl_attach_outcome(probe_entry, OID_LENGTH(probe_entry), P_OPER, index) != 1) {
		oid e[2] = { P_ERROR, index };

		cm_get_string(probe_entry, OID_LENGTH(probe_entry), e, 2, error, sizeof(error));
		if (error[0] == '\0' && v == SNMP_ERR_NOERROR)
			snprintf(error, sizeof(error), "not attached within %d s (is "
				 "clustermon-kprobe running?)", ATTACH_WAIT_S);
		pdu = snmp_pdu_create(SNMP_MSG_SET);
		add_int(pdu, P_STATUS, index, ASN_INTEGER, 6); /* destroy */
		ctl_set(pdu);
		die(EXIT_REFUSED, "probe '%s' cannot attach: %s", argv[0],
		    error[0] ? error : snmp_errstring(v));
	}
	printf("probe %lu: %s\n", (unsigned long)index, argv[0]);
}

static void probe_del(int argc, char **argv)
{
	long index;
	netsnmp_pdu *pdu;
	long err;

	if (argc < 1 || !ctl_number(argv[0], 1, 65535, &index))
		die(EXIT_REFUSED, "probe del takes a probe index (1..65535)");
	{
		oid st[2] = { P_STATUS, (oid)index };
		uint64_t v;

		if (!cm_get_number(probe_entry, OID_LENGTH(probe_entry), st, 2, &v))
			die(EXIT_REFUSED, "no probe %ld on %s", index, cm_client.ss->peername);
	}
	pdu = snmp_pdu_create(SNMP_MSG_SET);
	add_int(pdu, P_STATUS, (oid)index, ASN_INTEGER, 6);
	err = ctl_set(pdu);
	if (err != SNMP_ERR_NOERROR)
		die(EXIT_REFUSED, "probe %ld cannot be removed: %s", index, snmp_errstring(err));
	printf("probe %ld removed\n", index);
}

void cmd_probe(int argc, char **argv)
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
	cm_add_column(pdu, trace_entry, OID_LENGTH(trace_entry), col, index, type, val, len);
}

uint64_t ctl_col_num(const oid *entry, size_t entry_len, unsigned col, oid index)
{
	oid at[2] = { col, index };
	uint64_t v = 0;

	cm_get_number(entry, entry_len, at, 2, &v);
	return v;
}

void ctl_col_str(const oid *entry, size_t entry_len, unsigned col, oid index, char *buf,
		 size_t len)
{
	oid at[2] = { col, index };

	cm_get_string(entry, entry_len, at, 2, buf, len);
}

static uint64_t trace_num(oid index, unsigned col)
{
	return ctl_col_num(trace_entry, OID_LENGTH(trace_entry), col, index);
}

static void trace_str(oid index, unsigned col, char *buf, size_t len)
{
	ctl_col_str(trace_entry, OID_LENGTH(trace_entry), col, index, buf, len);
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
	cm_walk_entry(trace_entry, OID_LENGTH(trace_entry), TR_SPEC, print_trace, NULL);
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
	index = ctl_free_index(trace_entry, OID_LENGTH(trace_entry), TR_STATUS);
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
	if ((err = ctl_set(pdu)) != SNMP_ERR_NOERROR)
		die(EXIT_REFUSED, "trace '%s' refused: %s", argv[0], snmp_errstring(err));
	printf("trace %lu: %s (queued; see trace show %lu)\n", (unsigned long)index, argv[0],
	       (unsigned long)index);
}

oid ctl_row_arg(int argc, char **argv, const oid *entry, size_t entry_len, unsigned status_col,
		const char *what)
{
	long index;
	oid st[2] = { status_col, 0 };
	uint64_t v = 0;

	if (argc < 1 || !ctl_number(argv[0], 1, 65535, &index))
		die(EXIT_REFUSED, "%s takes a row index (1..65535)", what);
	st[1] = (oid)index;
	if (!cm_get_number(entry, entry_len, st, 2, &v) || v == 0)
		die(EXIT_REFUSED, "no row %ld for %s on %s", index, what, cm_client.ss->peername);
	return (oid)index;
}

static oid trace_index(int argc, char **argv, const char *what)
{
	return ctl_row_arg(argc, argv, trace_entry, OID_LENGTH(trace_entry), TR_STATUS, what);
}

static void trace_stop(int argc, char **argv)
{
	oid index = trace_index(argc, argv, "trace stop");
	netsnmp_pdu *pdu = snmp_pdu_create(SNMP_MSG_SET);
	long nis = 2, err;

	trace_var(pdu, TR_STATUS, index, ASN_INTEGER, &nis, sizeof(nis));
	if ((err = ctl_set(pdu)) != SNMP_ERR_NOERROR)
		die(EXIT_REFUSED, "trace %lu cannot be stopped: %s", (unsigned long)index,
		    snmp_errstring(err));
	printf("trace %lu stopping\n", (unsigned long)index);
}

static void trace_show(int argc, char **argv)
{
	oid i = trace_index(argc, argv, "trace show");
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

void cmd_traces(int argc, char **argv)
{
	(void)argc, (void)argv;
	trace_list();
}

void cmd_trace(int argc, char **argv)
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
	cm_get_string(th_entry, OID_LENGTH(th_entry), i, 2, owner, sizeof(owner));
	i[0] = T_RISING;
	cm_get_string(th_entry, OID_LENGTH(th_entry), i, 2, rising, sizeof(rising));
	i[0] = T_FALLING;
	cm_get_string(th_entry, OID_LENGTH(th_entry), i, 2, falling, sizeof(falling));
	i[0] = T_STATE;
	cm_get_number(th_entry, OID_LENGTH(th_entry), i, 2, &state);
	i[0] = T_VALUE;
	if (!cm_get_number(th_entry, OID_LENGTH(th_entry), i, 2, &value))
		value = 0;
	printf("%5lu  %-12s %-7s %12llu  rising %s falling %s  %s\n", (unsigned long)index[0],
	       owner, states[state <= 3 ? state : 0], (unsigned long long)value, rising, falling,
	       var);
}

void cmd_thresholds(int argc, char **argv)
{
	(void)argc, (void)argv;
	printf("%5s  %-12s %-7s %12s  %s\n", "INDEX", "OWNER", "STATE", "VALUE", "LEVELS, VARIABLE");
	cm_walk_entry(th_entry, OID_LENGTH(th_entry), T_VARIABLE, print_threshold, NULL);
}

static void th_add_var(netsnmp_pdu *pdu, unsigned col, oid index, u_char type, const void *val,
		       size_t len)
{
	cm_add_column(pdu, th_entry, OID_LENGTH(th_entry), col, index, type, val, len);
}

static long interval_ms(const char *word)
{
	long v;

	if (!ctl_number(word + 9, 1, UINT32_MAX, &v))
		die(EXIT_REFUSED, "'%s': interval= takes milliseconds (1 or more)", word);
	return v;
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
		else if (strncmp(argv[i], "interval=", 9) == 0) interval = interval_ms(argv[i]);
		else die(EXIT_REFUSED, "unknown word '%s'", argv[i]);
	}
	if (rising == NULL || falling == NULL)
		die(EXIT_REFUSED, "threshold add needs rising=N and falling=N");
	index = ctl_free_index(th_entry, OID_LENGTH(th_entry), T_STATUS);
	pdu = snmp_pdu_create(SNMP_MSG_SET);
	th_add_var(pdu, T_STATUS, index, ASN_INTEGER, &go, sizeof(go));
	th_add_var(pdu, T_VARIABLE, index, ASN_OBJECT_ID, var, var_len * sizeof(oid));
	th_add_var(pdu, T_TYPE, index, ASN_INTEGER, &type, sizeof(type));
	th_add_var(pdu, T_INTERVAL, index, ASN_UNSIGNED, &interval, sizeof(interval));
	th_add_var(pdu, T_RISING, index, ASN_OCTET_STR, rising, strlen(rising));
	th_add_var(pdu, T_FALLING, index, ASN_OCTET_STR, falling, strlen(falling));
	th_add_var(pdu, T_OWNER, index, ASN_OCTET_STR, argv[0], strlen(argv[0]));
	err = ctl_set(pdu);
	if (err != SNMP_ERR_NOERROR)
		die(EXIT_REFUSED, "threshold '%s' refused: %s", argv[0], snmp_errstring(err));
	printf("threshold %lu: %s\n", (unsigned long)index, argv[0]);
}

void cmd_threshold(int argc, char **argv)
{
	if (argc > 0 && strcmp(argv[0], "add") == 0)
		threshold_add(argc - 1, argv + 1);
	else
		die(EXIT_REFUSED, "threshold add NAME OID rising=N falling=N [delta] [interval=MS]");
}
