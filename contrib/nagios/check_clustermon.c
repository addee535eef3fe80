/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * check_clustermon - a Monitoring Plugins style check of CLUSTER-MON-MIB:
 * one value read over SNMP, compared with -w/-c ranges, printed as
 * "CLUSTERMON MODE STATE: text | perfdata" with exit 0/1/2/3.
 *
 * UNKNOWN when the host does not answer in time or clustermond is not
 * registered with its snmpd (noSuchObject), never a guess.
 */
#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/number.h"
#include "mib/cm-oids.h"
#include "range.h"
#include "snmpclient.h"


struct options {
	const char *host, *community, *version, *mode, *name;
	const char *user, *level, *auth_proto, *auth_pass, *priv_proto, *priv_pass;
	int port, timeout, cpu, percentile, seconds;
	bool seconds_given;
	struct range warn, crit;
};

static struct options opt = {
	.community = "public", .version = "2c", .port = 161, .timeout = 10, .cpu = -1,
	.percentile = 99, .seconds = 1,
};
static const char *mode_label = "CHECK";
static netsnmp_session *session;
static netsnmp_pdu *last_response;   /* freed by the next request or finish */

static void finish(enum plugin_state s, const char *fmt, ...)
{
	va_list ap;

	printf("CLUSTERMON %s %s: ", mode_label, state_name(s));
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	/* Everything freed, so a leak checker sees only real leaks. */
	if (last_response != NULL)
		snmp_free_pdu(last_response);
	if (session != NULL)
		snmp_close(session);
	snmp_shutdown("check_clustermon");
	exit((int)s);
}

/* ------------------------------------------------------------ SNMP */

static int v3_setup(netsnmp_session *s)
{
	s->securityName = strdup(opt.user ? opt.user : "");
	s->securityNameLen = strlen(s->securityName);
	s->securityLevel = !opt.level || strcmp(opt.level, "authPriv") == 0 ? SNMP_SEC_LEVEL_AUTHPRIV :
			   strcmp(opt.level, "authNoPriv") == 0 ? SNMP_SEC_LEVEL_AUTHNOPRIV :
								   SNMP_SEC_LEVEL_NOAUTH;
	if (s->securityLevel != SNMP_SEC_LEVEL_NOAUTH) {
		bool sha256 = opt.auth_proto && strcmp(opt.auth_proto, "SHA-256") == 0;
		bool md5 = opt.auth_proto && strcmp(opt.auth_proto, "MD5") == 0;

		s->securityAuthProto = snmp_duplicate_objid(
			sha256 ? usmHMAC192SHA256AuthProtocol : md5 ? usmHMACMD5AuthProtocol :
							     usmHMACSHA1AuthProtocol,
			USM_AUTH_PROTO_SHA_LEN);
		s->securityAuthProtoLen = USM_AUTH_PROTO_SHA_LEN;
		s->securityAuthKeyLen = USM_AUTH_KU_LEN;
		if (!opt.auth_pass || generate_Ku(s->securityAuthProto, s->securityAuthProtoLen,
						  (const u_char *)opt.auth_pass, strlen(opt.auth_pass),
						  s->securityAuthKey, &s->securityAuthKeyLen) != SNMPERR_SUCCESS)
			return -1;
	}
	if (s->securityLevel == SNMP_SEC_LEVEL_AUTHPRIV) {
		bool des = opt.priv_proto && strcmp(opt.priv_proto, "DES") == 0;

		s->securityPrivProto = snmp_duplicate_objid(des ? usmDESPrivProtocol :
								  usmAESPrivProtocol,
							    USM_PRIV_PROTO_AES_LEN);
		s->securityPrivProtoLen = USM_PRIV_PROTO_AES_LEN;
		s->securityPrivKeyLen = USM_PRIV_KU_LEN;
		if (!opt.priv_pass || generate_Ku(s->securityAuthProto, s->securityAuthProtoLen,
						  (const u_char *)opt.priv_pass, strlen(opt.priv_pass),
						  s->securityPrivKey, &s->securityPrivKeyLen) != SNMPERR_SUCCESS)
			return -1;
	}
	return 0;
}

