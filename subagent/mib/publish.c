/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * publish.c - the image of every read-only instance this agent serves,
 * published for clustermon.so inside snmpd (the fast read path).
 *
 * The image is encoded from the same group descriptors and get callbacks
 * that answer AgentX requests, so both paths serve the same instances with
 * the same types. It runs on the SNMP thread (the only thread that may call
 * the groups), from a timer at the fastest source's interval; a group is
 * encoded again only when one of its sources sampled since. Groups with
 * read-create tables stay with the subagent: their rows change by SET.
 */
#include "group.h"
#include "mib.h"
#include "publish.h"
#include "../core/clock.h"

#include <errno.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>

#include "../conf.h"
#include "../imagefile.h"
#include "../sampler.h"

#define DEFAULT_DIR "/run/clustermon/snapshot"
#define DEFAULT_PATH DEFAULT_DIR "/image"
#define MIN_CAP (64u * 1024u)
#define RETRY_NS (5ull * 1000000000u)
/* How often the writer checks that nobody else changed its file. */
#define VERIFY_NS 1000000000ull
/* Readers stop serving after two ticks without a beat, but never sooner
 * than a second: a busy SNMP thread must not make the values vanish. */
#define STALE_FLOOR_MS 500u

struct section {
	const struct mib_group *g;
	uint64_t gen;
	uint64_t last_ns;
	bool done;
};

static struct {
	struct image_file *f;
	struct cm_image_header layout;
	struct section s[CM_IMAGE_MAX_SECTIONS];
	struct cm_image_enc enc;
	size_t cap[CM_IMAGE_MAX_SECTIONS];  /* room each section last needed */
	unsigned alarm;
	uint32_t tick_ms;
	uint64_t retry_at, verify_at;
	bool complained, announced, running;
} P;

/* ------------------------------------------------------------ layout */

static void add_reg(uint32_t kind, const struct mib_group *g, const uint32_t *tail,
		    size_t tail_len, unsigned min_col, unsigned max_col)
{
	struct cm_image_reg *r;

	if (P.layout.nregs == CM_IMAGE_MAX_REGS || g->base_len + tail_len > CM_IMAGE_MAX_OID) {
		snmp_log(LOG_WARNING, "clustermond: image: too many objects; some stay AgentX-only\n");
		return;
	}
	r = &P.layout.reg[P.layout.nregs++];
	r->kind = kind;
	r->min_col = min_col;
	r->max_col = max_col;
	r->len = (uint32_t)(g->base_len + tail_len);
	for (size_t i = 0; i < g->base_len; i++)
		r->oid[i] = (uint32_t)g->base[i];
	memcpy(r->oid + g->base_len, tail, tail_len * sizeof(uint32_t));
}

/* The read-only objects of a group as subtrees a reader may register. */
static void add_regs(const struct mib_group *g)
{
	for (size_t i = 0; i < g->nobjects; i++) {
		const struct mib_object *o = &g->objects[i];
		const struct mib_table *t = o->table;
		uint32_t tail[3] = { o->arc, 1, 0 };

		if (t == NULL) {
			if (o->setter == NULL)
				add_reg(CM_REG_SCALAR, g, tail, 1, 0, 0);
		} else if (t->writable_col == 0) {
			add_reg(CM_REG_TABLE, g, tail, 1, t->min_col, t->max_col);
		} else {
			for (unsigned c = t->min_col; c <= t->max_col; c++) {
				tail[2] = c;
				if (c != t->writable_col)
					add_reg(CM_REG_COLUMN, g, tail, 3, 0, 0);
			}
		}
	}
}

static void build_layout(void)
{
	const struct mib_group *g;

	memset(&P.layout, 0, sizeof(P.layout));
	for (size_t i = 0; (g = mib_group_nth(i)) != NULL; i++) {
		struct cm_image_section *s = &P.layout.sec[P.layout.nsections];

		if (g->set_request != NULL || P.layout.nsections == CM_IMAGE_MAX_SECTIONS ||
		    g->base_len > CM_IMAGE_MAX_OID)
			continue;
		s->base_len = (uint32_t)g->base_len;
		for (size_t k = 0; k < g->base_len; k++)
			s->base[k] = (uint32_t)g->base[k];
		P.s[P.layout.nsections] = (struct section){ .g = g };
		P.layout.nsections++;
		add_regs(g);
	}
}

/* ------------------------------------------------------------ encoding */

static void add_value(const uint32_t *sub, size_t n, const struct mib_value *v)
{
	uint32_t ids[CM_IMAGE_MAX_VAL / 4];
	const oid *o = v->ptr;

	switch (v->type) {
	case ASN_OCTET_STR:
		cm_image_enc_add(&P.enc, sub, n, v->type, v->ptr, v->len);
		break;
	case ASN_OBJECT_ID:
		if (v->len > CM_IMAGE_MAX_VAL / 4)
			break;
		for (size_t i = 0; i < v->len; i++)
			ids[i] = (uint32_t)o[i];
		cm_image_enc_add(&P.enc, sub, n, v->type, ids, v->len * 4);
		break;
	default:
		cm_image_enc_add(&P.enc, sub, n, v->type, &v->num, sizeof(v->num));
		break;
	}
}

