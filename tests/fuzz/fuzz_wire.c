/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fuzz_wire.c - the helper's control protocol from both ends: arbitrary
 * bytes as a request stream (split into lines, each parsed; an accepted
 * request must print back to a line that parses to the same request) and
 * as a reply to the subagent's poll and to its procs request (parsed
 * without reading outside it; every process accepted is in bounds), and as
 * a tracefs format file a trace session turns into CTF fields (an accepted
 * one declares exactly the bytes it copies, and TSDL holds it), and as the
 * memory of a per-CPU "ran" ring the kernel side writes (never more than a
 * ring read, one valid entry per process out), as the tgid-slotted sums
 * clustermond maps read-only (one entry per process, from its own slot),
 * and as the reply to the maps request (counts within their bounds). Each
 * line is also a distribution request's words (distspec.h: an accepted one
 * prints back to words that parse to the same spec and filters) and the
 * bytes a "dists" reply (collect/distlist.h: every bucket count adds up).
 * Each line is also a reply line to every verb (common/wire.h): an
 * accepted one writes back to a line that reads as the same struct.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect/helper.h"
#include "collect/helperexits.h"
#include "collect/distlist.h"
#include "collect/tracelist.h"
#include "common/distspec.h"
#include "common/ranlist.h"
#include "tpformat.h"
#include "common/wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_roundtrip(const struct wire_request *r)
{
	char line[WIRE_MAX_REQUEST + 2], why[256];
	struct wire_request back;
	int n = wire_format_request(r, line, sizeof(line));

	if (n <= 0)
		return; /* a spec at the length limit plus filters may not fit a line */
	line[n - 1] = '\0';
	if (wire_parse_request(line, &back, why, sizeof(why)) != 0 ||
	    memcmp(&back, r, sizeof(back)) != 0) {
		fprintf(stderr, "contract broken: '%s' does not parse back (%s)\n", line, why);
		abort();
	}
}

static void check_dist_line(const char *line)
{
	char text[DIST_SPEC_MAX_TEXT + DIST_CGROUP_MAX + 80], why[256];
	struct dist_spec s, s2;
	struct dist_filter f, f2;

	if (dist_line_parse(line, &s, &f, why, sizeof(why)) != 0)
		return;
	dist_line_format(&s, &f, text, sizeof(text));
	if (dist_line_parse(text, &s2, &f2, why, sizeof(why)) != 0 ||
	    memcmp(&s, &s2, sizeof(s)) != 0 || memcmp(&f, &f2, sizeof(f)) != 0) {
		fprintf(stderr, "contract broken: dist '%s' from '%s' does not parse back (%s)\n", text, line, why);
		abort();
	}
}

static bool same_reply(const struct wire_reply *a, const struct wire_reply *b)
{
	return a->kind == b->kind && memcmp(&a->u, &b->u, sizeof(a->u)) == 0 &&
	       a->ncpu == b->ncpu &&
	       (a->ncpu == 0 || memcmp(a->cpu, b->cpu, a->ncpu * sizeof(*a->cpu)) == 0);
}

static void check_reply_line(const char *line)
{
	for (int verb = WIRE_HELLO; verb <= WIRE_VERB_LAST; verb++) {
		struct wire_reply r, back;
		char why[256], *text = NULL;
		size_t len = 0;
		FILE *out;

		if (wire_parse_reply((enum wire_verb)verb, line, &r, why, sizeof(why)) != 0)
			continue;
		if ((out = open_memstream(&text, &len)) == NULL)
			abort();
		if (wire_write_reply(out, &r) != 0 || fclose(out) != 0 || len == 0 ||
		    (text[len - 1] = '\0',
		     wire_parse_reply((enum wire_verb)verb, text, &back, why, sizeof(why)) != 0) ||
		    !same_reply(&r, &back)) {
			fprintf(stderr, "contract broken: reply '%.80s' does not write back (%s)\n",
				line, why);
			abort();
		}
		wire_reply_free(&back);
		wire_reply_free(&r);
		free(text);
	}
}

static void as_requests(const uint8_t *data, size_t size)
{
	char buf[2 * WIRE_MAX_REQUEST + 2], line[WIRE_MAX_REQUEST + 1], why[256];
	struct wire_request r;
	size_t len = 0, at = 0;
	enum wire_line_status st;

	while (at < size) {
		size_t n = size - at < sizeof(buf) - len ? size - at : sizeof(buf) - len;

		memcpy(buf + len, data + at, n);
		len += n;
		at += n;
		while ((st = wire_take_line(buf, &len, WIRE_MAX_REQUEST, line)) == WIRE_LINE) {
			if (wire_parse_request(line, &r, why, sizeof(why)) == 0)
				check_roundtrip(&r);
			check_dist_line(line);
			check_reply_line(line);
		}
		if (st == WIRE_TOO_LONG)
			return; /* the helper closes the connection here */
	}
}