/* Failures of an exchange, in a plugin's words. */
static void snmp_failed(enum cm_failure why, const char *detail)
{
	if (why == CM_TIMEOUT)
		finish(STATE_UNKNOWN, "no answer from %s within %d s", opt.host, opt.timeout);
	finish(STATE_UNKNOWN, "SNMP error talking to %s: %s", opt.host, detail);
}

static void open_session(void)
{
	netsnmp_session s;
	char peer[300];

	init_snmp("check_clustermon");
	snmp_sess_init(&s);
	snprintf(peer, sizeof(peer), "udp:%s:%d", opt.host, opt.port);
	s.peername = peer;
	s.retries = 1;
	s.timeout = (long)opt.timeout * 1000000L / 2;
	if (strcmp(opt.version, "3") == 0) {
		s.version = SNMP_VERSION_3;
		if (v3_setup(&s) != 0)
			finish(STATE_UNKNOWN, "SNMPv3 needs -U, and -A/-X for the security level asked");
	} else {
		s.version = strcmp(opt.version, "1") == 0 ? SNMP_VERSION_1 : SNMP_VERSION_2c;
		s.community = (u_char *)strdup(opt.community);
		s.securityName = NULL;
		s.securityAuthProto = s.securityPrivProto = NULL;
		s.community_len = strlen(opt.community);
	}
	session = snmp_open(&s);
	cm_client.ss = session;
	cm_client.fail = snmp_failed;
	/* snmp_open copied what it needs. */
	free(s.community);
	free(s.securityName);
	free(s.securityAuthProto);
	free(s.securityPrivProto);
	if (session == NULL)
		finish(STATE_UNKNOWN, "cannot open an SNMP session to %s", opt.host);
}

/* One GET; the response's first varbind. The response is kept in
 * last_response until the next request or finish. */
static netsnmp_variable_list *get(const oid *name, size_t len)
{
	if (last_response != NULL)
		snmp_free_pdu(last_response);
	last_response = NULL;
	last_response = cm_request(SNMP_MSG_GET, name, len);
	if (last_response->errstat != SNMP_ERR_NOERROR)
		finish(STATE_UNKNOWN, "%s answered %s", opt.host,
		       snmp_errstring(last_response->errstat));
	return last_response->variables;
}

/* A number at name, 0 when it is not there. */
static double try_number(const oid *name, size_t len)
{
	netsnmp_variable_list *v = get(name, len);

	return cm_is_number(v) ? cm_double_of(v) : 0;
}

/* A number at name, or UNKNOWN saying what is missing. */
static double get_number(const oid *name, size_t len, const char *what)
{
	netsnmp_variable_list *v = get(name, len);

	if (v->type == SNMP_NOSUCHOBJECT)
		finish(STATE_UNKNOWN, "clustermond is not registered with the snmpd on %s "
		       "(noSuchObject for %s)", opt.host, what);
	if (v->type == SNMP_NOSUCHINSTANCE || !cm_is_number(v))
		finish(STATE_UNKNOWN, "%s is not served by %s (noSuchInstance)", what, opt.host);
	return cm_double_of(v);
}

/* Registered at all? The node name is the first object clustermond serves. */
static void require_subagent(void)
{
	if (!cm_registered())
		finish(STATE_UNKNOWN, "clustermond is not registered with the snmpd on %s "
		       "(noSuchObject for clusterMonNodeName.0)", opt.host);
}

static void perf_range(char *buf, size_t len, const struct range *r)
{
	snprintf(buf, len, "%s", r->set ? r->text : "");
}

