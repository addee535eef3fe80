/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_probes_source.c - the probes source's sample path against a fake
 * clustermon-kprobe on a Unix socket (a thread here speaking protocol 1 as
 * collect/helper.c expects it): a wanted row is added, its counts read,
 * counts the helper restarts at zero (re-attach, a new helper instance) never
 * make what we serve go back, an unwanted probe is deleted, an "err" answer
 * is reported as the row's error, and a helper that goes away is noticed.
 */
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "sources/probes.h"
#include "sources/source_cmd.h"
#include "sources/sources.h"
#include "tap.h"

static char dir[] = "/tmp/cm-probesrc-XXXXXX";
static char sock_path[64];

/* The fake helper's state, under lock. */
static struct {
	pthread_mutex_t lock;
	int listener;
	bool stop;
	char instance[32];
	bool listed;            /* probe 3 attached */
	char line[128];
	uint64_t hits;
	const char *refuse;     /* answer to "add": NULL = "ok attached" */
	char log[4096];         /* add and del requests, in order */
} H = { .lock = PTHREAD_MUTEX_INITIALIZER, .instance = "i1" };

static void poll_reply(char *out, size_t len)
{
	int n = snprintf(out, len, "ok clustermon-kprobe 1 %s\n", H.instance);

	if (H.listed)
		snprintf(out + n, len - (size_t)n, "ok 1\nprobe 3 %s\nok 1\nprobe 3 %llu %llu 0 2 %llu 0\n",
			 H.line, (unsigned long long)H.hits, (unsigned long long)H.hits,
			 (unsigned long long)H.hits);
	else
		snprintf(out + n, len - (size_t)n, "ok 0\nok 0\n");
}

/* One request to its end (the client shuts down its side), one answer. */
static void serve(int fd)
{
	char req[1024], reply[1024];
	size_t len = 0;
	ssize_t n;

	while (len + 1 < sizeof(req) && (n = read(fd, req + len, sizeof(req) - 1 - len)) > 0)
		len += (size_t)n;
	req[len] = '\0';
	pthread_mutex_lock(&H.lock);
	if (strncmp(req, "hello\n", 6) == 0) {
		poll_reply(reply, sizeof(reply));
	} else if (strncmp(req, "add 3 ", 6) == 0) {
		strncat(H.log, req, sizeof(H.log) - strlen(H.log) - 1);
		if (H.refuse == NULL) {
			H.listed = true;
			H.hits = 0;
			snprintf(H.line, sizeof(H.line), "%.*s", (int)strcspn(req + 6, "\n"), req + 6);
		}
		snprintf(reply, sizeof(reply), "%s\n", H.refuse ? H.refuse : "ok attached");
	} else if (strncmp(req, "del 3\n", 6) == 0) {
		strncat(H.log, req, sizeof(H.log) - strlen(H.log) - 1);
		H.listed = false;
		snprintf(reply, sizeof(reply), "ok\n");
	} else {
		snprintf(reply, sizeof(reply), "err failed unknown request\n");
	}
	pthread_mutex_unlock(&H.lock);
	if (write(fd, reply, strlen(reply)) < 0)
		perror("fake helper write");
}

static void *fake_helper(void *arg)
{
	(void)arg;
	for (;;) {
		struct pollfd p = { .fd = H.listener, .events = POLLIN };
		bool stop;
		int fd;

		pthread_mutex_lock(&H.lock);
		stop = H.stop;
		pthread_mutex_unlock(&H.lock);
		if (stop)
			return NULL;
		if (poll(&p, 1, 20) <= 0 || (fd = accept(H.listener, NULL, NULL)) < 0)
			continue;
		serve(fd);
		close(fd);
	}
}

static void *source;   /* the source's ctx */

static struct probes_view *sample_view(int want_rc)
{
	ok(probes_source_ops.sample(source) == want_rc, "sample returns %d", want_rc);
	return probes_view_take();
}

/* clusterMonHelperStatus's path: the state in the source's snapshot. */
static int published_state(void)
{
	struct snapshot *s = snapshot_acquire(probes_source_ops.slot);
	int state = s != NULL ? ((struct probes_snapshot *)s)->helper : 0;

	snapshot_release(probes_source_ops.slot, s);
	return state;
}

static uint64_t hits_now(void)
{
	struct probes_view *v = sample_view(0);
	uint64_t h = v->n == 1 ? v->rows[0].hits : UINT64_MAX;

	probes_view_free(v);
	return h;
}

static void set_helper(const char *instance, uint64_t hits)
{
	pthread_mutex_lock(&H.lock);
	if (instance != NULL)
		snprintf(H.instance, sizeof(H.instance), "%s", instance);
	H.hits = hits;
	pthread_mutex_unlock(&H.lock);
}

