/* SPDX-License-Identifier: BSD-2-Clause */
/* helper.c - talk to clustermon-kprobe and parse what it says. */
#include "helper.h"
#include "common/clock.h"
#include "common/number.h"

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

/* Reply lines: 64 histogram slots of up to 20 digits, or 8192 CPUs. */
#define WIRE_LINE_MAX (8192 * 21 + 64)

int helper_connect(const char *path, char *why, size_t whylen)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(addr.sun_path)) {
		snprintf(why, whylen, "socket path too long");
		return -1;
	}
	strcpy(addr.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&addr, sizeof(addr)) == 0)
		return fd;
	snprintf(why, whylen, "cannot reach clustermon-kprobe at %s: %s", path, strerror(errno));
	if (fd >= 0)
		close(fd);
	return -1;
}

static int send_request(int fd, const char *request)
{
	size_t len = strlen(request);

	while (len > 0) {
		ssize_t n = send(fd, request, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		request += n;
		len -= (size_t)n;
	}
	return shutdown(fd, SHUT_WR);
}

/* Reads to the end of the stream before the deadline. */
static int read_reply(int fd, int64_t deadline, char **out, char *why, size_t whylen)
{
	size_t len = 0, cap = 4096;
	char *buf = malloc(cap), *grown;
	ssize_t n;

	while (buf != NULL) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		int64_t left = deadline - (int64_t)cm_clock_ms();

		if (left <= 0 || poll(&pfd, 1, (int)left) <= 0) {
			snprintf(why, whylen, "clustermon-kprobe did not answer in time");
			break;
		}
		if (len + 1 == cap) {
			grown = cap * 2 <= HELPER_MAX_REPLY ? realloc(buf, cap * 2) : NULL;
			if (grown == NULL) {
				snprintf(why, whylen, "reply too large");
				break;
			}
			buf = grown;
			cap *= 2;
		}
		n = recv(fd, buf + len, cap - len - 1, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			buf[len] = '\0';
			*out = buf;
			return n == 0 ? 0 : -1;
		}
		len += (size_t)n;
	}
	free(buf);
	return -1;
}

enum helper_result helper_exchange(const char *path, const char *request, int timeout_ms,
				   char **reply, char *why, size_t whylen)
{
	int64_t deadline = (int64_t)cm_clock_ms() + timeout_ms;
	int fd = helper_connect(path, why, whylen);
	int rc;

	*reply = NULL;
	if (fd < 0)
		return HELPER_DOWN;
	if (send_request(fd, request) != 0) {
		snprintf(why, whylen, "clustermon-kprobe closed the connection: %s",
			 strerror(errno));
		close(fd);
		return HELPER_DOWN;
	}
	rc = read_reply(fd, deadline, reply, why, whylen);
	close(fd);
	if (rc != 0) {
		free(*reply);
		*reply = NULL;
		return HELPER_DOWN;
	}
	return HELPER_OK;
}

enum helper_result helper_add(const char *path, const char *add_line, int timeout_ms,
			      bool *fresh, char *cls, size_t clslen, char *why, size_t whylen)
{
	char *reply;
	enum helper_result r = helper_exchange(path, add_line, timeout_ms, &reply, why, whylen);

	cls[0] = '\0';
	if (r != HELPER_OK)
		return r;
	if (strncmp(reply, "ok ", 3) == 0) {
		*fresh = strncmp(reply, "ok unchanged", 12) != 0;
		free(reply);
		return HELPER_OK;
	}
	if (strncmp(reply, "err ", 4) == 0) {
		const char *c = reply + 4;
		int clen = (int)strcspn(c, " \n");

		snprintf(cls, clslen, "%.*s", clen, c);
		c += clen + (c[clen] == ' ');
		snprintf(why, whylen, "%.*s", (int)strcspn(c, "\n"), c);
	} else {
		snprintf(cls, clslen, "failed");
		snprintf(why, whylen, "clustermon-kprobe gave no answer to the request");
	}
	free(reply);
	return HELPER_REFUSED;
}

/* ------------------------------------------------------------ parsing */

struct cursor {
	const char *p;
	char line[WIRE_LINE_MAX + 1];
};