static void report(double value, const char *text, const char *label, const char *unit,
		   const char *minmax)
{
	char w[64], c[64];

	perf_range(w, sizeof(w), &opt.warn);
	perf_range(c, sizeof(c), &opt.crit);
	finish(range_state(&opt.warn, &opt.crit, value), "%s | %s=%g%s;%s;%s;%s", text, label,
	       value, unit, w, c, minmax);
}

/* ------------------------------------------------------------ modes */

static void mode_cpu(void)
{
	static const oid total[] = { CM_OID_clusterMonCpuTotalUtil, 0 };
	oid one[] = { CM_OID_clusterMonCpuUtil, 0 };
	char text[128];
	double pct;

	if (opt.cpu >= 0) {
		one[OID_LENGTH(one) - 1] = (oid)opt.cpu + 1;
		pct = get_number(one, OID_LENGTH(one), "clusterMonCpuUtil") / 100.0;
		snprintf(text, sizeof(text), "CPU %d %.2f%% busy", opt.cpu, pct);
	} else {
		pct = get_number(total, OID_LENGTH(total), "clusterMonCpuTotalUtil") / 100.0;
		snprintf(text, sizeof(text), "%.2f%% busy", pct);
	}
	report(pct, text, "cpu", "%", "0;100");
}

/* cputop: the node's CPU as mode cpu, and when that is WARNING or CRITICAL
 * the busiest process by name: rank 1 of clusterMonProcTopTable, three
 * GETs, where finding it otherwise would walk every process. */
static void mode_cputop(void)
{
	static const oid total[] = { CM_OID_clusterMonCpuTotalUtil, 0 };
	static const oid pid_oid[] = { CM_OID_clusterMonProcTopPid, 1 };
	static const oid util_oid[] = { CM_OID_clusterMonProcTopCpuUtil, 1 };
	static const oid name_oid[] = { CM_OID_clusterMonProcTopName, 1 };
	double pct = get_number(total, OID_LENGTH(total), "clusterMonCpuTotalUtil") / 100.0;
	char text[256], name[65] = "?";
	netsnmp_variable_list *v;
	double pid, top;
	size_t n;

	if (range_state(&opt.warn, &opt.crit, pct) == STATE_OK) {
		snprintf(text, sizeof(text), "%.2f%% busy", pct);
		report(pct, text, "cpu", "%", "0;100");
	}
	pid = get_number(pid_oid, OID_LENGTH(pid_oid), "clusterMonProcTopPid.1");
	top = get_number(util_oid, OID_LENGTH(util_oid), "clusterMonProcTopCpuUtil.1") / 100.0;
	v = get(name_oid, OID_LENGTH(name_oid));
	if (v->type == ASN_OCTET_STR) {
		n = v->val_len < sizeof(name) - 1 ? v->val_len : sizeof(name) - 1;
		memcpy(name, v->val.string, n);
		name[n] = '\0';
		for (char *c = name; *c; c++) /* '|' would start the perfdata */
			if (*c < 0x20 || *c > 0x7e || *c == '|')
				*c = '?';
	}
	snprintf(text, sizeof(text), "%.2f%% busy, top process %s (pid %.0f) %.2f%% of a CPU",
		 pct, name, pid, top);
	report(pct, text, "cpu", "%", "0;100");
}

static void mode_mem(void)
{
	static const oid total_oid[] = { CM_OID_clusterMonMemTotalKB, 0 };
	static const oid avail_oid[] = { CM_OID_clusterMonMemAvailableKB, 0 };
	double total = get_number(total_oid, OID_LENGTH(total_oid), "clusterMonMemTotalKB");
	double avail = get_number(avail_oid, OID_LENGTH(avail_oid), "clusterMonMemAvailableKB");
	double pct = total > 0 ? avail * 100.0 / total : 0;
	char text[128];

	snprintf(text, sizeof(text), "%.0f MB available (%.2f%%)", avail / 1024, pct);
	report(pct, text, "mem_available", "%", "0;100");
}

struct proc_match {
	unsigned count;
	double cpu;
};

