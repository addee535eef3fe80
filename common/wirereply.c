/* SPDX-License-Identifier: BSD-2-Clause */
/* wirereply.c - reply lines of the helper's control socket, both ways. */
#include "wire.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "number.h"

static const char *const err_names[] = { "invalid", "unsupported", "failed", "busy" };
static const char *const ok_names[] = { "ok", "ok attached", "ok unchanged" };
static const char *const trace_states[] = { "running", "finished", "failed" };

const char *wire_err_class_name(enum wire_err_class c)
{
	return (unsigned)c < 4 ? err_names[c] : "failed";
}

/* ------------------------------------------------------------ writing */

/* A word the reader takes back whole: printable, no space, not empty. */
static bool word_ok(const char *s, size_t max)
{
	size_t n = strlen(s);

	if (n == 0 || n > max)
		return false;
	for (; *s; s++)
		if ((unsigned char)*s <= 0x20 || (unsigned char)*s > 0x7e)
			return false;
	return true;
}

/* The rest of a line: printable, spaces allowed. */
static bool text_ok(const char *s, size_t max)
{
	if (strlen(s) > max)
		return false;
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s > 0x7e)
			return false;
	return true;
}

static void put_array(FILE *out, const uint64_t *v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		fprintf(out, " %llu", (unsigned long long)v[i]);
}

static bool cpus_ok(const struct wire_reply *r)
{
	return r->ncpu >= 1 && r->ncpu <= WIRE_MAX_CPUS && r->cpu != NULL;
}

/* Whether r holds what the parser would take back. */
static bool reply_ok(const struct wire_reply *r)
{
	switch (r->kind) {
	case WIRE_R_HELLO: return word_ok(r->u.hello.instance, WIRE_MAX_INSTANCE);
	case WIRE_R_OK: return (unsigned)r->u.ok < 3;
	case WIRE_R_ERR: return (unsigned)r->u.err.cls < 4 && text_ok(r->u.err.reason, WIRE_MAX_REASON);
	case WIRE_R_COUNT: return r->u.count <= WIRE_MAX_COUNT;
	case WIRE_R_STARTED: return word_ok(r->u.started, WIRE_MAX_DIR);
	case WIRE_R_PROBE: return r->u.probe.id >= 1 && r->u.probe.id <= WIRE_MAX_ID;
	case WIRE_R_COUNTS: return r->u.counts.id >= 1 && r->u.counts.id <= WIRE_MAX_ID && cpus_ok(r);
	case WIRE_R_HIST: return r->u.hist.id >= 1 && r->u.hist.id <= WIRE_MAX_ID;
	case WIRE_R_DIST: return r->u.dist.id >= 1 && r->u.dist.id <= WIRE_MAX_ID;
	case WIRE_R_BUSY: case WIRE_R_SWITCHES: return cpus_ok(r);
	case WIRE_R_DROP: return r->u.drop.reason <= 65535 && word_ok(r->u.drop.name, WIRE_MAX_DROP_NAME);
	case WIRE_R_PROC:
		return r->u.proc.tgid >= 1 && r->u.proc.tgid <= WIRE_MAX_PID &&
		       r->u.proc.mark >= WIRE_PROC_RAN && r->u.proc.mark <= WIRE_PROC_NEW;
	case WIRE_R_TRACE:
		return r->u.trace.id >= 1 && r->u.trace.id <= WIRE_MAX_ID &&
		       (unsigned)r->u.trace.state < 3 && word_ok(r->u.trace.dir, WIRE_MAX_DIR) &&
		       text_ok(r->u.trace.reason, WIRE_MAX_REASON) &&
		       strcmp(r->u.trace.reason, "-") != 0;
	default: return true;
	}
}

static void write_probe(FILE *out, const struct wire_reply *r)
{
	char spec[SPEC_MAX_TEXT + 1], filter[64];

	spec_format(&r->u.probe.spec, spec, sizeof(spec));
	filter_format(&r->u.probe.filter, filter, sizeof(filter));
	fprintf(out, "probe %u %s%s", r->u.probe.id, spec, filter);
}

