/* SPDX-License-Identifier: BSD-2-Clause */
/* helper.c - talk to clustermon-kprobe and parse what it says. */
#include "helper.h"
#include "common/clock.h"
#include "common/number.h"
#include "../core/grow.h"

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>


bool helper_conn_alive(int sock)
{
	struct pollfd pfd = { .fd = sock, .events = POLLIN | POLLRDHUP };

	return poll(&pfd, 1, 0) == 0;
}

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

int helper_ask_text(enum helper_ask ask, char *buf, size_t len)
{
	static const struct { unsigned n; enum wire_verb verb[3]; } asks[] = {
		[HELPER_ASK_POLL] = { 3, { WIRE_HELLO, WIRE_LIST, WIRE_READ } },
		[HELPER_ASK_PROCS] = { 2, { WIRE_HELLO, WIRE_PROCS } },
		[HELPER_ASK_MAPS] = { 2, { WIRE_HELLO, WIRE_MAPS } },
		[HELPER_ASK_CGMAPS] = { 2, { WIRE_HELLO, WIRE_CGMAPS } },
		[HELPER_ASK_TRACES] = { 1, { WIRE_TRACES } },
		[HELPER_ASK_DISTS] = { 1, { WIRE_DISTS } },
		[HELPER_ASK_EXITS] = { 2, { WIRE_HELLO, WIRE_EXITS } },
	};
	size_t used = 0;

	for (unsigned i = 0; i < asks[ask].n; i++) {
		struct wire_request req = { .verb = asks[ask].verb[i] };
		int n = wire_format_request(&req, buf + used, len - used);

		if (n < 0)
			return -1;
		used += (size_t)n;
	}
	return (int)used;
}

enum helper_result helper_ask(const char *path, enum helper_ask ask, int timeout_ms,
			      char **reply, char *why, size_t whylen)
{
	char text[64];

	if (helper_ask_text(ask, text, sizeof(text)) < 0) {
		*reply = NULL;
		snprintf(why, whylen, "request too long");
		return HELPER_REFUSED;
	}
	return helper_exchange(path, text, timeout_ms, reply, why, whylen);
}

enum helper_result helper_send(const char *path, const struct wire_request *req, int timeout_ms,
			       char **reply, char *why, size_t whylen)
{
	char line[WIRE_MAX_REQUEST + 2];

	*reply = NULL;
	if (wire_format_request(req, line, sizeof(line)) < 0) {
		snprintf(why, whylen, "request longer than the protocol allows");
		return HELPER_REFUSED;
	}
	return helper_exchange(path, line, timeout_ms, reply, why, whylen);
}

enum helper_result helper_add(const char *path, const struct wire_request *req, int timeout_ms,
			      bool *fresh, char *cls, size_t clslen, char *why, size_t whylen)
{
	char *reply;
	enum helper_result r = helper_send(path, req, timeout_ms, &reply, why, whylen);
	struct wire_reply w;

	cls[0] = '\0';
	if (r == HELPER_REFUSED)
		snprintf(cls, clslen, "invalid");
	if (r != HELPER_OK)
		return r;
	if (!helper_status(reply, &w))
		w.kind = WIRE_R_COUNT;   /* neither ok nor err */
	free(reply);
	if (w.kind == WIRE_R_OK) {
		*fresh = w.u.ok != WIRE_OK_UNCHANGED;
		return HELPER_OK;
	}
	if (w.kind == WIRE_R_ERR) {
		snprintf(cls, clslen, "%s", wire_err_class_name(w.u.err.cls));
		snprintf(why, whylen, "%s", w.u.err.reason);
	} else {
		snprintf(cls, clslen, "failed");
		snprintf(why, whylen, "clustermon-kprobe gave no answer to the request");
	}
	return HELPER_REFUSED;
}

bool helper_status(const char *reply, struct wire_reply *w)
{
	char line[WIRE_MAX_REASON + 64], why[64];
	size_t n = strcspn(reply, "\n");

	memset(w, 0, sizeof(*w));
	if (n >= sizeof(line))
		return false;
	memcpy(line, reply, n);
	line[n] = '\0';
	if (wire_parse_reply(WIRE_ADD, line, w, why, sizeof(why)) != 0)
		return false;
	wire_reply_free(w);
	return w->kind == WIRE_R_OK || w->kind == WIRE_R_ERR || w->kind == WIRE_R_STARTED;
}