static void match_proc(const oid *index, size_t len, const netsnmp_variable_list *v, void *arg)
{
	struct proc_match *m = arg;
	oid util[] = { CM_OID_clusterMonProcCpuUtil, 0 };

	if (len != 1 || v->type != ASN_OCTET_STR || v->val_len != strlen(opt.name) ||
	    memcmp(v->val.string, opt.name, v->val_len) != 0)
		return;
	m->count++;
	util[OID_LENGTH(util) - 1] = index[0];
	/* A process that exited since the walk saw it adds no CPU. */
	m->cpu += try_number(util, OID_LENGTH(util)) / 100.0;
}

static void mode_proc(void)
{
	static const oid names[] = { CM_OID_clusterMonProcName };
	struct proc_match m = { 0, 0 };
	char text[256], w[64], c[64];

	if (opt.name == NULL)
		finish(STATE_UNKNOWN, "mode proc needs -n NAME");
	cm_walk(names, OID_LENGTH(names), match_proc, &m);
	snprintf(text, sizeof(text), "%u process%s named %s, %.2f%% CPU", m.count,
		 m.count == 1 ? "" : "es", opt.name, m.cpu);
	perf_range(w, sizeof(w), &opt.warn);
	perf_range(c, sizeof(c), &opt.crit);
	finish(range_state(&opt.warn, &opt.crit, m.count), "%s | procs=%u;%s;%s;0 cpu=%.2f%%",
	       text, m.count, w, c, m.cpu);
}

/* Per second over -s seconds of a Counter64. */
static double rate_of(const oid *name, size_t len, const char *what)
{
	double a = get_number(name, len, what), b;

	sleep((unsigned)opt.seconds);
	b = get_number(name, len, what);
	return b >= a ? (b - a) / opt.seconds : 0;
}

static void mode_retrans(void)
{
	static const oid retrans[] = { CM_OID_clusterMonTcpRetransSegs, 0 };
	double r = rate_of(retrans, OID_LENGTH(retrans), "clusterMonTcpRetransSegs");
	char text[128];

	snprintf(text, sizeof(text), "%.2f TCP retransmits/s over %d s", r, opt.seconds);
	report(r, text, "retrans", "", "0;");
}

static void find_hist(const oid *index, size_t len, const netsnmp_variable_list *v, void *arg)
{
	oid *found = arg;

	if (len == 1 && v->type == ASN_OCTET_STR && v->val_len == strlen(opt.name) &&
	    memcmp(v->val.string, opt.name, v->val_len) == 0)
		*found = index[0];
}

static void mode_hist(void)
{
	static const oid names[] = { CM_OID_clusterMonHistSourceName };
	oid pct[] = { CM_OID_clusterMonHistSourceEntry, 0, 0 }, index = 0;
	char text[160], label[8];
	double value;

	if (opt.name == NULL)
		finish(STATE_UNKNOWN, "mode hist needs -n DISTRIBUTION (clusterMonHistSourceName)");
	cm_walk(names, OID_LENGTH(names), find_hist, &index);
	if (index == 0)
		finish(STATE_UNKNOWN, "no distribution named %s on %s", opt.name, opt.host);
	pct[OID_LENGTH(pct) - 2] = opt.percentile == 50 ? CM_ARC_clusterMonHistSourceP50 :
				   opt.percentile == 90 ? CM_ARC_clusterMonHistSourceP90 :
							  CM_ARC_clusterMonHistSourceP99;
	pct[OID_LENGTH(pct) - 1] = index;
	value = get_number(pct, OID_LENGTH(pct), "clusterMonHistSourceP50/P90/P99");
	snprintf(label, sizeof(label), "p%d", opt.percentile);
	snprintf(text, sizeof(text), "%s of %s is %.0f", label, opt.name, value);
	report(value, text, label, "", "0;");
}

