/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * conf.c - clustermond.conf directives.
 *
 * net-snmp calls our handlers line by line and reports errors itself as
 * "FILE: line N: Error: REASON" through config_perror(); we count them.
 * conf_read_begin starts a fresh staging copy, conf_read_end installs it
 * only when no line failed (reload.c calls both, in its order).
 */
#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>
#include <net-snmp/agent/net-snmp-agent-includes.h>

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <pcap/pcap.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "sources/registry.h"
#include "common/number.h"
#include "core/pathglob.h"

static struct clustermon_conf staged, active;
static int read_errors;
static bool reading;     /* between the pre- and post-read callbacks */
static bool started;     /* the first read went through: later ones are SIGHUPs */

int conf_errors(void)
{
	return read_errors;
}

const struct clustermon_conf *conf_active(void)
{
	return &active;
}

void conf_error(const char *fmt, const char *arg)
{
	char msg[1024];

	snprintf(msg, sizeof(msg), fmt, arg);
	config_perror(msg); /* counted by on_log, as Net-SNMP's own errors are */
}

/* A whole decimal number (common/number.c); no sign, no trailing junk. */
static int parse_u32(const char *s, uint32_t *out)
{
	return num_parse_u32(s, UINT32_MAX, out) == NUM_OK ? 0 : -1;
}

/* "unknown source 'NAME' (cpu, mem, ...)": the names from the registry. */
static const char *unknown_source(const char *name, char *buf, size_t len)
{
	int at = snprintf(buf, len, "unknown source '%s' (", name);

	for (size_t i = 0; source_registry[i] != NULL && at > 0 && (size_t)at < len; i++)
		at += snprintf(buf + at, len - (size_t)at, "%s%s", i ? ", " : "",
			       source_registry[i]->name);
	if (at > 0 && (size_t)at < len)
		snprintf(buf + at, len - (size_t)at, ")");
	return buf;
}

/* sampleInterval SOURCE MILLISECONDS [always] */
static void parse_sample_interval(const char *token, char *line)
{
	char *save = NULL;
	char *name = strtok_r(line, " \t", &save);
	char *ms = strtok_r(NULL, " \t", &save);
	char *mode = strtok_r(NULL, " \t", &save);
	char *extra = strtok_r(NULL, " \t", &save);
	unsigned index;
	uint32_t value;
	enum num_status st;
	char msg[192];

	(void)token;
	if (name == NULL || ms == NULL || extra != NULL) {
		conf_error("sampleInterval: expected SOURCE MILLISECONDS [always]%s", "");
		return;
	}
	if (mode != NULL && strcmp(mode, "always") != 0) {
		conf_error("sampleInterval: '%s' is not \"always\" (a source samples on demand "
			   "unless pinned to its timer)", mode);
		return;
	}
	index = source_index_by_name(name);
	if (index == 0) {
		conf_error("sampleInterval: %s", unknown_source(name, msg, sizeof(msg)));
		return;
	}
	if (!sampler_has(index)) {
		conf_error("sampleInterval: source '%s' is not available in this version", name);
		return;
	}
	st = num_parse_u32(ms, SOURCE_INTERVAL_MAX_MS, &value);
	if (st != NUM_OK || value < SOURCE_INTERVAL_MIN_MS) {
		char fmt[128];

		snprintf(fmt, sizeof(fmt), "sampleInterval: '%%s' is not a number of "
			 "milliseconds in 10..3600000 (%s)",
			 st == NUM_OK ? "too small" : num_status_str(st));
		conf_error(fmt, ms);
		return;
	}
	staged.sources.interval_ms[index] = value;
	staged.sources.always[index] = mode != NULL;
}

/* snapshotFile PATH|none */
static void parse_image_file(const char *token, char *line)
{
	(void)token;
	if (line == NULL || (strcmp(line, "none") != 0 && line[0] != '/') ||
	    strpbrk(line, " \t") != NULL) {
		conf_error("snapshotFile: expected one absolute path or 'none', got '%s'",
			   line ? line : "");
		return;
	}
	if (strlen(line) >= sizeof(staged.sources.image_path)) {
		conf_error("snapshotFile: path too long%s", "");
		return;
	}
	/* The publisher writes it; the proc source stats it for
	 * clusterMonAgentImageBytes. */
	strcpy(staged.sources.image_path, line);
}