static void write_trace(FILE *out, const struct wire_reply *r)
{
	fprintf(out, "trace %u %s %llu %llu %llu %llu %s %s", r->u.trace.id,
		trace_states[r->u.trace.state], (unsigned long long)r->u.trace.records,
		(unsigned long long)r->u.trace.lost, (unsigned long long)r->u.trace.bytes,
		(unsigned long long)r->u.trace.elapsed_ms, r->u.trace.dir,
		r->u.trace.reason[0] ? r->u.trace.reason : "-");
}

static void write_read_line(FILE *out, const struct wire_reply *r)
{
	switch (r->kind) {
	case WIRE_R_COUNTS:
		fprintf(out, "probe %u %llu %llu %llu %u", r->u.counts.id,
			(unsigned long long)r->u.counts.hits, (unsigned long long)r->u.counts.sampled,
			(unsigned long long)r->u.counts.lost, r->ncpu);
		put_array(out, r->cpu, r->ncpu);
		break;
	case WIRE_R_HIST:
	case WIRE_R_RUNQLAT:
		if (r->kind == WIRE_R_HIST)
			fprintf(out, "hist %u", r->u.hist.id);
		else
			fputs("runqlat", out);
		put_array(out, &r->u.hist.sum, 1);
		put_array(out, r->u.hist.slot, WIRE_HIST_SLOTS);
		break;
	case WIRE_R_BUSY:
	case WIRE_R_SWITCHES:
		fprintf(out, "%s %u", r->kind == WIRE_R_BUSY ? "busy" : "switches", r->ncpu);
		put_array(out, r->cpu, r->ncpu);
		break;
	case WIRE_R_SENSORS:
		fprintf(out, "sensors %llu %llu %llu", (unsigned long long)r->u.sensors.tcp_retransmits,
			(unsigned long long)r->u.sensors.skb_drops,
			(unsigned long long)r->u.sensors.runqlat_lost);
		if (r->u.sensors.has_procs_lost)
			put_array(out, &r->u.sensors.procs_lost, 1);
		break;
	default: /* WIRE_R_DROP */
		fprintf(out, "drop %u %llu %s", r->u.drop.reason,
			(unsigned long long)r->u.drop.count, r->u.drop.name);
		break;
	}
}

int wire_write_reply(FILE *out, const struct wire_reply *r)
{
	if (!reply_ok(r))
		return -1;
	switch (r->kind) {
	case WIRE_R_HELLO:
		fprintf(out, "ok clustermon-kprobe %u %s", r->u.hello.protocol, r->u.hello.instance);
		break;
	case WIRE_R_OK: fputs(ok_names[r->u.ok], out); break;
	case WIRE_R_ERR:
		fprintf(out, "err %s%s%s", err_names[r->u.err.cls], r->u.err.reason[0] ? " " : "",
			r->u.err.reason);
		break;
	case WIRE_R_COUNT: fprintf(out, "ok %llu", (unsigned long long)r->u.count); break;
	case WIRE_R_STARTED: fprintf(out, "ok started %s", r->u.started); break;
	case WIRE_R_MAPS:
		fprintf(out, "ok maps %llu %llu %llu", (unsigned long long)r->u.maps.slots,
			(unsigned long long)r->u.maps.rings, (unsigned long long)r->u.maps.ncpu);
		break;
	case WIRE_R_CGMAPS:
		fprintf(out, "ok cgmaps %llu %llu", (unsigned long long)r->u.cgmaps.entries,
			(unsigned long long)r->u.cgmaps.ncpu);
		break;
	case WIRE_R_EXITS: fprintf(out, "ok exits %llu", (unsigned long long)r->u.exits); break;
	case WIRE_R_PROBE: write_probe(out, r); break;
	case WIRE_R_PROC:
		fprintf(out, "proc %u %llu %llu %u", r->u.proc.tgid,
			(unsigned long long)r->u.proc.cpu_ns,
			(unsigned long long)r->u.proc.run_delay_ns, (unsigned)r->u.proc.mark);
		break;
	case WIRE_R_TRACE: write_trace(out, r); break;
	case WIRE_R_DIST:
		fprintf(out, "dist %u %llu %llu %llu", r->u.dist.id,
			(unsigned long long)r->u.dist.hits, (unsigned long long)r->u.dist.sampled,
			(unsigned long long)r->u.dist.misses);
		put_array(out, &r->u.dist.sum, 1);
		put_array(out, r->u.dist.slot, WIRE_HIST_SLOTS);
		break;
	default: write_read_line(out, r); break;
	}
	return fputc('\n', out) == EOF || ferror(out) ? -1 : 0;
}