static void mode_probe(void)
{
	oid hits[] = { CM_OID_clusterMonProbeHits, 0 };
	char text[128];
	int64_t index = 0;
	double r;

	if (num_parse_i64(opt.name, 1, 65535, &index) != NUM_OK)
		finish(STATE_UNKNOWN, "mode probe needs -n INDEX (clusterMonProbeIndex, 1..65535)");
	hits[OID_LENGTH(hits) - 1] = (oid)index;
	r = rate_of(hits, OID_LENGTH(hits), "clusterMonProbeHits");
	snprintf(text, sizeof(text), "probe %d: %.2f events/s over %d s", (int)index, r, opt.seconds);
	report(r, text, "rate", "", "0;");
}

/* OOM kills clusterMonProcExitTable logged that ended in the last -s
 * seconds (300 unless given), the newest named. */
struct oom_match {
	unsigned count;
	uint64_t since_ms, last_ms;
	oid last;
};

static void match_oom(const oid *index, size_t len, const netsnmp_variable_list *v, void *arg)
{
	static const oid end[] = { CM_OID_clusterMonProcExitEndTime };
	struct oom_match *m = arg;
	uint64_t t;

	if (len != 1 || !cm_is_number(v) || cm_number_of(v) != 1 /* TruthValue true */ ||
	    !cm_get_number(end, OID_LENGTH(end), index, 1, &t) || t < m->since_ms)
		return;
	m->count++;
	if (t >= m->last_ms) {
		m->last_ms = t;
		m->last = index[0];
	}
}

static void mode_oom(void)
{
	static const oid killed[] = { CM_OID_clusterMonProcExitOomKilled };
	static const oid name[] = { CM_OID_clusterMonProcExitName };
	static const oid job[] = { CM_OID_clusterMonProcExitWorkload };
	static const oid pid[] = { CM_OID_clusterMonProcExitPid };
	struct oom_match m = { 0, 0, 0, 0 };
	int window = opt.seconds_given ? opt.seconds : 300;
	char text[256], who[64] = "", what[96] = "";
	uint64_t p = 0;

	m.since_ms = (uint64_t)time(NULL) * 1000u - (uint64_t)window * 1000u;
	cm_walk(killed, OID_LENGTH(killed), match_oom, &m);
	if (m.count == 0) {
		snprintf(text, sizeof(text), "no OOM kill in the last %d s", window);
	} else {
		cm_get_string(name, OID_LENGTH(name), &m.last, 1, who, sizeof(who));
		cm_get_string(job, OID_LENGTH(job), &m.last, 1, what, sizeof(what));
		cm_get_number(pid, OID_LENGTH(pid), &m.last, 1, &p);
		snprintf(text, sizeof(text), "%u OOM kill%s in the last %d s, the last pid %llu %s%s%s%s",
			 m.count, m.count == 1 ? "" : "s", window, (unsigned long long)p, who,
			 what[0] ? " (" : "", what, what[0] ? ")" : "");
	}
	report(m.count, text, "oomkills", "", "0;");
}

/* ------------------------------------------------------------ main */

static const struct {
	const char *name, *label;
	void (*run)(void);
} modes[] = {
	{ "cpu", "CPU", mode_cpu },
	{ "cputop", "CPU", mode_cputop },
	{ "mem", "MEMORY", mode_mem },
	{ "proc", "PROCESS", mode_proc },
	{ "retrans", "TCP", mode_retrans },
	{ "hist", "HISTOGRAM", mode_hist },
	{ "probe", "PROBE", mode_probe },
	{ "oom", "OOM", mode_oom },
};