/* ------------------------------------------------------------ parsing */

/* Every line is common/wire.h's to read; what is here puts the lines of
 * one exchange together. */
struct cursor {
	const char *p;
	char line[WIRE_MAX_REPLY_LINE + 1];
};

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

/* The next line, parsed as part of the reply to verb, into r; false at
 * the end, on an overlong line, or on one the codec refuses (why says). */
static bool next_reply(struct cursor *c, enum wire_verb verb, struct wire_reply *r, char *why,
		       size_t whylen)
{
	size_t n;

	memset(r, 0, sizeof(*r));
	if (*c->p == '\0') {
		snprintf(why, whylen, "reply cut short");
		return false;
	}
	n = strcspn(c->p, "\n");
	if (n > WIRE_MAX_REPLY_LINE) {
		snprintf(why, whylen, "reply line longer than %u bytes", (unsigned)WIRE_MAX_REPLY_LINE);
		return false;
	}
	if (c->p[n] != '\n') {
		snprintf(why, whylen, "reply cut short");
		return false;
	}
	memcpy(c->line, c->p, n);
	c->line[n] = '\0';
	c->p += n + (c->p[n] == '\n');
	return wire_parse_reply(verb, c->line, r, why, whylen) == 0;
}

/* The next line must be of kind: false with why otherwise. */
static bool expect(struct cursor *c, enum wire_verb verb, enum wire_reply_kind kind,
		   struct wire_reply *r, char *why, size_t whylen)
{
	if (!next_reply(c, verb, r, why, whylen))
		return false;
	if (r->kind == kind)
		return true;
	if (r->kind == WIRE_R_ERR)
		snprintf(why, whylen, "clustermon-kprobe refused: %s %s",
			 wire_err_class_name(r->u.err.cls), r->u.err.reason);
	else
		snprintf(why, whylen, "unexpected reply line '%.60s'", c->line);
	wire_reply_free(r);
	return false;
}

/* The hello line: the helper's instance into instance[64]. */
static bool parse_hello(struct cursor *c, char *instance, char *why, size_t whylen)
{
	struct wire_reply r;

	if (!expect(c, WIRE_HELLO, WIRE_R_HELLO, &r, why, whylen))
		return false;
	snprintf(instance, 64, "%s", r.u.hello.instance);
	return true;
}

/* "ok N" and N lines, each parsed for verb and handed to take (which may
 * keep r->cpu, setting it NULL). */
static bool parse_counted(struct cursor *c, enum wire_verb verb, void *ctx,
			  bool (*take)(void *, struct wire_reply *), char *why, size_t whylen)
{
	struct wire_reply r;
	uint64_t n;

	if (!expect(c, verb, WIRE_R_COUNT, &r, why, whylen))
		return false;
	n = r.u.count;
	for (uint64_t i = 0; i < n; i++) {
		bool ok;

		if (!next_reply(c, verb, &r, why, whylen))
			return false;
		ok = take(ctx, &r);
		wire_reply_free(&r);
		if (!ok) {
			snprintf(why, whylen, "unexpected reply line '%.60s'", c->line);
			return false;
		}
	}
	return true;
}

int helper_parse_counted(const char *reply, enum wire_verb verb, void *ctx,
			 bool (*take)(void *, struct wire_reply *), char *why, size_t whylen)
{
	struct cursor *c = cursor_at(reply, why, whylen);
	bool ok;

	if (c == NULL)
		return -1;
	ok = parse_counted(c, verb, ctx, take, why, whylen);
	free(c);
	return ok ? 0 : -1;
}

struct list_build {
	const struct helper_list *how;
	unsigned char *v;
	size_t n, cap;
};