static void encode_table(const struct mib_object *o, void *view)
{
	const struct mib_table *t = o->table;
	uint32_t sub[3 + MAX_OID_LEN] = { o->arc, 1, 0 };
	oid idx[MAX_OID_LEN];
	struct mib_value v;
	size_t rows = t->rows(view);

	if (3 + t->index_len > CM_IMAGE_MAX_SUB)
		return;
	for (unsigned c = t->min_col; c <= t->max_col; c++) {
		if (c == t->writable_col)
			continue;
		sub[2] = c;
		for (size_t r = 0; r < rows; r++) {
			t->row_index(view, r, idx);
			for (unsigned k = 0; k < t->index_len; k++)
				sub[3 + k] = (uint32_t)idx[k];
			if (t->get(view, r, c, &v) == MIB_PRESENT)
				add_value(sub, 3 + t->index_len, &v);
		}
	}
}

/* The group's read-only instances in OID order, as group.c serves them. */
static size_t encode_group(const struct mib_group *g)
{
	void *view = g->acquire ? g->acquire() : NULL;
	struct mib_value v;

	cm_image_enc_begin(&P.enc);
	for (size_t i = 0; i < g->nobjects; i++) {
		const struct mib_object *o = &g->objects[i];
		uint32_t sub[2] = { o->arc, 0 };

		if (o->table == NULL) {
			if (o->setter == NULL && o->get(view, &v) == MIB_PRESENT)
				add_value(sub, 2, &v);
		} else if (view != NULL || g->acquire == NULL) {
			encode_table(o, view);
		}
	}
	if (g->release)
		g->release(view);
	return cm_image_enc_end(&P.enc);
}

/* Samples taken by the group's sources: it changes when they do. */
static uint64_t generation(const struct mib_group *g)
{
	struct source_stats st;
	uint64_t gen = 0;

	for (unsigned i = 1; i <= SOURCE_LAST; i++)
		if ((g->sources & (1u << i)) && sampler_stats(i, &st) == 0)
			gen += st.samples;
	return gen;
}

static const char *wanted_path_or_none(void);

/* Stops publishing after a failure: one line names the path, the size
 * and the reason; the file goes (readers step aside, as when clustermond
 * is gone) and a new one is tried after RETRY_NS. */
static void give_up(const char *what, size_t bytes, int err, uint64_t now)
{
	if (!P.complained)
		snmp_log(LOG_ERR, "clustermond: snapshotFile %s: cannot %s (%zu bytes): %s; "
			 "not publishing, retrying every %llu s\n",
			 P.f != NULL ? image_file_path(P.f) : wanted_path_or_none(), what, bytes,
			 strerror(err), RETRY_NS / 1000000000ull);
	P.complained = true;
	P.retry_at = now + RETRY_NS;
	image_file_close(P.f);
	P.f = NULL;
}

/* Writes section i, into a bigger file when it outgrew its room. */
static int write_section(unsigned i, size_t len, uint64_t now)
{
	size_t bytes = 0;
	int err;

	if (len > image_file_cap(P.f, i)) {
		if (image_file_grow(&P.f, i, len, &bytes) != 0) {
			err = errno;
			P.cap[i] = len * 2;
			give_up("grow the image", bytes, err, now);
			return -1;
		}
		P.cap[i] = image_file_cap(P.f, i);
	}
	if (image_file_write(P.f, i, P.enc.buf, len) != 0) {
		give_up("write the image", len, errno, now);
		return -1;
	}
	return 0;
}

static int publish_section(unsigned i, uint64_t now)
{
	struct section *s = &P.s[i];
	uint64_t gen = generation(s->g);
	size_t len;

	if (s->done && s->g->sources != 0 && gen == s->gen)
		return 0;
	if (s->done && now - s->last_ns < (uint64_t)s->g->publish_min_ms * 1000000u)
		return 0;
	len = encode_group(s->g);
	if (len == 0) {
		snmp_log(LOG_ERR, "clustermond: image: cannot publish %s: out of memory\n",
			 s->g->name);
		return 0;
	}
	if (write_section(i, len, now) != 0)
		return -1;
	s->gen = gen;
	s->last_ns = now;
	s->done = true;
	return 0;
}

/* ------------------------------------------------------------ the file */

static const char *wanted_path(void)
{
	const char *p = conf_active()->snapshot_file;
	struct stat st;

	if (strcmp(p, "none") == 0)
		return NULL;
	if (p[0] != '\0')
		return p;
	/* Unset: published where the packages make room for it, if they did. */
	return stat(DEFAULT_DIR, &st) == 0 && S_ISDIR(st.st_mode) ? DEFAULT_PATH : NULL;
}