/* helperSocket PATH */
static void parse_helper_socket(const char *token, char *line)
{
	(void)token;
	if (line == NULL || line[0] != '/' || strchr(line, ' ') != NULL) {
		conf_error("helperSocket: expected one absolute path, got '%s'", line ? line : "");
		return;
	}
	if (strlen(line) >= sizeof(staged.sources.helper_socket)) {
		conf_error("helperSocket: path too long%s", "");
		return;
	}
	strcpy(staged.sources.helper_socket, line);
}

static int parse_filter_word(const char *word, struct proc_filter *f)
{
	const char *v = strchr(word, '=');
	uint32_t n;

	if (v == NULL)
		return -1;
	v++;
	if (strncmp(word, "name=", 5) == 0 && v[0] != '\0' && strlen(v) < sizeof(f->name)) {
		strcpy(f->name, v);
		return 0;
	}
	if (strncmp(word, "uid=", 4) == 0) {
		struct passwd *pw = getpwnam(v);

		if (pw != NULL)
			f->uid = pw->pw_uid;
		else if (parse_u32(v, &n) == 0)
			f->uid = n;
		else
			return -1;
		return 0;
	}
	if (strncmp(word, "top=", 4) == 0 && parse_u32(v, &n) == 0) {
		f->top = n;
		return 0;
	}
	return -1;
}

/* procFilter [name=GLOB] [uid=USER|N] [top=N]: which processes the table shows. */
static void parse_proc_filter(const char *token, char *line)
{
	struct proc_filter f = { .uid = -1 };
	char *save = NULL;
	char *word = strtok_r(line, " \t", &save);

	(void)token;
	if (word == NULL) {
		conf_error("procFilter: expected name=GLOB, uid=USER and/or top=N%s", "");
		return;
	}
	for (; word != NULL; word = strtok_r(NULL, " \t", &save)) {
		if (parse_filter_word(word, &f) != 0) {
			conf_error("procFilter: '%s' is not name=GLOB, uid=USER|N or top=N", word);
			return;
		}
	}
	staged.sources.proc_filter = f;
}

/* topRows N: the rows of clusterMonProcTopTable and clusterMonCgroupTopTable. */
static void parse_top_rows(const char *token, char *line)
{
	uint32_t n;

	(void)token;
	if (line == NULL || parse_u32(line, &n) != 0 || n < 1 || n > TOP_ROWS_MAX) {
		conf_error("topRows: expected a number of rows from 1 to 1000, got '%s'",
			   line ? line : "");
		return;
	}
	staged.sources.top_rows = n;
}

/* One KEY=VALUE word of exitLog into *c: NULL, or why not. */
static const char *exit_log_word(const char *w, struct exit_conf *c)
{
	static const struct { const char *key; uint32_t max; size_t at; } nums[] = {
		{ "entries=", EXITLOG_MAX_ENTRIES, offsetof(struct exit_conf, entries) },
		{ "age=", EXITLOG_MAX_AGE_S, offsetof(struct exit_conf, age_s) },
		{ "minLifetime=", 86400000u, offsetof(struct exit_conf, min_life_ms) },
		{ "minCpu=", 86400000u, offsetof(struct exit_conf, min_cpu_ms) },
	};
	const char *v;

	for (size_t i = 0; i < sizeof(nums) / sizeof(nums[0]); i++) {
		uint32_t n;

		if (strncmp(w, nums[i].key, strlen(nums[i].key)) != 0)
			continue;
		v = w + strlen(nums[i].key);
		if (num_parse_u32(v, nums[i].max, &n) != NUM_OK || (n == 0 && i < 2))
			return i == 0 ? "entries must be 1..100000" : i == 1 ? "age must be 1..604800 seconds"
				      : "expected milliseconds, 0..86400000";
		memcpy((char *)c + nums[i].at, &n, sizeof(n));
		return NULL;
	}
	if (strncmp(w, "name=", 5) == 0) {
		if (w[5] == '\0' || strlen(w + 5) >= sizeof(c->name))
			return "name=GLOB: empty or longer than 63 bytes";
		strcpy(c->name, w + 5);
		return NULL;
	}
	if (strncmp(w, "cgroup=", 7) == 0) {
		if ((v = path_glob_check(w + 7)) != NULL)
			return v;
		if (strlen(w + 7) >= sizeof(c->cgroup))
			return "cgroup=PATTERN: longer than 127 bytes";
		strcpy(c->cgroup, w + 7);
		return NULL;
	}
	return "expected entries=N, age=SECONDS, minLifetime=MS, minCpu=MS, name=GLOB or cgroup=PATTERN";
}