/* ------------------------------------------------------------ parsing */

/* " N": a space and a number no larger than max. */
static bool take_u64(const char **s, uint64_t max, uint64_t *v)
{
	return **s == ' ' && num_scan_u64(*s + 1, s, v) == NUM_OK && *v <= max;
}

static bool take_id(const char **s, uint32_t *id)
{
	uint64_t v;

	if (!take_u64(s, WIRE_MAX_ID, &v) || v < 1)
		return false;
	*id = (uint32_t)v;
	return true;
}

/* " WORD" into buf (max + 1 bytes): printable, no spaces. */
static bool take_word(const char **s, char *buf, size_t max)
{
	size_t n;

	if (**s != ' ')
		return false;
	n = strcspn(*s + 1, " ");
	if (n == 0 || n > max)
		return false;
	memcpy(buf, *s + 1, n);
	buf[n] = '\0';
	*s += 1 + n;
	return word_ok(buf, max);
}

/* " TEXT" to the end of the line into buf (max + 1 bytes). */
static bool take_rest(const char *s, char *buf, size_t max)
{
	if (*s != ' ' || !text_ok(s + 1, max))
		return false;
	strcpy(buf, s + 1);
	return true;
}

static bool take_array(const char **s, uint64_t *v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (!take_u64(s, UINT64_MAX, &v[i]))
			return false;
	return true;
}

/* " NCPU V0 ... V(NCPU-1)" into a malloc'd r->cpu. */
static bool take_cpus(const char **s, struct wire_reply *r)
{
	uint64_t n;

	if (!take_u64(s, WIRE_MAX_CPUS, &n) || n == 0)
		return false;
	r->cpu = calloc((size_t)n, sizeof(*r->cpu));
	r->ncpu = (unsigned)n;
	return r->cpu != NULL && take_array(s, r->cpu, r->ncpu);
}

static bool parse_hist(const char *s, struct wire_reply *r)
{
	return take_u64(&s, UINT64_MAX, &r->u.hist.sum) &&
	       take_array(&s, r->u.hist.slot, WIRE_HIST_SLOTS) && *s == '\0';
}

/* "probe ID SPEC[ FILTERS]": the spec parsed here, once. */
static bool parse_probe_def(const char *s, struct wire_reply *r, char *why, size_t whylen)
{
	char copy[WIRE_MAX_PROBE_LINE + 1], *save = NULL, *word;

	if (!take_id(&s, &r->u.probe.id) || *s != ' ' || strlen(s) > WIRE_MAX_PROBE_LINE)
		return false;
	strcpy(copy, s + 1);
	word = strtok_r(copy, " ", &save);
	if (spec_parse(word, &r->u.probe.spec, why, whylen) != 0)
		return false;
	filter_default(&r->u.probe.filter);
	while ((word = strtok_r(NULL, " ", &save)) != NULL)
		if (filter_parse_word(word, &r->u.probe.filter, why, whylen) != 0)
			return false;
	return true;
}