/* The next line into c->line; false at the end or on an overlong line. */
static bool next_line(struct cursor *c)
{
	size_t n;

	if (*c->p == '\0')
		return false;
	n = strcspn(c->p, "\n");
	if (n > WIRE_LINE_MAX)
		return false;
	memcpy(c->line, c->p, n);
	c->line[n] = '\0';
	c->p += n + (c->p[n] == '\n');
	return true;
}

/* Unsigned numbers separated by single spaces, from *s. */
static bool take_u64(const char **s, uint64_t *v)
{
	return **s == ' ' && num_scan_u64(*s + 1, s, v) == NUM_OK;
}

static bool take_array(const char **s, unsigned n, uint64_t *out)
{
	for (unsigned i = 0; i < n; i++)
		if (!take_u64(s, &out[i]))
			return false;
	return true;
}

/* " NCPU V0 ... V(NCPU-1)" into a malloc'd array. */
static bool take_cpu_array(const char **s, unsigned *ncpu, uint64_t **out)
{
	uint64_t n;

	if (!take_u64(s, &n) || n == 0 || n > 8192)
		return false;
	*out = calloc((size_t)n, sizeof(**out));
	*ncpu = (unsigned)n;
	return *out != NULL && take_array(s, *ncpu, *out);
}

/* " SUM SLOT0 ... SLOT63" into a log2hist of 64 buckets. */
static bool take_hist(const char **s, struct log2hist *h)
{
	uint64_t sum;

	log2hist_init(h, HELPER_HIST_BUCKETS);
	if (!take_u64(s, &sum) || !take_array(s, HELPER_HIST_BUCKETS, h->bucket))
		return false;
	h->sum = sum;
	h->count = 0;
	for (unsigned i = 0; i < HELPER_HIST_BUCKETS; i++)
		h->count += h->bucket[i];
	return true;
}

static struct helper_probe *probe_slot(struct helper_reading *r, uint32_t id)
{
	struct helper_probe *grown;

	for (size_t i = 0; i < r->nprobes; i++)
		if (r->probes[i].id == id)
			return &r->probes[i];
	grown = realloc(r->probes, (r->nprobes + 1) * sizeof(*grown));
	if (grown == NULL)
		return NULL;
	r->probes = grown;
	memset(&grown[r->nprobes], 0, sizeof(*grown));
	grown[r->nprobes].id = id;
	return &grown[r->nprobes++];
}

static bool take_id(const char **s, uint32_t *id)
{
	uint64_t v;

	if (!take_u64(s, &v) || v < 1 || v > 65535)
		return false;
	*id = (uint32_t)v;
	return true;
}

static bool parse_list_line(void *ctx, const char *s)
{
	struct helper_reading *r = ctx;
	struct helper_probe *p;
	uint32_t id;

	if (strncmp(s, "probe", 5) != 0)
		return false;
	s += 5;
	if (!take_id(&s, &id) || *s != ' ' || (p = probe_slot(r, id)) == NULL)
		return false;
	snprintf(p->spec_line, sizeof(p->spec_line), "%s", s + 1);
	return true;
}

/* " REASON COUNT NAME" */
static bool parse_drop(struct helper_reading *r, const char *s)
{
	struct helper_drop *grown, *d;
	uint64_t reason;
	size_t n;

	if (!take_u64(&s, &reason) || reason > 65535 || r->ndrops >= 65536)
		return false;
	grown = realloc(r->drops, (r->ndrops + 1) * sizeof(*grown));
	if (grown == NULL)
		return false;
	r->drops = grown;
	d = &grown[r->ndrops];
	if (!take_u64(&s, &d->count) || *s != ' ')
		return false;
	n = strlen(s + 1);
	if (n == 0 || n >= sizeof(d->name) || strchr(s + 1, ' ') != NULL)
		return false;
	memcpy(d->name, s + 1, n + 1);
	d->reason = (uint32_t)reason;
	r->ndrops++;
	return true;
}