/* exitLog [entries=N] [age=SECONDS] [minLifetime=MS] [minCpu=MS] [name=GLOB]
 * [cgroup=PATTERN]: the exit log's bounds and filters (clustermond.conf(5)). */
static void parse_exit_log(const char *token, char *line)
{
	struct exit_conf c = staged.sources.exits;
	char *save = NULL, *w = line ? strtok_r(line, " \t", &save) : NULL;
	const char *why;

	(void)token;
	if (w == NULL) {
		conf_error("exitLog: expected entries=N, age=SECONDS and/or filters%s", "");
		return;
	}
	for (; w != NULL; w = strtok_r(NULL, " \t", &save)) {
		if ((why = exit_log_word(w, &c)) != NULL) {
			char fmt[256];

			snprintf(fmt, sizeof(fmt), "exitLog: '%%s': %s", why);
			conf_error(fmt, w);
			return;
		}
	}
	staged.sources.exits = c;
}

/* Compiles a capture filter the way the capture will; NULL or why not. */
static const char *filter_error(const char *filter, char *buf, size_t len)
{
	pcap_t *p = pcap_open_dead(DLT_EN10MB, 128);
	struct bpf_program prog;
	const char *why = NULL;

	if (p == NULL)
		return "cannot check the filter";
	if (pcap_compile(p, &prog, filter, 1, PCAP_NETMASK_UNKNOWN) != 0) {
		snprintf(buf, len, "filter \"%s\" does not compile: %s", filter, pcap_geterr(p));
		why = buf;
	} else {
		pcap_freecode(&prog);
	}
	pcap_close(p);
	return why;
}

/* The words after IFNAME: nothing, or filter "EXPRESSION". */
static const char *pcap_filter_arg(char *rest, char *out, size_t len, char *buf, size_t blen)
{
	size_t n;

	rest += strspn(rest, " \t");
	if (*rest == '\0')
		return NULL;
	if (strncmp(rest, "filter", 6) != 0 || (rest[6] != ' ' && rest[6] != '\t'))
		return "expected IFNAME [filter \"BPF EXPRESSION\"]";
	rest += 6 + strspn(rest + 6, " \t");
	n = strlen(rest);
	if (n >= 2 && rest[0] == '"' && rest[n - 1] == '"') {
		rest[n - 1] = '\0';
		rest++;
	}
	if (*rest == '\0' || strlen(rest) >= len)
		return "the filter is empty or longer than 255 characters";
	strcpy(out, rest);
	return filter_error(out, buf, blen);
}

/* pcapInterface IFNAME [filter "BPF"] */
static void parse_pcap_interface(const char *token, char *line)
{
	struct pcap_iface_conf *pc;
	char *rest, buf[400];
	const char *why;
	size_t n;

	(void)token;
	n = strcspn(line, " \t");
	rest = line + n;
	if (*rest != '\0')
		*rest++ = '\0';
	if (n == 0 || n >= IF_NAMESIZE || if_nametoindex(line) == 0) {
		conf_error("pcapInterface: no network interface '%s'", line);
		return;
	}
	for (unsigned i = 0; i < staged.sources.pcap.n; i++)
		if (strcmp(staged.sources.pcap.iface[i].ifname, line) == 0) {
			conf_error("pcapInterface: '%s' is captured already", line);
			return;
		}
	if (staged.sources.pcap.n == PCAP_MAX_IFACES) {
		conf_error("pcapInterface: at most 16 interfaces%s", "");
		return;
	}
	pc = &staged.sources.pcap.iface[staged.sources.pcap.n];
	memset(pc, 0, sizeof(*pc));
	strcpy(pc->ifname, line);
	why = pcap_filter_arg(rest, pc->filter, sizeof(pc->filter), buf, sizeof(buf));
	if (why != NULL) {
		conf_error("pcapInterface: %s", why);
		return;
	}
	staged.sources.pcap.n++;
}

static const char *const tcp_state_names[] = {
	NULL, "established", "syn-sent", "syn-recv", "fin-wait-1", "fin-wait-2", "time-wait",
	"close", "close-wait", "last-ack", "listen", "closing",
};

static int parse_states(char *list, uint32_t *states)
{
	char *save = NULL;

	for (char *n = strtok_r(list, ",", &save); n; n = strtok_r(NULL, ",", &save)) {
		unsigned i;

		for (i = 1; i < 12 && strcmp(n, tcp_state_names[i]) != 0; i++)
			;
		if (i == 12)
			return -1;
		*states |= 1u << i;
	}
	return *states ? 0 : -1;
}