static bool parse_sensors(const char *s, struct wire_reply *r)
{
	if (!take_u64(&s, UINT64_MAX, &r->u.sensors.tcp_retransmits) ||
	    !take_u64(&s, UINT64_MAX, &r->u.sensors.skb_drops) ||
	    !take_u64(&s, UINT64_MAX, &r->u.sensors.runqlat_lost))
		return false;
	r->u.sensors.has_procs_lost = *s != '\0';
	return !r->u.sensors.has_procs_lost ||
	       (take_u64(&s, UINT64_MAX, &r->u.sensors.procs_lost) && *s == '\0');
}

static bool parse_drop(const char *s, struct wire_reply *r)
{
	uint64_t reason;

	if (!take_u64(&s, 65535, &reason) || !take_u64(&s, UINT64_MAX, &r->u.drop.count) ||
	    !take_word(&s, r->u.drop.name, WIRE_MAX_DROP_NAME) || *s != '\0')
		return false;
	r->u.drop.reason = (uint32_t)reason;
	return true;
}

static bool parse_proc(const char *s, struct wire_reply *r)
{
	uint64_t tgid, mark;

	if (!take_u64(&s, WIRE_MAX_PID, &tgid) || tgid == 0 ||
	    !take_u64(&s, UINT64_MAX, &r->u.proc.cpu_ns) ||
	    !take_u64(&s, UINT64_MAX, &r->u.proc.run_delay_ns) ||
	    !take_u64(&s, WIRE_PROC_NEW, &mark) || mark < WIRE_PROC_RAN || *s != '\0')
		return false;
	r->u.proc.tgid = (uint32_t)tgid;
	r->u.proc.mark = (enum wire_proc_mark)mark;
	return true;
}

static bool parse_trace(const char *s, struct wire_reply *r)
{
	char state[16];
	unsigned st;

	if (!take_id(&s, &r->u.trace.id) || !take_word(&s, state, sizeof(state) - 1))
		return false;
	for (st = 0; st < 3 && strcmp(state, trace_states[st]) != 0; st++)
		;
	r->u.trace.state = (enum wire_trace_state)st;
	if (st == 3 || !take_u64(&s, UINT64_MAX, &r->u.trace.records) ||
	    !take_u64(&s, UINT64_MAX, &r->u.trace.lost) ||
	    !take_u64(&s, UINT64_MAX, &r->u.trace.bytes) ||
	    !take_u64(&s, UINT64_MAX, &r->u.trace.elapsed_ms) ||
	    !take_word(&s, r->u.trace.dir, WIRE_MAX_DIR) ||
	    !take_rest(s, r->u.trace.reason, WIRE_MAX_REASON) || r->u.trace.reason[0] == '\0')
		return false;
	if (strcmp(r->u.trace.reason, "-") == 0)
		r->u.trace.reason[0] = '\0';
	return true;
}

static bool parse_dist(const char *s, struct wire_reply *r)
{
	return take_id(&s, &r->u.dist.id) && take_u64(&s, UINT64_MAX, &r->u.dist.hits) &&
	       take_u64(&s, UINT64_MAX, &r->u.dist.sampled) &&
	       take_u64(&s, UINT64_MAX, &r->u.dist.misses) &&
	       take_u64(&s, UINT64_MAX, &r->u.dist.sum) &&
	       take_array(&s, r->u.dist.slot, WIRE_HIST_SLOTS) && *s == '\0';
}

static bool parse_err(const char *s, struct wire_reply *r)
{
	char cls[16];
	unsigned c;

	if (!take_word(&s, cls, sizeof(cls) - 1))
		return false;
	for (c = 0; c < 4 && strcmp(cls, err_names[c]) != 0; c++)
		;
	r->u.err.cls = (enum wire_err_class)c;
	return c < 4 && (*s == '\0' || take_rest(s, r->u.err.reason, WIRE_MAX_REASON));
}