static bool parse_read_line(void *ctx, const char *s)
{
	struct helper_reading *r = ctx;
	struct helper_probe *p;
	uint32_t id;

	if (strncmp(s, "probe ", 6) == 0) {
		s += 5;
		if (!take_id(&s, &id) || (p = probe_slot(r, id)) == NULL || p->cpu_hits != NULL)
			return false;
		return take_u64(&s, &p->hits) && take_u64(&s, &p->sampled) &&
		       take_u64(&s, &p->lost) && take_cpu_array(&s, &p->ncpu, &p->cpu_hits) &&
		       *s == '\0';
	}
	if (strncmp(s, "hist ", 5) == 0) {
		s += 4;
		if (!take_id(&s, &id) || (p = probe_slot(r, id)) == NULL)
			return false;
		p->has_hist = take_hist(&s, &p->hist) && *s == '\0';
		return p->has_hist;
	}
	if (strncmp(s, "busy ", 5) == 0 && r->busy_ns == NULL) {
		s += 4;
		r->has_sched = take_cpu_array(&s, &r->ncpu, &r->busy_ns) && *s == '\0';
		return r->has_sched;
	}
	if (strncmp(s, "switches ", 9) == 0 && r->switches == NULL) {
		unsigned n;

		s += 8;
		return take_cpu_array(&s, &n, &r->switches) && n == r->ncpu && *s == '\0';
	}
	if (strncmp(s, "runqlat ", 8) == 0) {
		s += 7;
		return take_hist(&s, &r->runqlat) && *s == '\0';
	}
	if (strncmp(s, "drop ", 5) == 0)
		return parse_drop(r, s + 4);
	if (strncmp(s, "sensors ", 8) == 0) {
		s += 7;
		r->has_sensors = take_u64(&s, &r->tcp_retransmits) &&
				 take_u64(&s, &r->skb_drops) && take_u64(&s, &r->runqlat_lost) &&
				 (*s == '\0' || (take_u64(&s, &r->procs_lost) && *s == '\0'));
		return r->has_sensors;
	}
	return false;
}

/* "ok N" and N lines, each handed to parse. */
static bool parse_counted(struct cursor *c, void *r, bool (*parse)(void *, const char *),
			  char *why, size_t whylen)
{
	const char *s;
	uint64_t n;

	if (!next_line(c) || strncmp(c->line, "ok", 2) != 0 ||
	    (s = c->line + 2, !take_u64(&s, &n)) || *s != '\0') {
		snprintf(why, whylen, "expected 'ok COUNT', got '%.60s'", c->line);
		return false;
	}
	for (uint64_t i = 0; i < n; i++) {
		if (!next_line(c)) {
			snprintf(why, whylen, "reply cut short");
			return false;
		}
		if (!parse(r, c->line)) {
			snprintf(why, whylen, "malformed reply line '%.60s'", c->line);
			return false;
		}
	}
	return true;
}

/* The hello line: the helper's instance into instance[64]. */
static bool parse_hello(struct cursor *c, char *instance, char *why, size_t whylen)
{
	int n = 0;

	if (!next_line(c) || sscanf(c->line, "ok clustermon-kprobe 1 %63s%n", instance, &n) != 1 ||
	    c->line[n] != '\0') {
		snprintf(why, whylen, "not a clustermon-kprobe speaking protocol 1: '%.60s'",
			 c->line);
		return false;
	}
	return true;
}

int helper_parse_poll(const char *reply, struct helper_reading *out, char *why, size_t whylen)
{
	struct cursor *c = calloc(1, sizeof(*c));

	memset(out, 0, sizeof(*out));
	if (c == NULL) {
		snprintf(why, whylen, "out of memory");
		return -1;
	}
	c->p = reply;
	if (!parse_hello(c, out->instance, why, whylen)) {
		free(c);
		return -1;
	}
	if (!parse_counted(c, out, parse_list_line, why, whylen) ||
	    !parse_counted(c, out, parse_read_line, why, whylen)) {
		free(c);
		helper_reading_free(out);
		return -1;
	}
	free(c);
	return 0;
}