static void as_dists(const char *text)
{
	struct distlist_entry *e;
	char why[256];
	size_t n;

	if (distlist_parse(text, &e, &n, why, sizeof(why)) != 0)
		return;
	for (size_t i = 0; i < n; i++) {
		uint64_t sum = 0;

		for (unsigned b = 0; b < DISTLIST_SLOTS; b++)
			sum += e[i].hist.bucket[b];
		if (e[i].id == 0 || e[i].id > 65535 || sum != e[i].hist.count)
			abort();
	}
	free(e);
}

static void as_reply(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), why[256];
	struct helper_reading r;
	struct tracelist_entry *traces;
	size_t ntraces;
	struct helper_procs procs;
	struct helper_maps_reply maps;
	uint64_t entries, ncpu;

	if (text == NULL)
		return;
	memcpy(text, data, size);
	text[size] = '\0';
	if (helper_parse_poll(text, &r, why, sizeof(why)) == 0)
		helper_reading_free(&r);
	if (helper_parse_procs(text, &procs, why, sizeof(why)) == 0) {
		for (size_t i = 0; i < procs.n; i++)
			if (procs.v[i].tgid == 0 || procs.v[i].tgid > HELPER_MAX_PID ||
			    procs.v[i].mark < HELPER_PROC_RAN || procs.v[i].mark > HELPER_PROC_NEW ||
			    procs.v[i].exited != (procs.v[i].mark == HELPER_PROC_EXITED))
				abort();
		helper_procs_free(&procs);
	}
	if (tracelist_parse(text, &traces, &ntraces, why, sizeof(why)) == 0)
		free(traces);
	as_dists(text);
	if (helper_parse_cgmaps(text, &entries, &ncpu) == 0 &&
	    (entries == 0 || entries > HELPER_MAX_CGMAP || ncpu == 0 || ncpu > HELPER_MAX_CPUS))
		abort();
	if (helper_parse_maps(text, &maps, why, sizeof(why)) == 0 &&
	    (maps.nslots == 0 || maps.nslots > HELPER_MAX_SLOTS ||
	     (maps.nslots & (maps.nslots - 1)) != 0 || maps.nrings == 0 ||
	     maps.nrings > HELPER_MAX_CPUS || maps.ncpu == 0 || maps.ncpu > maps.nrings))
		abort();
	free(text);
}

static void as_format(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), why[256], tsdl[16384];
	struct ctf_event_class c = { .name = "fuzz" };
	struct ctf_trace t = { .nclasses = 1, .classes = &c };
	size_t payload;

	if (text == NULL)
		return;
	memcpy(text, data, size);
	text[size] = '\0';
	if (tpformat_parse(text, &c, &payload, why, sizeof(why)) == 0 &&
	    (payload != ctf_payload_bytes(&c) || payload > TP_MAX_PAYLOAD ||
	     ctf_metadata(&t, tsdl, sizeof(tsdl)) < 0)) {
		fprintf(stderr, "contract broken: %zu payload bytes, %zu declared\n", payload,
			ctf_payload_bytes(&c));
		abort();
	}
	free(text);
}

static void as_ring(const uint8_t *data, size_t size)
{
	static struct cm_ran_ring r;
	static uint64_t ent[CM_RAN_RING];
	static struct ran_news v[CM_RAN_RING];
	static size_t dirty = sizeof(r);   /* bytes the last input wrote */
	size_t n, k, len = size < sizeof(r) ? size : sizeof(r);
	uint64_t tail = 0;
	bool lost = false;

	memset(&r, 0, dirty);
	memcpy(&r, data, len);
	dirty = len;
	/* The reader's tail from the input too (its first bytes' inverse). */
	memcpy(&tail, data + (size >= 16 ? 8 : 0), size >= 16 ? 8 : 0);
	tail = ~tail;
	n = ran_take(&r, &tail, ent, &lost);
	if (n > CM_RAN_RING || tail != r.head)
		abort();
	k = ran_merge(v, ran_decode(ent, n, v));
	for (size_t i = 0; i < k; i++)
		if (v[i].tgid == 0 || v[i].tgid > CM_PID_MAX_LIMIT || v[i].mark < CM_RAN ||
		    v[i].mark > CM_NEW || (i > 0 && v[i - 1].tgid >= v[i].tgid) ||
		    ran_find(v, k, v[i].tgid) != &v[i])
			abort();
}