static bool parse_hello(const char *s, struct wire_reply *r, char *why, size_t whylen)
{
	uint64_t proto;

	if (!take_u64(&s, UINT32_MAX, &proto) ||
	    !take_word(&s, r->u.hello.instance, WIRE_MAX_INSTANCE) || *s != '\0')
		return false;
	r->u.hello.protocol = (uint32_t)proto;
	if (proto != WIRE_PROTOCOL) {
		snprintf(why, whylen, "clustermon-kprobe speaks protocol %llu, not %d",
			 (unsigned long long)proto, WIRE_PROTOCOL);
		return false;
	}
	return true;
}

static bool parse_maps(const char *s, struct wire_reply *r)
{
	uint64_t slots;

	if (!take_u64(&s, WIRE_MAX_SLOTS, &slots) || slots == 0 || (slots & (slots - 1)) != 0 ||
	    !take_u64(&s, WIRE_MAX_CPUS, &r->u.maps.rings) || r->u.maps.rings == 0 ||
	    !take_u64(&s, r->u.maps.rings, &r->u.maps.ncpu) || r->u.maps.ncpu == 0 || *s != '\0')
		return false;
	r->u.maps.slots = slots;
	return true;
}

static bool parse_cgmaps(const char *s, struct wire_reply *r)
{
	return take_u64(&s, WIRE_MAX_CGMAP, &r->u.cgmaps.entries) && r->u.cgmaps.entries > 0 &&
	       take_u64(&s, WIRE_MAX_CPUS, &r->u.cgmaps.ncpu) && r->u.cgmaps.ncpu > 0 &&
	       *s == '\0';
}

/* A ring buffer's size: a power of two of at least a page. */
static bool parse_exits(const char *s, struct wire_reply *r)
{
	return take_u64(&s, WIRE_MAX_EXIT_RING, &r->u.exits) && r->u.exits >= 4096 &&
	       (r->u.exits & (r->u.exits - 1)) == 0 && *s == '\0';
}

/* The lines that start "ok": which one is told by the word after it. */
static bool parse_ok(const char *s, struct wire_reply *r, char *why, size_t whylen)
{
	static const struct { const char *word; enum wire_reply_kind kind; } words[] = {
		{ " clustermon-kprobe", WIRE_R_HELLO }, { " started", WIRE_R_STARTED },
		{ " maps", WIRE_R_MAPS }, { " cgmaps", WIRE_R_CGMAPS }, { " exits", WIRE_R_EXITS },
	};

	r->kind = WIRE_R_OK;
	if (*s == '\0' || strcmp(s, " attached") == 0 || strcmp(s, " unchanged") == 0) {
		r->u.ok = *s == '\0' ? WIRE_OK_PLAIN : s[1] == 'a' ? WIRE_OK_ATTACHED : WIRE_OK_UNCHANGED;
		return true;
	}
	if (s[0] == ' ' && s[1] >= '0' && s[1] <= '9') {
		r->kind = WIRE_R_COUNT;
		return take_u64(&s, WIRE_MAX_COUNT, &r->u.count) && *s == '\0';
	}
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		size_t n = strlen(words[i].word);

		if (strncmp(s, words[i].word, n) != 0 || (s[n] != ' ' && s[n] != '\0'))
			continue;
		r->kind = words[i].kind;
		s += n;
		switch (r->kind) {
		case WIRE_R_HELLO: return parse_hello(s, r, why, whylen);
		case WIRE_R_STARTED: return take_word(&s, r->u.started, WIRE_MAX_DIR) && *s == '\0';
		case WIRE_R_MAPS: return parse_maps(s, r);
		case WIRE_R_EXITS: return parse_exits(s, r);
		default: return parse_cgmaps(s, r);
		}
	}
	return false;
}

/* A line that starts with word and a space or its end: s past the word. */
static bool starts(const char **s, const char *word)
{
	size_t n = strlen(word);

	if (strncmp(*s, word, n) != 0 || ((*s)[n] != ' ' && (*s)[n] != '\0'))
		return false;
	*s += n;
	return true;
}