/* " TGID CPU-NS RUN-DELAY-NS MARK", one process per tgid. */
static bool parse_proc_line(void *ctx, const char *s)
{
	struct helper_procs *r = ctx;
	struct helper_proc *p, *grown;
	uint64_t tgid, mark;

	if (strncmp(s, "proc ", 5) != 0 || r->n >= HELPER_MAX_PROCS)
		return false;
	s += 4;
	if (r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 256;

		if ((grown = realloc(r->v, cap * sizeof(*grown))) == NULL)
			return false;
		r->v = grown;
		r->cap = cap;
	}
	p = &r->v[r->n];
	if (!take_u64(&s, &tgid) || tgid == 0 || tgid > HELPER_MAX_PID ||
	    !take_u64(&s, &p->cpu_ns) || !take_u64(&s, &p->run_delay_ns) ||
	    !take_u64(&s, &mark) || *s != '\0' || mark < HELPER_PROC_RAN || mark > HELPER_PROC_NEW)
		return false;
	p->tgid = (uint32_t)tgid;
	p->mark = (uint8_t)mark;
	p->exited = mark == HELPER_PROC_EXITED;
	r->n++;
	return true;
}

/* A cursor at the start of reply, or NULL with why. */
static struct cursor *cursor_at(const char *reply, char *why, size_t whylen)
{
	struct cursor *c = calloc(1, sizeof(*c));

	if (c == NULL)
		snprintf(why, whylen, "out of memory");
	else
		c->p = reply;
	return c;
}

int helper_parse_procs(const char *reply, struct helper_procs *out, char *why, size_t whylen)
{
	struct cursor *c = cursor_at(reply, why, whylen);
	bool ok;

	memset(out, 0, sizeof(*out));
	if (c == NULL)
		return -1;
	ok = parse_hello(c, out->instance, why, whylen) &&
	     parse_counted(c, out, parse_proc_line, why, whylen);
	free(c);
	if (!ok)
		helper_procs_free(out);
	return ok ? 0 : -1;
}

int helper_parse_maps(const char *reply, struct helper_maps_reply *out, char *why, size_t whylen)
{
	struct cursor *c = cursor_at(reply, why, whylen);
	const char *s;
	bool ok;

	memset(out, 0, sizeof(*out));
	if (c == NULL)
		return -1;
	ok = parse_hello(c, out->instance, why, whylen) && next_line(c);
	s = c->line + 7;
	if (ok && (strncmp(c->line, "ok maps", 7) != 0 || !take_u64(&s, &out->nslots) ||
		   !take_u64(&s, &out->nrings) || !take_u64(&s, &out->ncpu) || *s != '\0' ||
		   out->nslots == 0 || out->nslots > HELPER_MAX_SLOTS ||
		   (out->nslots & (out->nslots - 1)) != 0 || out->nrings == 0 ||
		   out->nrings > HELPER_MAX_CPUS || out->ncpu == 0 || out->ncpu > out->nrings)) {
		snprintf(why, whylen, "expected 'ok maps SLOTS RINGS NCPU', got '%.60s'", c->line);
		ok = false;
	}
	free(c);
	return ok ? 0 : -1;
}

int helper_parse_cgmaps(const char *reply, uint64_t *entries, uint64_t *ncpu)
{
	const char *nl = strchr(reply, '\n'), *end, *s;

	if (strncmp(reply, "ok clustermon-kprobe ", 21) != 0 || nl == NULL ||
	    strncmp(nl + 1, "ok cgmaps ", 10) != 0)
		return -1;
	s = nl + 11;
	if (num_scan_u64(s, &end, entries) != NUM_OK || *end != ' ' ||
	    num_scan_u64(end + 1, &end, ncpu) != NUM_OK || *end != '\n' || end[1] != '\0' ||
	    *entries == 0 || *entries > HELPER_MAX_CGMAP || *ncpu == 0 || *ncpu > HELPER_MAX_CPUS)
		return -1;
	return 0;
}

void helper_procs_free(struct helper_procs *r)
{
	free(r->v);
	memset(r, 0, sizeof(*r));
}

void helper_reading_free(struct helper_reading *r)
{
	for (size_t i = 0; i < r->nprobes; i++)
		free(r->probes[i].cpu_hits);
	free(r->probes);
	free(r->busy_ns);
	free(r->switches);
	free(r->drops);
	memset(r, 0, sizeof(*r));
}

const struct helper_probe *helper_find_probe(const struct helper_reading *r, uint32_t id)
{
	for (size_t i = 0; i < r->nprobes; i++)
		if (r->probes[i].id == id)
			return &r->probes[i];
	return NULL;
}
