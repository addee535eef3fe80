/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * publish.c - the image of every read-only instance this agent serves,
 * published for clustermon.so inside snmpd (the fast read path).
 *
 * The image is encoded from the same group descriptors and get callbacks
 * that answer AgentX requests, so both paths serve the same instances with
 * the same types. It runs on a thread of its own (cm-publish), at the
 * fastest source's interval, so a GET through AgentX never waits behind an
 * encoding: what it reads of a published group is a snapshot (refcounted,
 * immutable), a copy taken under the group's lock, or atomics. The SNMP
 * thread only tells it, once a second, where to publish (the configuration
 * is the SNMP thread's). A group is encoded again only when one of its
 * sources sampled since. Groups with read-create tables stay with the
 * subagent: their rows change by SET.
 *
 * Reads through the module are demand (sampler.h): the module's record
 * beside the image says what it read and which sections it waits for; an
 * inotify watch wakes this thread when it is written. The header tells the
 * module per section whether its rows are held fresh, and when a section
 * it waits for holds samples taken since its wake (image/image.h).
 */
#include "encode.h"
#include "group.h"
#include "publish.h"
#include "common/clock.h"
#include "image/imagesec.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "runtime/imagefile.h"
#include "runtime/logq.h"
#include "runtime/sampler.h"

#define DEFAULT_DIR "/run/clustermon/snapshot"
#define DEFAULT_PATH DEFAULT_DIR "/image"
#define MIN_CAP (64u * 1024u)
#define RETRY_NS (5ull * 1000000000u)
/* How often the writer checks that nobody else changed its file. */
#define VERIFY_NS 1000000000ull
/* Readers stop serving after two ticks without a beat, but never sooner
 * than a second: a busy SNMP thread must not make the values vanish. */
#define STALE_FLOOR_MS 500u
/* How often we look while a reader waits for a woken section's sample;
 * after CM_IMAGE_WAIT_MAX_MS the reader has stopped waiting, and so do we. */
#define WAKE_POLL_NS 2000000ull
#define WAKE_MAX_NS ((uint64_t)CM_IMAGE_WAIT_MAX_MS * 1000000u)
#define IDLE_TICK_MS 250u
/* How often the SNMP thread passes the configured path on. */
#define FOLLOW_MS 1000u

/* Objects of a group whose tables' view generations are remembered. */
#define MAX_OBJECTS 32

struct section {
	const struct mib_group *g;
	unsigned demand;    /* the sources its objects need (mib_group_demand) */
	uint64_t reads;     /* the reader's count of requests it answered from it */
	uint64_t wake_seen; /* the reader's last wake of it */
	uint64_t woke_ns;   /* when we took a wake not answered yet; 0: none */
	uint64_t fresh_ns;  /* the last wake answered (image/image.h) */
	bool heard;         /* read since it was last told */
	struct cm_isec b;   /* the section's data, kept up to date by change */
	/* each table's view generation the section holds (0: none known) */
	uint64_t since[MAX_OBJECTS];
	uint64_t gen;
	uint64_t last_ns;
	bool done;          /* in this file */
};

static struct {
	struct image_file *f;
	struct cm_image_header layout;
	struct section s[CM_IMAGE_MAX_SECTIONS];
	struct cm_image_enc enc;            /* one unit's entries at a time */
	size_t cap[CM_IMAGE_MAX_SECTIONS];  /* room each section last needed */
	uint32_t tick_ms;
	uint64_t retry_at, verify_at;
	uint64_t beat_ns;                   /* the last heartbeat stored; 0: a new file */
	bool complained, announced;
	char path[PATH_MAX];                /* the publisher's: where it publishes */
	int demand_fd;                      /* the image's demand file, or -1 */
	int watch;                          /* an inotify watch on it, or -1 */
	bool asked;                         /* the watch fired: read it */
	char demand_of[PATH_MAX];           /* the image it was opened for */
	/* Sources that slept and have not sampled since (their samples then):
	 * what a section of theirs holds may be older than an interval. */
	bool stale[SOURCE_LAST + 1];
	uint64_t idle_at[SOURCE_LAST + 1];
	int kick;                           /* eventfd: publish_stop wakes us */
	/* Shared with the SNMP thread, under lock. */
	pthread_mutex_t lock;
	char want[PATH_MAX];                /* "" for none */
	bool stop, running;
	pthread_t thread;
	unsigned alarm;                     /* the SNMP thread's FOLLOW_MS timer */
} P = { .lock = PTHREAD_MUTEX_INITIALIZER, .demand_fd = -1, .watch = -1, .kick = -1 };

static void close_demand(void);

/* ------------------------------------------------------------ layout */

static void add_reg(uint32_t kind, const struct mib_group *g, const uint32_t *tail,
		    size_t tail_len, unsigned min_col, unsigned max_col, uint32_t flags)
{
	struct cm_image_reg *r;

	if (P.layout.nregs == CM_IMAGE_MAX_REGS || g->base_len + tail_len > CM_IMAGE_MAX_OID) {
		logq_printf(LOG_WARNING, "clustermond: image: too many objects; some stay AgentX-only");
		return;
	}
	r = &P.layout.reg[P.layout.nregs++];
	r->kind = kind;
	r->flags = flags;
	r->min_col = min_col;
	r->max_col = max_col;
	r->len = (uint32_t)(g->base_len + tail_len);
	for (size_t i = 0; i < g->base_len; i++)
		r->oid[i] = (uint32_t)g->base[i];
	memcpy(r->oid + g->base_len, tail, tail_len * sizeof(uint32_t));
}

/* Reading the object wakes no source (MIB_DEMAND_NONE), now and always:
 * CM_REG_QUIET. One whose group's needs change (demand_now) is not: the
 * section's demand, taken at each step, says what its reads wake. */
static uint32_t reg_flags(const struct mib_group *g, const struct mib_object *o)
{
	oid name[MAX_OID_LEN];

	if (g->base_len >= MAX_OID_LEN || (o->demand == 0 && g->demand_now != NULL))
		return 0;
	memcpy(name, g->base, g->base_len * sizeof(oid));
	name[g->base_len] = o->arc;
	return mib_demand_of(g, name, g->base_len + 1) == 0 ? CM_REG_QUIET : 0;
}

/* The read-only objects of a group as subtrees a reader may register. */
static void add_regs(const struct mib_group *g)
{
	for (size_t i = 0; i < g->nobjects; i++) {
		const struct mib_object *o = &g->objects[i];
		const struct mib_table *t = o->table;
		uint32_t tail[3] = { o->arc, 1, 0 }, flags = reg_flags(g, o);

		if (t != NULL && t->read_create)
			continue;
		if (t == NULL) {
			if (o->setter == NULL)
				add_reg(CM_REG_SCALAR, g, tail, 1, 0, 0, flags);
		} else if (t->writable_col == 0) {
			add_reg(CM_REG_TABLE, g, tail, 1, t->min_col, t->max_col, flags);
		} else {
			for (unsigned c = t->min_col; c <= t->max_col; c++) {
				tail[2] = c;
				if (c != t->writable_col)
					add_reg(CM_REG_COLUMN, g, tail, 3, 0, 0, flags);
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

		/* A group with read-create tables is published (the rest of
		 * it) only when it says which sources change that rest. */
		if ((g->set_request != NULL && mib_group_sources(g) == 0) ||
		    P.layout.nsections == CM_IMAGE_MAX_SECTIONS || g->base_len > CM_IMAGE_MAX_OID)
			continue;
		s->base_len = (uint32_t)g->base_len;
		for (size_t k = 0; k < g->base_len; k++)
			s->base[k] = (uint32_t)g->base[k];
		P.s[P.layout.nsections] = (struct section){ .g = g, .demand = mib_group_demand(g) };
		P.layout.nsections++;
		add_regs(g);
	}
}

/* ------------------------------------------------------------ encoding */

/* The group's read-only instances into its section (encode.h). */
static size_t encode_group(struct section *sec)
{
	size_t len = group_encode(sec->g, &sec->b, &P.enc, sec->since, MAX_OBJECTS);

	if (len == 0) /* made again from nothing: nothing is known */
		memset(sec->since, 0, sizeof(sec->since));
	return len;
}

/* Samples taken by the group's sources: it changes when they do. */
static uint64_t generation(const struct mib_group *g)
{
	struct source_stats st;
	uint64_t gen = 0;

	if (g->generation != NULL)
		return g->generation();
	for (unsigned i = 1; i <= SOURCE_LAST; i++)
		if ((mib_group_sources(g) & (1u << i)) && sampler_stats(i, &st) == 0)
			gen += st.samples;
	return gen;
}

/* Stops publishing after a failure: one line names the path, the size
 * and the reason; the file goes (readers step aside, as when clustermond
 * is gone) and a new one is tried after RETRY_NS. */
static void give_up(const char *what, size_t bytes, int err, uint64_t now)
{
	if (!P.complained)
		logq_printf(LOG_ERR, "clustermond: snapshotFile %s: cannot %s (%zu bytes): %s; "
			    "not publishing, retrying every %llu s",
			    P.f != NULL ? image_file_path(P.f) : P.path[0] ? P.path : "none", what, bytes,
			    strerror(err), RETRY_NS / 1000000000ull);
	P.complained = true;
	P.retry_at = now + RETRY_NS;
	image_file_close(P.f);
	P.f = NULL;
}

/* Writes the changed chunks of section i, into a bigger file (all of
 * them) when it outgrew its room. */
static int write_section(unsigned i, size_t len, uint64_t now)
{
	struct cm_isec *b = &P.s[i].b;
	size_t bytes = 0;
	int err;

	if (len > image_file_cap(P.f, i)) {
		if (image_file_grow(&P.f, i, len, &bytes) != 0) {
			err = errno;
			P.cap[i] = len + len / 8;
			give_up("grow the image", bytes, err, now);
			return -1;
		}
		P.cap[i] = image_file_cap(P.f, i);
		P.beat_ns = 0;
		cm_isec_mark_all(b, true);
	}
	if (image_file_write(P.f, i, b->data, len, b->dirty) != 0) {
		give_up("write the image", len, errno, now);
		return -1;
	}
	cm_isec_mark_all(b, false);
	return 0;
}

/* The section again when its sources sampled since (and publish_min_ms
 * passed, unless a reader waits for it). */
static int publish_section(unsigned i, uint64_t now, bool waited_for)
{
	struct section *s = &P.s[i];
	uint64_t gen = generation(s->g);
	size_t len;

	if (s->done && (mib_group_sources(s->g) != 0 || s->g->generation != NULL) && gen == s->gen)
		return 0;
	if (s->done && !waited_for &&
	    now - s->last_ns < (uint64_t)s->g->publish_min_ms * 1000000u)
		return 0;
	len = encode_group(s);
	if (!s->done) /* a new file: every chunk goes */
		cm_isec_mark_all(&s->b, true);
	if (len == 0) {
		logq_printf(LOG_ERR, "clustermond: image: cannot publish %s: out of memory",
			    s->g->name);
		/* Half-changed: made again from nothing next time. */
		cm_isec_free(&s->b);
		s->done = false;
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

/* snapshotFile as the last (re)load set it; only the SNMP thread uses it. */
static char configured[PATH_MAX];

void publish_configure(const char *image_path)
{
	snprintf(configured, sizeof(configured), "%s", image_path);
}

/* The configured path, or NULL; on the SNMP thread. */
static const char *wanted_path(void)
{
	const char *p = configured;
	struct stat st;

	if (strcmp(p, "none") == 0)
		return NULL;
	if (p[0] != '\0')
		return p;
	/* Unset: published where the packages make room for it, if they did. */
	return stat(DEFAULT_DIR, &st) == 0 && S_ISDIR(st.st_mode) ? DEFAULT_PATH : NULL;
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
			logq_printf(LOG_ERR, "clustermond: snapshotFile %s: cannot make the image "
				    "(%zu bytes): %s; not publishing, retrying every %llu s", path,
				    bytes, strerror(err), RETRY_NS / 1000000000ull);
		P.complained = true;
		P.retry_at = now + RETRY_NS;
		return;
	}
	for (unsigned i = 0; i < P.layout.nsections; i++)
		P.s[i].done = false;
	P.beat_ns = 0;
	P.verify_at = now + VERIFY_NS;
}

/* Another process changed the file (cut, overwrote, replaced or removed
 * it): it is left to them and a new one published. */
static void verify(uint64_t now)
{
	if (now < P.verify_at)
		return;
	P.verify_at = now + VERIFY_NS;
	/* Removed or replaced, the demand file is made again (its watch
	 * would hear nothing more). */
	if (P.demand_fd >= 0 && !image_demand_same(P.demand_fd, P.demand_of))
		close_demand();
	if (image_file_intact(P.f))
		return;
	logq_printf(LOG_WARNING, "clustermond: snapshotFile %s: changed by another process; "
		    "publishing a new one", image_file_path(P.f));
	image_file_abandon(P.f);
	P.f = NULL;
	P.retry_at = 0;
}

/* Follows the configuration (SIGHUP may change or drop the path) as the
 * SNMP thread last passed it on. */
static void follow_path(uint64_t now)
{
	const char *want;

	pthread_mutex_lock(&P.lock);
	memcpy(P.path, P.want, sizeof(P.path));
	pthread_mutex_unlock(&P.lock);
	want = P.path[0] != '\0' ? P.path : NULL;
	if (P.f != NULL && (want == NULL || strcmp(want, image_file_path(P.f)) != 0)) {
		image_file_close(P.f);
		P.f = NULL;
		P.retry_at = 0;
	}
	if (P.f == NULL && want != NULL)
		open_file(want, now);
}

/* The fastest source that samples; IDLE_TICK_MS while every one sleeps
 * (the heartbeat, which readers wait for two ticks and at least a second,
 * still needs a tick; and the demand file one when it has no watch). */
static uint32_t fastest_interval(void)
{
	uint32_t ms = IDLE_TICK_MS;
	struct source_stats st;

	for (unsigned i = sampler_next(0); i != 0; i = sampler_next(i))
		if (sampler_stats(i, &st) == 0 && st.state != SOURCE_STATE_IDLE &&
		    st.interval_ms < ms)
			ms = st.interval_ms;
	return ms < SOURCE_INTERVAL_MIN_MS ? SOURCE_INTERVAL_MIN_MS : ms;
}

/* ------------------------------------------------------------ demand */

/* Which sources slept, or let a deadline pass unread, and have not
 * sampled since, as seen from here. */
static void observe_sources(void)
{
	struct source_stats st;

	for (unsigned i = sampler_next(0); i != 0; i = sampler_next(i)) {
		if (sampler_stats(i, &st) != 0)
			continue;
		if (st.state == SOURCE_STATE_IDLE || st.stale) {
			P.stale[i] = true;
			P.idle_at[i] = st.samples;
		} else if (P.stale[i] && st.samples != P.idle_at[i]) {
			P.stale[i] = false;
		}
	}
}

static bool stale(unsigned demand)
{
	for (unsigned i = 1; i <= SOURCE_LAST; i++)
		if ((demand & (1u << i)) && P.stale[i])
			return true;
	return false;
}

/* The reader read the section or waits for it: a read of its sources
 * (sampler_demand), which buys each its next sample. Those that slept or
 * let a deadline pass unread, and those whose deadline is due (the
 * sampler's thread is about to take the sample this read bought), are
 * stale until they sampled. */
static void hold(struct section *s, uint64_t now)
{
	uint64_t before[SOURCE_LAST + 1] = { 0 };
	unsigned woken = 0;

	for (unsigned i = 1; i <= SOURCE_LAST; i++)
		if (s->demand & (1u << i)) {
			before[i] = sampler_samples(i);
			if (sampler_fresh_until(1u << i) <= now)
				woken |= 1u << i;
		}
	woken |= sampler_demand(s->demand, 0);
	for (unsigned i = 1; i <= SOURCE_LAST; i++)
		if ((woken & (1u << i)) && !P.stale[i]) {
			P.stale[i] = true;
			P.idle_at[i] = before[i];
		}
	s->heard = true;
}

static void close_demand(void)
{
	if (P.demand_fd >= 0)
		close(P.demand_fd);
	if (P.watch >= 0)
		close(P.watch);
	P.demand_fd = P.watch = -1;
}

/* The demand file of the image we publish, and a watch on it (without
 * one, it is read at every tick). */
static void open_demand(void)
{
	const char *path = image_file_path(P.f);

	if (P.demand_fd >= 0 && strcmp(P.demand_of, path) == 0)
		return;
	close_demand();
	P.demand_fd = image_demand_open(path);
	if (P.demand_fd >= 0)
		P.watch = image_demand_watch(path);
	snprintf(P.demand_of, sizeof(P.demand_of), "%s", path);
	P.asked = true; /* written before the watch began */
}

/*
 * What the fast path read is demand like any AgentX read: a section whose
 * count moved holds its sources sampling. A wake (the reader waits for a
 * section it found not held) is answered once its sources sampled and the
 * section holds their samples (publish_sections).
 */
static void follow_reader(uint64_t now)
{
	struct cm_image_demand d;

	open_demand();
	if (P.watch >= 0 && !P.asked)
		return;
	P.asked = false;
	if (P.demand_fd < 0 || image_demand_read(P.demand_fd, &d) != 0)
		return;
	for (unsigned i = 0; i < P.layout.nsections; i++) {
		struct section *s = &P.s[i];
		bool read = d.reads[i] != s->reads, wake = d.wake_ns[i] != s->wake_seen;

		s->reads = d.reads[i];
		s->wake_seen = d.wake_ns[i];
		if (s->demand == 0 || !(read || wake))
			continue;
		hold(s, now);
		if (wake)
			s->woke_ns = now;
	}
}

/* Tells readers whether section i is held (image/image.h). */
static int tell(unsigned i, uint64_t now)
{
	struct section *s = &P.s[i];
	uint32_t flags = 0;
	uint64_t held = s->demand != 0 ? sampler_fresh_until(s->demand) : UINT64_MAX;

	if (held != UINT64_MAX) {
		flags = stale(s->demand) || held == 0 ? CM_SEC_ASLEEP : 0;
		held = flags != 0 || s->woke_ns != 0 ? 0 : held;
	}
	s->heard = false;
	if (image_file_state(P.f, i, flags, held, s->fresh_ns) == 0)
		return 0;
	give_up("write a section's state", 0, errno, now);
	return -1;
}

/* A wake waits for section i: answered (fresh_ns) once no source of it is
 * stale and its encoding holds their samples; dropped once its reader
 * stopped waiting. */
static int answer_wake(unsigned i, uint64_t now)
{
	struct section *s = &P.s[i];
	uint64_t gen;

	if (now - s->woke_ns > WAKE_MAX_NS) {
		s->woke_ns = 0;
		return 0;
	}
	if (stale(s->demand))
		return 0;
	gen = generation(s->g);
	if (publish_section(i, now, true) != 0)
		return -1;
	if (s->done && s->gen >= gen) {
		s->fresh_ns = s->woke_ns;
		s->woke_ns = 0;
	}
	return 0;
}

/* Publishes the sections (all of them on the tick, else only those a
 * wake waits for) and tells readers which are held. */
static int publish_sections(uint64_t now, bool all)
{
	/* A group's needs may change (mib_group.demand_now). */
	for (unsigned i = 0; i < P.layout.nsections; i++)
		P.s[i].demand = mib_group_demand(P.s[i].g);
	observe_sources();
	follow_reader(now);
	for (unsigned i = 0; i < P.layout.nsections; i++) {
		struct section *s = &P.s[i];
		bool waits = s->woke_ns != 0;

		if (waits && answer_wake(i, now) != 0)
			return -1;
		if (all && publish_section(i, now, false) != 0)
			return -1;
		if ((all || waits || s->heard || stale(s->demand)) && tell(i, now) != 0)
			return -1;
	}
	return 0;
}

/* A wake waits for its sources' samples. */
static bool waking(void)
{
	for (unsigned i = 0; i < P.layout.nsections; i++)
		if (P.s[i].woke_ns != 0)
			return true;
	return false;
}

/* Publishes what changed into a committed file, then beats. */
static void publish_all(uint64_t now, uint32_t floor)
{
	if (publish_sections(now, true) != 0 || P.f == NULL)
		return;
	if (image_file_commit(P.f) != 0) {
		give_up("rename the image into place", 0, errno, now);
		return;
	}
	if (P.complained || !P.announced)
		logq_printf(LOG_INFO, "clustermond: publishing the image at %s",
			    image_file_path(P.f));
	P.complained = false;
	P.announced = true;
	/* Readers stop serving after 2 * floor without a beat: a beat every
	 * eighth of that keeps them well inside it, without a store a tick. */
	if (P.beat_ns != 0 && now - P.beat_ns < (uint64_t)floor * 1000000u / 4)
		return;
	if (image_file_beat(P.f, now, 2 * floor) != 0)
		give_up("write the heartbeat", 0, errno, now);
	P.beat_ns = now;
}

static void tick(uint64_t now)
{
	uint32_t floor;

	P.tick_ms = fastest_interval();
	floor = P.tick_ms > STALE_FLOOR_MS ? P.tick_ms : STALE_FLOOR_MS;
	if (P.f != NULL)
		verify(now);
	follow_path(now);
	if (P.f != NULL)
		publish_all(now, floor);
}

/* Sleeps until deadline (cm_clock_ns), the reader's record is written,
 * or publish_stop; false on stop. */
static bool sleep_until(uint64_t deadline)
{
	struct pollfd fds[2] = { { .fd = P.kick, .events = POLLIN },
				 { .fd = P.watch, .events = POLLIN } };
	uint64_t now = cm_clock_ns(), left = deadline > now ? deadline - now : 0;
	struct timespec ts = { .tv_sec = (time_t)(left / 1000000000u),
			       .tv_nsec = (long)(left % 1000000000u) };
	bool stop;

	if (ppoll(fds, 2, &ts, NULL) > 0 && (fds[1].revents & POLLIN))
		P.asked |= image_demand_drain(P.watch);
	pthread_mutex_lock(&P.lock);
	stop = P.stop;
	pthread_mutex_unlock(&P.lock);
	return !stop;
}

/* cm-publish: a tick at the fastest source's interval, on a fixed grid so
 * the rate does not drift (a late tick is not made up for); between ticks,
 * at once when the reader's record is written, and every WAKE_POLL_NS
 * while a wake waits for its samples, only what a wake needs. */
static void *publisher(void *arg)
{
	uint64_t due = cm_clock_ns(), until;

	(void)arg;
	do {
		uint64_t now = cm_clock_ns();

		if (now >= due) {
			tick(now);
			due += (uint64_t)P.tick_ms * 1000000u;
			now = cm_clock_ns();
			if (due < now)
				due = now;
		} else if (P.f != NULL) {
			publish_sections(now, false);
		}
		until = waking() && now + WAKE_POLL_NS < due ? now + WAKE_POLL_NS : due;
	} while (sleep_until(until));
	return NULL;
}

/* On the SNMP thread: the path the configuration names now. */
static void pass_path(unsigned reg, void *arg)
{
	const char *want = wanted_path();

	(void)reg, (void)arg;
	pthread_mutex_lock(&P.lock);
	snprintf(P.want, sizeof(P.want), "%s", want != NULL ? want : "");
	pthread_mutex_unlock(&P.lock);
}

static int start_thread(void)
{
	sigset_t all, old;
	int rc;

	P.kick = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (P.kick < 0)
		return errno;
	/* Signals belong to the SNMP thread, whose loop handles them. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	rc = pthread_create(&P.thread, NULL, publisher, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0) {
		close(P.kick);
		P.kick = -1;
		return rc;
	}
	pthread_setname_np(P.thread, "cm-publish");
	return 0;
}

void publish_start(void)
{
	struct timeval tv = { .tv_sec = FOLLOW_MS / 1000, .tv_usec = (FOLLOW_MS % 1000) * 1000 };
	int rc;

	build_layout();
	for (unsigned i = 0; i < CM_IMAGE_MAX_SECTIONS; i++)
		P.cap[i] = MIN_CAP;
	P.stop = false;
	pass_path(0, NULL);
	rc = start_thread();
	if (rc != 0) {
		snmp_log(LOG_ERR, "clustermond: image: cannot start the publisher thread: %s; "
			 "not publishing\n", strerror(rc));
		return;
	}
	P.running = true;
	P.alarm = snmp_alarm_register_hr(tv, SA_REPEAT, pass_path, NULL);
}

void publish_stop(void)
{
	if (!P.running)
		return;
	if (P.alarm != 0)
		snmp_alarm_unregister(P.alarm);
	pthread_mutex_lock(&P.lock);
	P.stop = true;
	pthread_mutex_unlock(&P.lock);
	if (eventfd_write(P.kick, 1) != 0) {
		/* cannot fail below the counter's limit */
	}
	pthread_join(P.thread, NULL);
	close(P.kick);
	image_file_close(P.f);
	close_demand();
	cm_image_enc_free(&P.enc);
	for (unsigned i = 0; i < CM_IMAGE_MAX_SECTIONS; i++)
		cm_isec_free(&P.s[i].b);
	memset(&P, 0, sizeof(P));
	P.demand_fd = P.watch = P.kick = -1;
	pthread_mutex_init(&P.lock, NULL);
}