static void usage(void)
{
	printf("usage: check_clustermon -H HOST [-p PORT] [-P 1|2c|3] [-C COMMUNITY] [-t SECONDS]\n"
	       "         [-U SECNAME -L noAuthNoPriv|authNoPriv|authPriv -a MD5|SHA|SHA-256 -A PASS\n"
	       "          -x AES|DES -X PASS]\n"
	       "         -m cpu|cputop|mem|proc|retrans|hist|probe|oom [-w RANGE] [-c RANGE]\n"
	       "         [-i CPU] [-n NAME|INDEX] [-q 50|90|99] [-s SECONDS]\n"
	       "modes: cpu (busy %%, all CPUs or -i N), cputop (cpu, naming the busiest\n"
	       "process when not OK), mem (available %%), proc (-n NAME:\n"
	       "count), retrans (TCP retransmits/s), hist (-n NAME -q P: percentile),\n"
	       "probe (-n INDEX: events/s), oom (OOM kills in the last -s seconds, 300\n"
	       "unless given, the last one named). RANGE: N, N:, ~:N, N:M, @N:M.\n");
	exit(STATE_UNKNOWN);
}

static int int_arg(const char *s, int lo, int hi, const char *what)
{
	int64_t v;

	if (num_parse_i64(s, lo, hi, &v) != NUM_OK)
		finish(STATE_UNKNOWN, "%s must be %d..%d, not '%s'", what, lo, hi, s);
	return (int)v;
}

static void range_arg(const char *s, struct range *r)
{
	char why[128];

	if (range_parse(s, r, why, sizeof(why)) != 0)
		finish(STATE_UNKNOWN, "%s", why);
}

static void parse_args(int argc, char **argv)
{
	int c;

	while ((c = getopt(argc, argv, "H:p:P:C:t:U:L:a:A:x:X:m:w:c:i:n:q:s:h")) != -1) {
		switch (c) {
		case 'H': opt.host = optarg; break;
		case 'p': opt.port = int_arg(optarg, 1, 65535, "-p"); break;
		case 'P': opt.version = optarg; break;
		case 'C': opt.community = optarg; break;
		case 't': opt.timeout = int_arg(optarg, 1, 3600, "-t"); break;
		case 'U': opt.user = optarg; break;
		case 'L': opt.level = optarg; break;
		case 'a': opt.auth_proto = optarg; break;
		case 'A': opt.auth_pass = optarg; break;
		case 'x': opt.priv_proto = optarg; break;
		case 'X': opt.priv_pass = optarg; break;
		case 'm': opt.mode = optarg; break;
		case 'w': range_arg(optarg, &opt.warn); break;
		case 'c': range_arg(optarg, &opt.crit); break;
		case 'i': opt.cpu = int_arg(optarg, 0, 8191, "-i"); break;
		case 'n': opt.name = optarg; break;
		case 'q': opt.percentile = int_arg(optarg, 50, 99, "-q"); break;
		case 's': opt.seconds = int_arg(optarg, 1, 300, "-s"); opt.seconds_given = true; break;
		default: usage();
		}
	}
	if (opt.host == NULL || opt.mode == NULL || optind != argc)
		usage();
	if (opt.percentile != 50 && opt.percentile != 90 && opt.percentile != 99)
		finish(STATE_UNKNOWN, "-q takes 50, 90 or 99");
	if (strcmp(opt.version, "1") != 0 && strcmp(opt.version, "2c") != 0 &&
	    strcmp(opt.version, "3") != 0)
		finish(STATE_UNKNOWN, "-P takes 1, 2c or 3");
}

int main(int argc, char **argv)
{
	/* No MIB files: every OID here is numeric. */
	setenv("MIBS", "", 1);
	netsnmp_ds_set_boolean(NETSNMP_DS_LIBRARY_ID, NETSNMP_DS_LIB_DONT_PERSIST_STATE, 1);
	netsnmp_ds_set_boolean(NETSNMP_DS_LIBRARY_ID, NETSNMP_DS_LIB_DISABLE_PERSISTENT_LOAD, 1);
	parse_args(argc, argv);
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		if (strcmp(opt.mode, modes[i].name) != 0)
			continue;
		mode_label = modes[i].label;
		open_session();
		require_subagent();
		modes[i].run();
	}
	finish(STATE_UNKNOWN, "unknown mode '%s' (cpu, cputop, mem, proc, retrans, hist, probe)", opt.mode);
}
