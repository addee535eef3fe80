/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_sampler_entrance.c - the one way into a source: sampler_configure
 * and sampler_post. A fake source records what ran, in which order and on
 * which thread: before sampler_start both run at once in the caller; once
 * started they run on the source's own thread, oldest first, before a
 * sample taken at once (the interval is an hour, so only the wake-up can
 * explain it), never in the caller; a source without a command op refuses
 * commands. Waits are for events, with a 10 s limit, never judgments of
 * time.
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <time.h>

#include "runtime/sampler.h"
#include "sources/source_cmd.h"
#include "sources/sources.h"
#include "tap.h"

#define LOG_MAX 32

static struct {
	pthread_mutex_t lock;
	pthread_cond_t changed;
	char what[LOG_MAX];         /* 'c' configure, 'x' command, 's' sample */
	pthread_t who[LOG_MAX];
	uint32_t arg[LOG_MAX];      /* the configure's interval or command's top */
	unsigned n;
} L = { .lock = PTHREAD_MUTEX_INITIALIZER, .changed = PTHREAD_COND_INITIALIZER };

static void record(char what, uint32_t arg)
{
	pthread_mutex_lock(&L.lock);
	if (L.n < LOG_MAX) {
		L.what[L.n] = what;
		L.who[L.n] = pthread_self();
		L.arg[L.n] = arg;
		L.n++;
	}
	pthread_cond_broadcast(&L.changed);
	pthread_mutex_unlock(&L.lock);
}

/* Until the log holds n entries or 10 s passed: the count then. */
static unsigned wait_log(unsigned n)
{
	struct timespec until;
	unsigned got;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 10;
	pthread_mutex_lock(&L.lock);
	while (L.n < n && pthread_cond_timedwait(&L.changed, &L.lock, &until) == 0)
		;
	got = L.n;
	pthread_mutex_unlock(&L.lock);
	return got;
}

static int token;

static void *fake_init(const char *root)
{
	(void)root;
	return &token;
}

/* The sample lingers after it is logged: a configuration posted as soon
 * as the log shows it lands while the sample finishes, the moment when a
 * wake-up could be lost to the deadline the sample sets. */
static int fake_sample(void *ctx)
{
	const struct timespec linger = { .tv_nsec = 2000000 };

	(void)ctx;
	record('s', 0);
	nanosleep(&linger, NULL);
	return 0;
}

static void fake_fini(void *ctx)
{
	(void)ctx;
}

static void fake_configure(void *ctx, const struct sources_conf *c)
{
	(void)ctx;
	record('c', c->proc_filter.top);
}

static void fake_command(void *ctx, const struct source_cmd *cmd)
{
	(void)ctx;
	record('x', cmd->proc_filter.top);
}

static const struct source_ops fake_ops = {
	.index = SOURCE_PROC, .name = "fake", .default_interval_ms = SOURCE_INTERVAL_MAX_MS,
	.own_thread = true, .pinned = true,
	.init = fake_init, .sample = fake_sample, .fini = fake_fini,
	.configure = fake_configure, .command = fake_command,
};

/* No command op: commands are refused. */
static const struct source_ops plain_ops = {
	.index = SOURCE_CPU, .name = "plain", .default_interval_ms = SOURCE_INTERVAL_MAX_MS, .pinned = true,
	.init = fake_init, .sample = fake_sample, .fini = fake_fini,
};

static void post_top(uint32_t top)
{
	struct source_cmd cmd = { .kind = SOURCE_CMD_PROC_FILTER };

	cmd.proc_filter.top = top;
	ok(sampler_post(SOURCE_PROC, &cmd, sizeof(cmd)) == 0, "command %u is queued", top);
}

static void before_start(void)
{
	struct sources_conf c = { .proc_filter = { .top = 7 } };
	struct source_cmd cmd = { .kind = SOURCE_CMD_PROC_FILTER };

	c.interval_ms[SOURCE_PROC] = 5000;
	sampler_configure(&c);
	ok(L.n == 1 && L.what[0] == 'c' && L.arg[0] == 7 &&
	   pthread_equal(L.who[0], pthread_self()),
	   "before the start a configuration runs at once, in the caller");
	ok(sampler_interval(SOURCE_PROC) == 5000, "and sets the interval it names");
	errno = 0;
	ok(sampler_post(SOURCE_CPU, &cmd, sizeof(cmd)) == -1 && errno == ENOENT,
	   "a source without a command op refuses commands (ENOENT)");
	ok(sampler_post(SOURCE_TCP, &cmd, sizeof(cmd)) == -1 && errno == ENOENT,
	   "so does a source that was never added");
	c.interval_ms[SOURCE_PROC] = 0;
	c.proc_filter.top = 8;
	sampler_configure(&c);
	ok(sampler_interval(SOURCE_PROC) == SOURCE_INTERVAL_MAX_MS,
	   "an interval of 0 is the source's default");
}

int main(void)
{
	pthread_t main_thread = pthread_self();
	unsigned n;
	bool off_main = true;

	plan(17);
	ok(sampler_add(&fake_ops, "") == 0 &&
	   sampler_add(&plain_ops, "") == 0, "two fake sources are added");
	before_start();
	ok(sampler_start() == 0, "the sampler starts");
	n = wait_log(4);
	ok(n == 4 && L.what[3] == 's', "with one sample of each source (log %.*s)", (int)n,
	   L.what);
	post_top(1);
	post_top(2);
	/* The thread may take the first before the second is queued: xxs or xsxs. */
	n = wait_log(7);
	if (n == 7 && L.what[6] == 'x')
		n = wait_log(8);
	ok((n == 7 && memcmp(L.what + 4, "xxs", 3) == 0) ||
	   (n == 8 && memcmp(L.what + 4, "xsxs", 4) == 0),
	   "the commands ran, each before a sample taken at once (an hour early): %.*s",
	   (int)(n - 4), L.what + 4);
	ok(L.arg[4] == 1 && L.arg[n == 7 ? 5 : 6] == 2, "oldest first");
	for (unsigned i = 4; i < n; i++)
		off_main = off_main && !pthread_equal(L.who[i], main_thread);
	ok(off_main, "all of it on the source's thread, none on the caller's");
	{
		struct sources_conf c = { .proc_filter = { .top = 9 } };
		unsigned base = n;

		sampler_configure(&c);
		n = wait_log(base + 2);
		ok(n == base + 2 && L.what[base] == 'c' && L.arg[base] == 9 &&
		   !pthread_equal(L.who[base], main_thread),
		   "a reload's configuration runs there too");
		ok(n == base + 2 && L.what[base + 1] == 's', "followed by a sample");
	}
	sampler_stop();
	ok(!sampler_has(SOURCE_PROC), "after the stop the source is gone");
	{
		struct source_cmd cmd = { .kind = SOURCE_CMD_PROC_FILTER };

		ok(sampler_post(SOURCE_PROC, &cmd, sizeof(cmd)) == -1 && errno == ENOENT,
		   "and takes no more commands");
	}
	return done_testing();
}