static void count_call(void *ctx, struct ran_news *p)
{
	(*(unsigned *)ctx)++;
	p->cpu_ns = 0;
}

/* The bytes as the tgid-slotted sums clustermond maps read-only: every
 * process out once, in its own slot, sorted; the running tasks' stretch
 * added without reading outside what was handed. */
static void as_slots(const uint8_t *data, size_t size)
{
	static struct cm_proc_slot slots[1024];
	static struct ran_news v[1024 + 2];
	struct cm_sched_cpu c[2];
	size_t nslots = 1, n, len = size < sizeof(slots) ? size : sizeof(slots);
	unsigned calls = 0;

	while (nslots * 2 * sizeof(slots[0]) <= len)
		nslots *= 2;
	memset(slots, 0, sizeof(slots));
	memcpy(slots, data, len);
	memset(c, 0, sizeof(c));
	memcpy(c, data, size < sizeof(c) ? size : sizeof(c));
	n = ran_all_slots(slots, nslots, v);
	for (size_t i = 0; i < n; i++)
		if (v[i].tgid == 0 || v[i].tgid > CM_PID_MAX_LIMIT ||
		    slots[v[i].tgid & (nslots - 1)].tgid != v[i].tgid ||
		    (i > 0 && v[i - 1].tgid >= v[i].tgid))
			abort();
	if (ran_add_running(v, n, n, c, 2, UINT64_MAX, count_call, &calls) > n + 2)
		abort();
}

static void count_rec(void *ctx, const union exit_ring_rec *r)
{
	if ((r->kind == CM_REC_EXIT && (r->exit.tgid == 0 || r->exit.args_len > CM_EXIT_ARGS ||
					r->exit.comm[sizeof(r->exit.comm) - 1] != '\0')) ||
	    (r->kind == CM_REC_OOM && r->oom.tgid == 0) ||
	    (r->kind != CM_REC_EXIT && r->kind != CM_REC_OOM))
		abort();
	(*(size_t *)ctx)++;
}

/* The bytes as the exit ring's data (mapped twice, as the kernel maps a
 * ring buffer), the producer position from the first 8: every record
 * handed out checked, the reader's position never past the producer's. */
static void as_exit_ring(const uint8_t *data, size_t size)
{
	enum { RING = 4096 };
	static unsigned char twice[2 * RING];
	uint64_t cons = 0, prod = 0, bad = 0;
	size_t seen = 0, n, len = size < RING ? size : RING;

	memset(twice, 0, sizeof(twice));
	memcpy(twice, data, len);
	memcpy(twice + RING, twice, RING);
	memcpy(&prod, data, size >= 8 ? 8 : 0);
	prod %= 2 * RING + 1;
	n = exitring_walk(&cons, prod, twice, RING, 64, count_rec, &seen, &bad);
	if (n != seen || n > 64 || cons > prod)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	as_requests(data, size);
	as_ring(data, size);
	as_slots(data, size);
	as_exit_ring(data, size);
	as_reply(data, size);
	as_format(data, size);
	return 0;
}

#ifdef FUZZ_SMOKE_MAIN
static const char *const fuzz_splices[] = {
	"\n", "add ", "del ", " pid=", " cpu=", " every=", "65535", "65536", "0",
	"tracepoint:", "latency:tracepoint:", "kprobe:", ",", ":", "ok 3\n", "probe ", "hist ",
	"18446744073709551616", "\r\n", " ", "trace ", "stop ", "traces", " duration=",
	" bytes=", " buffer=", "sched_switch", "\tfield:", ";\toffset:", ";\tsize:", ";\tsigned:",
	"[16]", "char ", "procs\n", "proc ", "4194304", " 2", " 3",
	"latency ", "value ", " key ", "+", " cgroup=/", " inflight=", "dist ", "dists\n",
	" tracepoint:syscalls:sys_exit_read ret", " tracepoint:block:block_rq_issue",
	"ok clustermon-kprobe 1 x\n", "ok maps ", "131072", "8192", "ok cgmaps ", "4096",
};
static const size_t fuzz_nsplices = sizeof(fuzz_splices) / sizeof(fuzz_splices[0]);
static const char *const fuzz_seeds[] = { "wire/requests.txt", "wire/reply.txt",
					   "wire/sched_switch.format", "wire/sys_enter_write.format",
					   "wire/traces.txt", "wire/procs.txt", "wire/dists.txt", "wire/maps.txt",
					   "wire/cgmaps.txt" };
static const size_t fuzz_nseeds = sizeof(fuzz_seeds) / sizeof(fuzz_seeds[0]);
#include "smoke.h"
#endif