static const char *wanted_path_or_none(void)
{
	const char *p = wanted_path();

	return p != NULL ? p : "none";
}

/* A new file, committed once every section is in it (tick), so a reader
 * never finds one with sections missing. */
static void open_file(const char *path, uint64_t now)
{
	size_t bytes = 0;
	int err;

	if (now < P.retry_at)
		return;
	P.layout.stale_after_ms = 2 * (P.tick_ms > STALE_FLOOR_MS ? P.tick_ms : STALE_FLOOR_MS);
	P.f = image_file_create(path, &P.layout, P.cap, &bytes);
	if (P.f == NULL) {
		err = errno;
		if (!P.complained)
			snmp_log(LOG_ERR, "clustermond: snapshotFile %s: cannot make the image "
				 "(%zu bytes): %s; not publishing, retrying every %llu s\n", path,
				 bytes, strerror(err), RETRY_NS / 1000000000ull);
		P.complained = true;
		P.retry_at = now + RETRY_NS;
		return;
	}
	for (unsigned i = 0; i < P.layout.nsections; i++)
		P.s[i].done = false;
	P.verify_at = now + VERIFY_NS;
}

/* Another process changed the file (cut, overwrote, replaced or removed
 * it): it is left to them and a new one published. */
static void verify(uint64_t now)
{
	if (now < P.verify_at)
		return;
	P.verify_at = now + VERIFY_NS;
	if (image_file_intact(P.f))
		return;
	snmp_log(LOG_WARNING, "clustermond: snapshotFile %s: changed by another process; "
		 "publishing a new one\n", image_file_path(P.f));
	image_file_abandon(P.f);
	P.f = NULL;
	P.retry_at = 0;
}

/* Follows the configuration (SIGHUP may change or drop the path). */
static void follow_path(uint64_t now)
{
	const char *want = wanted_path();

	if (P.f != NULL && (want == NULL || strcmp(want, image_file_path(P.f)) != 0)) {
		image_file_close(P.f);
		P.f = NULL;
		P.retry_at = 0;
	}
	if (P.f == NULL && want != NULL)
		open_file(want, now);
}

static uint32_t fastest_interval(void)
{
	uint32_t ms = SOURCE_INTERVAL_MAX_MS;

	for (unsigned i = sampler_next(0); i != 0; i = sampler_next(i))
		if (sampler_interval(i) < ms)
			ms = sampler_interval(i);
	return ms < SOURCE_INTERVAL_MIN_MS ? SOURCE_INTERVAL_MIN_MS : ms;
}

static void arm(uint32_t ms);

/* Publishes what changed into a committed file, then beats. */
static void publish_all(uint64_t now, uint32_t floor)
{
	for (unsigned i = 0; i < P.layout.nsections; i++)
		if (publish_section(i, now) != 0)
			return;
	if (image_file_commit(P.f) != 0) {
		give_up("rename the image into place", 0, errno, now);
		return;
	}
	if (P.complained || !P.announced)
		snmp_log(LOG_INFO, "clustermond: publishing the image at %s\n",
			 image_file_path(P.f));
	P.complained = false;
	P.announced = true;
	if (image_file_beat(P.f, now, 2 * floor) != 0)
		give_up("write the heartbeat", 0, errno, now);
}

static void tick(unsigned reg, void *arg)
{
	uint64_t now = cm_clock_ns();
	uint32_t want = fastest_interval();
	uint32_t floor = want > STALE_FLOOR_MS ? want : STALE_FLOOR_MS;

	(void)reg, (void)arg;
	if (P.f != NULL)
		verify(now);
	follow_path(now);
	if (P.f != NULL)
		publish_all(now, floor);
	if (want != P.tick_ms)
		arm(want);
}

static void arm(uint32_t ms)
{
	struct timeval tv = { .tv_sec = ms / 1000, .tv_usec = (ms % 1000) * 1000 };

	if (P.alarm != 0)
		snmp_alarm_unregister(P.alarm);
	P.tick_ms = ms;
	P.alarm = snmp_alarm_register_hr(tv, SA_REPEAT, tick, NULL);
}

void publish_start(void)
{
	build_layout();
	for (unsigned i = 0; i < CM_IMAGE_MAX_SECTIONS; i++)
		P.cap[i] = MIN_CAP;
	P.running = true;
	arm(fastest_interval());
	tick(0, NULL);
}

void publish_stop(void)
{
	if (!P.running)
		return;
	if (P.alarm != 0)
		snmp_alarm_unregister(P.alarm);
	image_file_close(P.f);
	cm_image_enc_free(&P.enc);
	memset(&P, 0, sizeof(P));
}