static bool take_element(void *ctx, struct wire_reply *w)
{
	struct list_build *b = ctx;
	void *e;

	if (w->kind != b->how->kind || b->n >= b->how->max ||
	    !cm_grow(&b->v, &b->cap, b->n, b->how->elem, 8))
		return false;
	e = b->v + b->n++ * b->how->elem;
	memset(e, 0, b->how->elem);
	b->how->fill(e, w);
	return true;
}

void *helper_parse_list(const char *reply, enum wire_verb verb, const struct helper_list *how,
			size_t *n, char *why, size_t whylen)
{
	struct list_build b = { how, NULL, 0, 0 };

	*n = 0;
	if (helper_parse_counted(reply, verb, &b, take_element, why, whylen) != 0) {
		free(b.v);
		return NULL;
	}
	/* An empty list is an answer too: a pointer all the same. */
	if (b.v == NULL && (b.v = calloc(1, how->elem)) == NULL) {
		snprintf(why, whylen, "out of memory");
		return NULL;
	}
	*n = b.n;
	return b.v;
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

static bool take_list_line(void *ctx, struct wire_reply *w)
{
	struct helper_probe *p;

	if (w->kind != WIRE_R_PROBE || (p = probe_slot(ctx, w->u.probe.id)) == NULL)
		return false;
	p->spec = w->u.probe.spec;
	p->filter = w->u.probe.filter;
	p->listed = true;
	return true;
}

static void hist_from_wire(struct log2hist *h, uint64_t sum, const uint64_t *slot)
{
	log2hist_init(h, HELPER_HIST_BUCKETS);
	memcpy(h->bucket, slot, HELPER_HIST_BUCKETS * sizeof(h->bucket[0]));
	h->sum = sum;
	h->count = 0;
	for (unsigned i = 0; i < HELPER_HIST_BUCKETS; i++)
		h->count += h->bucket[i];
}

static bool take_drop(struct helper_reading *r, const struct wire_reply *w)
{
	struct helper_drop *grown;

	if (r->ndrops >= 65536 || (grown = realloc(r->drops, (r->ndrops + 1) * sizeof(*grown))) == NULL)
		return false;
	r->drops = grown;
	grown[r->ndrops].reason = w->u.drop.reason;
	grown[r->ndrops].count = w->u.drop.count;
	snprintf(grown[r->ndrops].name, sizeof(grown[0].name), "%s", w->u.drop.name);
	r->ndrops++;
	return true;
}

static bool take_probe_counts(struct helper_reading *r, struct wire_reply *w)
{
	struct helper_probe *p = probe_slot(r, w->u.counts.id);

	if (p == NULL || p->cpu_hits != NULL)
		return false;
	p->hits = w->u.counts.hits;
	p->sampled = w->u.counts.sampled;
	p->lost = w->u.counts.lost;
	p->ncpu = w->ncpu;
	p->cpu_hits = w->cpu;
	w->cpu = NULL;
	return true;
}

static bool take_read_line(void *ctx, struct wire_reply *w)
{
	struct helper_reading *r = ctx;
	struct helper_probe *p;

	switch (w->kind) {
	case WIRE_R_COUNTS: return take_probe_counts(r, w);
	case WIRE_R_HIST:
		if ((p = probe_slot(r, w->u.hist.id)) == NULL)
			return false;
		hist_from_wire(&p->hist, w->u.hist.sum, w->u.hist.slot);
		return p->has_hist = true;
	case WIRE_R_BUSY:
		if (r->busy_ns != NULL)
			return false;
		r->ncpu = w->ncpu;
		r->busy_ns = w->cpu;
		w->cpu = NULL;
		return r->has_sched = true;
	case WIRE_R_SWITCHES:
		if (r->switches != NULL || w->ncpu != r->ncpu)
			return false;
		r->switches = w->cpu;
		w->cpu = NULL;
		return true;
	case WIRE_R_RUNQLAT:
		hist_from_wire(&r->runqlat, w->u.hist.sum, w->u.hist.slot);
		return r->has_runqlat = true;
	case WIRE_R_DROP: return take_drop(r, w);
	case WIRE_R_SENSORS:
		r->tcp_retransmits = w->u.sensors.tcp_retransmits;
		r->skb_drops = w->u.sensors.skb_drops;
		r->runqlat_lost = w->u.sensors.runqlat_lost;
		r->procs_lost = w->u.sensors.procs_lost;
		return r->has_sensors = true;
	default: return false;
	}
}

int helper_parse_poll(const char *reply, struct helper_reading *out, char *why, size_t whylen)
{
	struct cursor *c = cursor_at(reply, why, whylen);
	bool ok;

	memset(out, 0, sizeof(*out));
	if (c == NULL)
		return -1;
	ok = parse_hello(c, out->instance, why, whylen) &&
	     parse_counted(c, WIRE_LIST, out, take_list_line, why, whylen) &&
	     parse_counted(c, WIRE_READ, out, take_read_line, why, whylen);
	free(c);
	if (!ok)
		helper_reading_free(out);
	return ok ? 0 : -1;
}

/* One process per line, at most HELPER_MAX_PROCS. */
static bool take_proc_line(void *ctx, struct wire_reply *w)
{
	struct helper_procs *r = ctx;

	if (w->kind != WIRE_R_PROC || r->n >= HELPER_MAX_PROCS ||
	    !cm_grow(&r->v, &r->cap, r->n, sizeof(*r->v), 256))
		return false;
	r->v[r->n] = (struct helper_proc){ .tgid = w->u.proc.tgid, .mark = (uint8_t)w->u.proc.mark,
					   .exited = w->u.proc.mark == WIRE_PROC_EXITED,
					   .cpu_ns = w->u.proc.cpu_ns,
					   .run_delay_ns = w->u.proc.run_delay_ns };
	r->n++;
	return true;
}

int helper_parse_procs(const char *reply, struct helper_procs *out, char *why, size_t whylen)
{
	struct cursor *c = cursor_at(reply, why, whylen);
	bool ok;

	memset(out, 0, sizeof(*out));
	if (c == NULL)
		return -1;
	ok = parse_hello(c, out->instance, why, whylen) &&
	     parse_counted(c, WIRE_PROCS, out, take_proc_line, why, whylen);
	free(c);
	if (!ok)
		helper_procs_free(out);
	return ok ? 0 : -1;
}

int helper_parse_maps(const char *reply, struct helper_maps_reply *out, char *why, size_t whylen)
{
	struct cursor *c = cursor_at(reply, why, whylen);
	struct wire_reply r;
	bool ok;

	memset(out, 0, sizeof(*out));
	if (c == NULL)
		return -1;
	ok = parse_hello(c, out->instance, why, whylen) &&
	     expect(c, WIRE_MAPS, WIRE_R_MAPS, &r, why, whylen);
	if (ok) {
		out->nslots = r.u.maps.slots;
		out->nrings = r.u.maps.rings;
		out->ncpu = r.u.maps.ncpu;
	}
	free(c);
	return ok ? 0 : -1;
}

/* A reply of hello and one line of kind (to verb) and nothing more, the
 * line into *r: true when it is that. */
static bool one_after_hello(const char *reply, enum wire_verb verb, enum wire_reply_kind kind,
			    struct wire_reply *r)
{
	char instance[64], why[128];
	struct cursor *c = cursor_at(reply, why, sizeof(why));
	bool ok;

	if (c == NULL)
		return false;
	ok = parse_hello(c, instance, why, sizeof(why)) &&
	     expect(c, verb, kind, r, why, sizeof(why)) && *c->p == '\0';
	free(c);
	return ok;
}

int helper_parse_cgmaps(const char *reply, uint64_t *entries, uint64_t *ncpu)
{
	struct wire_reply r;

	if (!one_after_hello(reply, WIRE_CGMAPS, WIRE_R_CGMAPS, &r))
		return -1;
	*entries = r.u.cgmaps.entries;
	*ncpu = r.u.cgmaps.ncpu;
	return 0;
}

int helper_parse_exits(const char *reply, uint64_t *bytes)
{
	struct wire_reply r;

	if (!one_after_hello(reply, WIRE_EXITS, WIRE_R_EXITS, &r))
		return -1;
	*bytes = r.u.exits;
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