static void counts(void)
{
	set_helper(NULL, 100);
	is_u64(hits_now(), 100, "the helper's count is served");
	set_helper(NULL, 150);
	is_u64(hits_now(), 150, "and follows it forward");
	set_helper(NULL, 20);
	is_u64(hits_now(), 170, "a count restarted at zero adds in full: 150 + 20");
	set_helper("i2", 5);
	is_u64(hits_now(), 175, "a new helper instance: its 5 add to 170");
}

/* What the sampler does on the source's thread for a (re)load naming our
 * socket, and for a probe-table change on the SNMP thread. */
static void configure_socket(void *ctx)
{
	static struct sources_conf c;

	snprintf(c.helper_socket, sizeof(c.helper_socket), "%s", sock_path);
	probes_source_ops.configure(ctx, &c);
}

static void want(void *ctx, const struct probe_want *rows, size_t n)
{
	struct source_cmd *cmd = calloc(1, sizeof(*cmd) + n * sizeof(cmd->rows[0]));

	if (cmd == NULL)
		abort();
	cmd->kind = SOURCE_CMD_PROBE_ROWS;
	cmd->nrows = n;
	for (size_t i = 0; i < n; i++)
		cmd->rows[i].probe = rows[i];
	probes_source_ops.command(ctx, cmd);
	free(cmd);
}

int main(void)
{
	struct probe_want row = { .id = 3, .active = true };
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	struct probes_view *v;
	pthread_t t;
	void *ctx;

	char why[128];

	if (spec_parse("tracepoint:a:b", &row.spec, why, sizeof(why)) != 0)
		return fprintf(stderr, "%s\n", why), 1;
	filter_default(&row.filter);
	row.filter.tgid = 5;
	if (mkdtemp(dir) == NULL)
		return perror("mkdtemp"), 1;
	snprintf(sock_path, sizeof(sock_path), "%s/kprobe.sock", dir);
	ctx = source = probes_source_ops.init("");
	ok(ctx != NULL, "init");
	configure_socket(ctx);
	v = sample_view(0);
	ok(v->helper != HELPER_RUNNING && v->n == 0, "no helper: not running, not an error");
	ok(published_state() == HELPER_ABSENT, "the snapshot says absent");
	probes_view_free(v);

	snprintf(a.sun_path, sizeof(a.sun_path), "%s", sock_path);
	H.listener = socket(AF_UNIX, SOCK_STREAM, 0);
	if (bind(H.listener, (struct sockaddr *)&a, sizeof(a)) != 0 || listen(H.listener, 8) != 0 ||
	    pthread_create(&t, NULL, fake_helper, NULL) != 0)
		return perror("fake helper"), 1;

	want(ctx, &row, 1);
	v = probes_view_take();
	ok(v != NULL && v->n == 1 && v->rows[0].oper == OPER_DOWN,
	   "a command is published at once: the new row is there, down, before a sample");
	probes_view_free(v);
	v = sample_view(0);
	ok(v->helper == HELPER_RUNNING && v->n == 1 && v->rows[0].oper == OPER_UP,
	   "a wanted row is attached in the same sample and is up");
	ok(published_state() == HELPER_RUNNING, "the snapshot says running");
	ok(strstr(H.log, "add 3 tracepoint:a:b pid=5\n") != NULL, "with the row's canonical line");
	probes_view_free(v);
	counts();

	want(ctx, NULL, 0);
	probes_view_free(sample_view(0));
	ok(strstr(H.log, "del 3\n") != NULL && !H.listed, "a probe no row wants is deleted");

	H.refuse = "err unsupported no such tracepoint";
	want(ctx, &row, 1);
	v = sample_view(0);
	ok(v->n == 1 && v->rows[0].oper == OPER_UNSUPPORTED &&
	   strcmp(v->rows[0].error, "no such tracepoint") == 0,
	   "a refused add: OperStatus unsupported, the helper's reason as LastError");
	probes_view_free(v);

	pthread_mutex_lock(&H.lock);
	H.stop = true;
	pthread_mutex_unlock(&H.lock);
	pthread_join(t, NULL);
	close(H.listener);
	unlink(sock_path);
	v = sample_view(-1);
	ok(v->helper == HELPER_FAILED, "a helper that was running and went away: failed");
	ok(published_state() == HELPER_FAILED, "the snapshot says failed");
	probes_view_free(v);
	probes_source_ops.fini(ctx);
	snapshot_clear(probes_source_ops.slot);
	rmdir(dir);
	return done_testing();
}