/* N or N-M, 0..65535, N <= M */
static int parse_port_range(const char *s, struct diag_term *t)
{
	uint32_t lo, hi;
	char buf[16], *dash;

	if (strlen(s) >= sizeof(buf))
		return -1;
	strcpy(buf, s);
	dash = strchr(buf, '-');
	if (dash != NULL)
		*dash++ = '\0';
	if (parse_u32(buf, &lo) != 0 || (dash && parse_u32(dash, &hi) != 0))
		return -1;
	if (dash == NULL)
		hi = lo;
	if (lo > hi || hi > 65535)
		return -1;
	t->lo = (uint16_t)lo;
	t->hi = (uint16_t)hi;
	return 0;
}

/* ADDR or ADDR/PREFIX, IPv4 or IPv6. */
static int parse_addr_prefix(const char *s, struct diag_term *t)
{
	char buf[64], *slash;
	uint32_t prefix;
	int max;

	if (strlen(s) >= sizeof(buf))
		return -1;
	strcpy(buf, s);
	slash = strchr(buf, '/');
	if (slash != NULL)
		*slash++ = '\0';
	if (inet_pton(AF_INET, buf, t->addr) == 1)
		t->family = 4, max = 32;
	else if (inet_pton(AF_INET6, buf, t->addr) == 1)
		t->family = 6, max = 128;
	else
		return -1;
	if (slash == NULL)
		prefix = (uint32_t)max;
	else if (parse_u32(slash, &prefix) != 0 || prefix > (uint32_t)max)
		return -1;
	t->prefix = (uint8_t)prefix;
	return 0;
}

static int parse_tcp_word(char *w, struct tcp_filter *f)
{
	static const struct { const char *key; enum diag_side side; } ports[] = {
		{ "port=", PORT_EITHER }, { "sport=", PORT_LOCAL }, { "dport=", PORT_REMOTE },
	};

	if (strncmp(w, "state=", 6) == 0)
		return parse_states(w + 6, &f->states);
	if (strncmp(w, "local=", 6) == 0 || strncmp(w, "remote=", 7) == 0) {
		struct diag_term *t = &f->terms[f->nterms];

		if (f->nterms == INETDIAG_MAX_TERMS)
			return -1;
		memset(t, 0, sizeof(*t));
		t->side = w[0] == 'l' ? PORT_LOCAL : PORT_REMOTE;
		if (parse_addr_prefix(w + (w[0] == 'l' ? 6 : 7), t) != 0)
			return -1;
		f->nterms++;
		return 0;
	}
	for (size_t i = 0; i < 3; i++) {
		size_t n = strlen(ports[i].key);

		if (strncmp(w, ports[i].key, n) != 0)
			continue;
		if (f->nterms == INETDIAG_MAX_TERMS)
			return -1;
		memset(&f->terms[f->nterms], 0, sizeof(f->terms[0]));
		f->terms[f->nterms].side = ports[i].side;
		if (parse_port_range(w + n, &f->terms[f->nterms]) != 0)
			return -1;
		f->nterms++;
		return 0;
	}
	return -1;
}

/* tcpFilter [state=NAME,...] [port=N[-M]] [sport=N[-M]] [dport=N[-M]]
 *           [local=ADDR[/PREFIX]] [remote=ADDR[/PREFIX]] */
static void parse_tcp_filter(const char *token, char *line)
{
	struct tcp_filter f = { 0 };
	char *save = NULL, *word = strtok_r(line, " \t", &save);

	(void)token;
	if (word == NULL) {
		conf_error("tcpFilter: expected state=LIST, port=, sport= or dport=N[-M]%s", "");
		return;
	}
	for (; word != NULL; word = strtok_r(NULL, " \t", &save)) {
		if (parse_tcp_word(word, &f) != 0) {
			conf_error("tcpFilter: '%s' is not state=NAME[,NAME...] (ss's state names), "
				   "port=, sport=, dport= with a port or range in 0..65535, or "
				   "local=, remote= with ADDR[/PREFIX] (at most 8)", word);
			return;
		}
	}
	staged.sources.tcp_filter = f;
}