static bool parse_body(enum wire_verb verb, const char *s, struct wire_reply *r, char *why,
		       size_t whylen)
{
	if (starts(&s, "probe")) {
		r->kind = verb == WIRE_LIST ? WIRE_R_PROBE : WIRE_R_COUNTS;
		if (r->kind == WIRE_R_PROBE)
			return parse_probe_def(s, r, why, whylen);
		return take_id(&s, &r->u.counts.id) && take_u64(&s, UINT64_MAX, &r->u.counts.hits) &&
		       take_u64(&s, UINT64_MAX, &r->u.counts.sampled) &&
		       take_u64(&s, UINT64_MAX, &r->u.counts.lost) && take_cpus(&s, r) && *s == '\0';
	}
	if (starts(&s, "hist"))
		return (r->kind = WIRE_R_HIST, take_id(&s, &r->u.hist.id)) && parse_hist(s, r);
	if (starts(&s, "runqlat"))
		return (r->kind = WIRE_R_RUNQLAT, parse_hist(s, r));
	if (starts(&s, "busy") || starts(&s, "switches")) {
		r->kind = s[-1] == 'y' ? WIRE_R_BUSY : WIRE_R_SWITCHES;
		return take_cpus(&s, r) && *s == '\0';
	}
	if (starts(&s, "sensors"))
		return (r->kind = WIRE_R_SENSORS, parse_sensors(s, r));
	if (starts(&s, "drop"))
		return (r->kind = WIRE_R_DROP, parse_drop(s, r));
	if (starts(&s, "proc"))
		return (r->kind = WIRE_R_PROC, parse_proc(s, r));
	if (starts(&s, "trace"))
		return (r->kind = WIRE_R_TRACE, parse_trace(s, r));
	if (starts(&s, "dist"))
		return (r->kind = WIRE_R_DIST, parse_dist(s, r));
	return false;
}

int wire_parse_reply(enum wire_verb verb, const char *line, struct wire_reply *r, char *why,
		     size_t whylen)
{
	const char *s = line;
	bool ok;

	memset(r, 0, sizeof(*r));
	why[0] = '\0';
	if (strlen(line) > WIRE_MAX_REPLY_LINE)
		ok = false;
	else if (starts(&s, "ok"))
		ok = parse_ok(s, r, why, whylen);
	else if (starts(&s, "err"))
		ok = (r->kind = WIRE_R_ERR, parse_err(s, r));
	else
		ok = parse_body(verb, s, r, why, whylen);
	if (ok)
		return 0;
	wire_reply_free(r);
	if (why[0] == '\0')
		snprintf(why, whylen, "malformed reply line '%.60s'", line);
	return -1;
}

void wire_reply_free(struct wire_reply *r)
{
	free(r->cpu);
	r->cpu = NULL;
	r->ncpu = 0;
}

int wire_write_ok(FILE *out, enum wire_ok ok)
{
	struct wire_reply r = { .kind = WIRE_R_OK, .u.ok = ok };

	return wire_write_reply(out, &r);
}

int wire_write_count(FILE *out, uint64_t n)
{
	struct wire_reply r = { .kind = WIRE_R_COUNT, .u.count = n };

	return wire_write_reply(out, &r);
}

/* A reason that does not fit is cut, and a control byte in it (from a
 * kernel's error text, say) made '?', so the line always goes out. */
int wire_write_err(FILE *out, enum wire_err_class cls, const char *fmt, ...)
{
	struct wire_reply r = { .kind = WIRE_R_ERR, .u.err.cls = cls };
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r.u.err.reason, sizeof(r.u.err.reason), fmt, ap);
	va_end(ap);
	for (char *p = r.u.err.reason; *p; p++)
		if ((unsigned char)*p < 0x20 || (unsigned char)*p > 0x7e)
			*p = '?';
	return wire_write_reply(out, &r);
}