/* cgroupMatch PATTERN... (every line adds; none at all: the defaults) */
static void parse_cgroup_match(const char *token, char *line)
{
	struct cgroup_conf *c = &staged.sources.cgroup;
	char *save = NULL, *w;
	const char *why;

	(void)token;
	if (line == NULL || strtok_r(line, " \t", &save) == NULL) {
		conf_error("cgroupMatch: expected one or more PATTERNs%s", "");
		return;
	}
	for (w = line; w != NULL; w = strtok_r(NULL, " \t", &save)) {
		if ((why = path_glob_check(w)) != NULL) {
			char fmt[256];

			snprintf(fmt, sizeof(fmt), "cgroupMatch: '%%s': %s", why);
			conf_error(fmt, w);
			return;
		}
		if (strlen(w) >= CGROUP_PATTERN_MAX || c->n == CGROUP_MAX_PATTERNS) {
			conf_error("cgroupMatch: '%s': too long, or more than 32 patterns", w);
			return;
		}
		strcpy(c->pattern[c->n++], w);
	}
}

/*
 * Every error reported while the files are read counts, ours (conf_error)
 * and Net-SNMP's own ("FILE: line N: Error: Blank line following TOKEN
 * token."), which it reports and then ignores. So does its warning about a
 * line whose first word is no directive ("Unknown token"): a misspelt
 * directive would otherwise be silently missing from the running
 * configuration. Start-up is refused; SIGHUP keeps the running one.
 */
static int on_log(int major, int minor, void *server, void *client)
{
	const struct snmp_log_message *m = server;

	(void)major, (void)minor, (void)client;
	if (reading && m != NULL && m->msg != NULL &&
	    (strstr(m->msg, ": Error: ") != NULL || strstr(m->msg, "Unknown token") != NULL))
		read_errors++;
	return SNMP_ERR_NOERROR;
}

void conf_read_begin(void)
{
	reading = true;
	memset(&staged, 0, sizeof(staged));
	staged.sources.proc_filter.uid = -1;
	read_errors = 0;
}

/* Start-up refusals happen here, before the AgentX subagent's own
 * post-config callback connects to the master: a clustermond that will not
 * start never registers (and never shows up in the master's log). */
static int refuse_start(int major, int minor, void *server, void *client)
{
	(void)major, (void)minor, (void)server, (void)client;
	if (!started && read_errors > 0) {
		snmp_log(LOG_ERR, "clustermond: refusing to start with %d configuration error%s\n",
			 read_errors, read_errors == 1 ? "" : "s");
		exit(1);
	}
	return SNMP_ERR_NOERROR;
}

void conf_started(void)
{
	started = true;
}

bool conf_read_end(void)
{
	reading = false;
	if (read_errors > 0) {
		snmp_log(LOG_ERR, "clustermond: %d configuration error%s: keeping the previous configuration\n",
			 read_errors, read_errors == 1 ? "" : "s");
		return false;
	}
	active = staged;
	return true;
}

void conf_init(void)
{
	register_app_config_handler("sampleInterval", parse_sample_interval, NULL,
				    "SOURCE MILLISECONDS");
	register_app_config_handler("helperSocket", parse_helper_socket, NULL, "PATH");
	register_app_config_handler("snapshotFile", parse_image_file, NULL, "PATH|none");
	register_app_config_handler("tcpFilter", parse_tcp_filter, NULL,
				    "[state=NAME,...] [port|sport|dport=N[-M]] "
				    "[local|remote=ADDR[/PREFIX]]");
	register_app_config_handler("pcapInterface", parse_pcap_interface, NULL,
				    "IFNAME [filter \"BPF EXPRESSION\"]");
	register_app_config_handler("procFilter", parse_proc_filter, NULL,
				    "[name=GLOB] [uid=USER|N] [top=N]");
	register_app_config_handler("cgroupMatch", parse_cgroup_match, NULL, "PATTERN...");
	register_app_config_handler("topRows", parse_top_rows, NULL, "N (1-1000)");
	register_app_config_handler("exitLog", parse_exit_log, NULL,
				    "[entries=N] [age=SECONDS] [minLifetime=MS] [minCpu=MS] [name=GLOB] [cgroup=PATTERN]");
	/* Warnings and worse reach on_log besides the usual log. */
	netsnmp_register_loghandler(NETSNMP_LOGHANDLER_CALLBACK, LOG_WARNING);
	snmp_register_callback(SNMP_CALLBACK_LIBRARY, SNMP_CALLBACK_LOGGING, on_log, NULL);
	netsnmp_register_callback(SNMP_CALLBACK_LIBRARY, SNMP_CALLBACK_POST_READ_CONFIG,
				  refuse_start, NULL, NETSNMP_CALLBACK_HIGHEST_PRIORITY);
}
