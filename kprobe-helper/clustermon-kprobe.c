/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * clustermon-kprobe - the one privileged part of clustermon: loads the BPF
 * sensors and run-time probes and answers a unix control socket (wire.h),
 * so the subagent reads kernel event counters without any capability.
 *
 * Single-threaded: one poll loop serves every client; an add takes the
 * verifier's few milliseconds, reads take microseconds. This file starts
 * it (options, the socket, bpffs, the sensors) and runs the loop over the
 * clients; what a request line asks is done in commands.c, and the state
 * both read is state.c's.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/un.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include <bpf/libbpf.h>
#include <linux/magic.h>

#include "commands.h"
#include "peers.h"
#include "state.h"
#include "common/wire.h"

#define MAX_CLIENTS 32

struct client {
	int fd;
	struct peer peer;          /* who connected (SO_PEERCRED) */
	size_t len;
	char buf[2 * WIRE_MAX_REQUEST + 2];
};

/* The connected clients: this file's alone (the verbs never see them). */
static struct client clients[MAX_CLIENTS];
static size_t nclients;

static volatile sig_atomic_t stopping, reloading;

static int libbpf_log(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_DEBUG)
		return 0;
	if (helper.foreground)
		return vfprintf(stderr, fmt, ap);
	vsyslog(LOG_WARNING, fmt, ap);
	return 0;
}

static void on_signal(int sig)
{
	(void)sig;
	stopping = 1;
}

static void on_hangup(int sig)
{
	(void)sig;
	reloading = 1;
}

/* ------------------------------------------------------------ clients */

static int send_all(int fd, const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t n = send(fd, buf, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* The reply's first byte with the fds it carries, then the rest. */
static int send_reply(int fd, const char *buf, size_t len)
{
	char control[CMSG_SPACE(sizeof(helper.reply_fds))] = { 0 };
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control,
			      .msg_controllen = CMSG_SPACE(helper.nreply_fds * sizeof(int)) };
	struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);
	ssize_t n;

	if (helper.nreply_fds == 0)
		return send_all(fd, buf, len);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(helper.nreply_fds * sizeof(int));
	memcpy(CMSG_DATA(cm), helper.reply_fds, helper.nreply_fds * sizeof(int));
	do
		n = sendmsg(fd, &msg, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	while (helper.nreply_fds > 0)
		close(helper.reply_fds[--helper.nreply_fds]);
	return n == 1 ? send_all(fd, buf + 1, len - 1) : -1;
}

static void drop_client(size_t i)
{
	close(clients[i].fd);
	clients[i] = clients[--nclients];
}

/* Serves every complete line the client sent; false when it must go (it
 * closed, or sent a line over the limit). A partial line left when the
 * peer closes is never executed. */
static bool serve_client(struct client *c)
{
	char line[WIRE_MAX_REQUEST + 1], *reply = NULL;
	size_t len = 0;
	ssize_t n = recv(c->fd, c->buf + c->len, sizeof(c->buf) - c->len, 0);
	enum wire_line_status st;
	bool keep = true;
	FILE *out;

	if (n <= 0)
		return n < 0 && (errno == EINTR || errno == EAGAIN);
	c->len += (size_t)n;
	out = open_memstream(&reply, &len);
	if (out == NULL)
		return false;
	while ((st = wire_take_line(c->buf, &c->len, WIRE_MAX_REQUEST, line)) == WIRE_LINE)
		serve_request(&c->peer, line, out);
	if (st == WIRE_TOO_LONG) {
		wire_write_err(out, WIRE_ERR_INVALID, "request longer than %d bytes", WIRE_MAX_REQUEST);
		keep = false;
	}
	fclose(out);
	if (len > 0 && send_reply(c->fd, reply, len) != 0)
		keep = false;
	while (helper.nreply_fds > 0)
		close(helper.reply_fds[--helper.nreply_fds]);
	free(reply);
	return keep;
}

static void refuse_client(int fd, const char *why)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	if (out != NULL) {
		wire_write_err(out, WIRE_ERR_BUSY, "%s", why);
		fclose(out);
		send_all(fd, text, len);
		free(text);
	}
	close(fd);
}

/*
 * With -u, only root and that user may ask for BPF: the kernel's word on
 * who connected (SO_PEERCRED, the peer's credentials at connect), whatever
 * groups let it reach the socket. Without -u, whoever the socket's mode
 * lets in (root, and the -g group) is served, as before; only root and the
 * -u user are trusted with maps and procs (peers.h).
 */
static bool peer_allowed(int fd, const struct peer *p)
{
	char *text = NULL, who[32];
	size_t n = 0;
	FILE *out;

	if (helper.peer_uid == (uid_t)-1 || p->trusted)
		return true;
	if (p->uid == (uid_t)-1)
		snprintf(who, sizeof(who), "unknown uid");
	else
		snprintf(who, sizeof(who), "uid %lu", (unsigned long)p->uid);
	say(LOG_WARNING, "refused a client of %s (pid %ld): only root and %s may connect", who,
	    (long)p->pid, helper.user);
	out = open_memstream(&text, &n);
	if (out != NULL) {
		wire_write_err(out, WIRE_ERR_FAILED, "%s may not use clustermon-kprobe (only root and %s)",
			       who, helper.user);
		fclose(out);
		send_all(fd, text, n);
		free(text);
	}
	close(fd);
	return false;
}

/* A free slot within the peer's share (half of them at most), or why not. */
static bool slot_for(const struct peer *p, char *why, size_t whylen)
{
	uid_t held[MAX_CLIENTS];

	if (nclients == MAX_CLIENTS) {
		snprintf(why, whylen, "too many clients");
		return false;
	}
	for (size_t i = 0; i < nclients; i++)
		held[i] = clients[i].peer.uid;
	return peer_share_ok(p->uid, held, nclients, MAX_CLIENTS, why, whylen);
}

static void accept_client(int listener)
{
	struct timeval tv = { .tv_sec = 2 };
	int fd = accept4(listener, NULL, NULL, SOCK_CLOEXEC);
	struct peer p;
	char why[128];

	if (fd < 0)
		return;
	peer_of(fd, helper.peer_uid, &p);
	if (!peer_allowed(fd, &p))
		return;
	if (!slot_for(&p, why, sizeof(why))) {
		say(LOG_NOTICE, "refused a client of uid %lu (pid %ld): %s", (unsigned long)p.uid,
		    (long)p.pid, why);
		refuse_client(fd, why);
		return;
	}
	/* A client that stops reading must not stall the others for long. */
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	clients[nclients].fd = fd;
	clients[nclients].peer = p;
	clients[nclients].len = 0;
	nclients++;
}

/* Clients first in pfd, then the running trace sessions' buffers. */
static void serve(int listener)
{
	struct pollfd pfd[MAX_CLIENTS + 1 + MAX_TRACES];
	int timeout = -1;

	while (!stopping) {
		size_t n = nclients + 1;

		if (reloading) {
			reloading = 0;
			reload_policy();
		}

		pfd[0] = (struct pollfd){ .fd = listener, .events = POLLIN };
		for (size_t i = 0; i < nclients; i++)
			pfd[i + 1] = (struct pollfd){ .fd = clients[i].fd, .events = POLLIN };
		for (size_t i = 0; i < helper.ntraces; i++)
			if (trace_fd(helper.traces[i]) >= 0)
				pfd[n++] = (struct pollfd){ .fd = trace_fd(helper.traces[i]),
							    .events = POLLIN };
		if (poll(pfd, n, timeout) < 0)
			continue;
		timeout = drain_traces();
		/* Backwards: drop_client moves the last client into slot i. */
		for (size_t i = nclients; i-- > 0;)
			if (pfd[i + 1].revents && !serve_client(&clients[i]))
				drop_client(i);
		if (pfd[0].revents & POLLIN)
			accept_client(listener);
	}
}

/* ------------------------------------------------------------ start-up */

static void fatal(const char *fmt, const char *arg)
{
	char msg[512];

	snprintf(msg, sizeof(msg), fmt, arg, strerror(errno));
	say(LOG_ERR, "%s", msg);
	exit(1);
}

/* A socket another helper still answers is not ours to take over. */
static void claim_socket_path(const struct sockaddr_un *addr)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd >= 0 && connect(fd, (const struct sockaddr *)addr, sizeof(*addr)) == 0) {
		errno = EADDRINUSE;
		fatal("another clustermon-kprobe answers on %s: %s", addr->sun_path);
	}
	if (fd >= 0)
		close(fd);
	unlink(addr->sun_path);
}

static void make_parent_dir(const char *path)
{
	char dir[sizeof(((struct sockaddr_un *)0)->sun_path)];
	char *slash;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (slash == NULL || slash == dir)
		return;
	*slash = '\0';
	if (mkdir(dir, 0755) != 0 && errno != EEXIST)
		fatal("cannot create %s: %s", dir);
}

static int open_socket(void)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	struct group *gr = NULL;
	mode_t old_umask;
	bool bound;
	int fd;

	if (strlen(helper.socket_path) >= sizeof(addr.sun_path)) {
		errno = ENAMETOOLONG;
		fatal("socket path %s: %s", helper.socket_path);
	}
	if (helper.group != NULL && (gr = getgrnam(helper.group)) == NULL) {
		errno = ENOENT;
		fatal("unknown group %s: %s", helper.group);
	}
	if (gr != NULL)
		helper.gid = gr->gr_gid;
	strcpy(addr.sun_path, helper.socket_path);
	make_parent_dir(addr.sun_path);
	claim_socket_path(&addr);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	/* The socket file is made 0600 (umask 0177 over bind): nobody else
	 * connects in the instant before the chmod below opens it to the group. */
	old_umask = umask(0177);
	bound = fd >= 0 && bind(fd, (struct sockaddr *)&addr, sizeof(addr)) == 0;
	umask(old_umask);
	if (!bound || listen(fd, 16) != 0)
		fatal("cannot listen on %s: %s", addr.sun_path);
	/* Owner and group may read counters and manage probes; nobody else.
	 * By name: a socket's fd does not reach its file's mode; the name is in
	 * the socket's directory, root's, where nobody else swaps it. */
	if (chmod(addr.sun_path, gr ? 0660 : 0600) != 0 ||
	    (gr != NULL && chown(addr.sun_path, 0, gr->gr_gid) != 0))
		fatal("cannot set the mode of %s: %s", addr.sun_path);
	return fd;
}

/* Who reads traces: -G's group (looked up before the socket is made), or
 * the socket's (-g) as before. */
static void set_trace_group(void)
{
	struct group *gr;

	if (helper.trace_group == NULL) {
		helper.trace_gid = helper.gid;
		return;
	}
	if ((gr = getgrnam(helper.trace_group)) == NULL) {
		errno = ENOENT;
		fatal("unknown group %s: %s", helper.trace_group);
	}
	helper.trace_gid = gr->gr_gid;
}

/* Tracepoint ids come from tracefs; a bare system may not have it mounted. */
static void mount_if_missing(const char *probe_file, const char *dir, const char *type)
{
	if (access(probe_file, F_OK) == 0)
		return;
	mkdir(dir, 0700);
	if (mount("nodev", dir, type, 0, NULL) != 0 && errno != EBUSY)
		say(LOG_WARNING, "cannot mount %s on %s: %s", type, dir, strerror(errno));
}

/* Pins a killed helper left: their probes went with it. */
static void remove_stale_pins(void)
{
	DIR *d = opendir(helper.bpffs_dir);
	struct dirent *e;
	char path[4096];

	while (d != NULL && (e = readdir(d)) != NULL) {
		if (strncmp(e->d_name, "probe-", 6) != 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", helper.bpffs_dir, e->d_name);
		unlink(path);
	}
	if (d != NULL)
		closedir(d);
}

static void prepare_bpffs(void)
{
	struct statfs fs;

	if (statfs("/sys/fs/bpf", &fs) != 0 || fs.f_type != BPF_FS_MAGIC)
		mount_if_missing("/nonexistent", "/sys/fs/bpf", "bpf");
	if (mkdir(helper.bpffs_dir, 0700) != 0 && errno != EEXIST) {
		say(LOG_WARNING, "cannot create %s (maps stay unpinned): %s", helper.bpffs_dir,
		    strerror(errno));
		helper.bpffs_dir = NULL;
		return;
	}
	remove_stale_pins();
}

static void usage(void)
{
	fprintf(stderr, "usage: clustermon-kprobe [-f] [-s CONTROL-SOCKET] [-b BPFFS-DIR] "
		"[-g GROUP] [-G TRACE-GROUP] [-u USER] [-t TRACE-DIR] [-r] [-n]\n"
		"       [-S SENSORS]"
		" [-B RING-BYTES] [-Q DISK-BYTES] [-R RESERVE-PERCENT] [-K KEEP] [-A SECONDS]\n"
		"       [-P POLICY-FILE]\n");
	exit(2);
}

static void parse_args(int argc, char **argv)
{
	char why[128];
	int opt;

	budget_defaults(&helper.budget.lim);
	while ((opt = getopt(argc, argv, "fs:b:g:G:u:t:rnS:B:Q:R:K:A:P:h")) != -1) {
		switch (opt) {
		case 'f': helper.foreground = true; break;
		case 'r': helper.raw_tracepoints = true; break;
		case 'n': helper.sensors_on = SENSOR_RUNQLAT; break;
		case 'S':
			if (sensors_parse(optarg, &helper.sensors_on, why, sizeof(why)) != 0) {
				fprintf(stderr, "clustermon-kprobe: -S %s: %s\n", optarg, why);
				exit(2);
			}
			break;
		case 's': helper.socket_path = optarg; break;
		case 'b': helper.bpffs_dir = optarg; break;
		case 'g': helper.group = optarg; break;
		case 'G': helper.trace_group = optarg; break;
		case 'u': helper.user = optarg; break;
		case 't': helper.trace_dir = optarg; break;
		case 'P': helper.policy_path = optarg; break;
		case 'B': case 'Q': case 'R': case 'K': case 'A':
			if (budget_option(opt, optarg, &helper.budget.lim) != 0) {
				fprintf(stderr, "clustermon-kprobe: -%c %s: not a %s\n", opt, optarg,
					opt == 'R' ? "percentage of 0 to 90" :
					opt == 'B' || opt == 'Q' ? "size (BYTES, or N with K, M, G or T)" :
					"number");
				exit(2);
			}
			break;
		default: usage();
		}
	}
	if (optind != argc)
		usage();
}

static void shut_down(int listener)
{
	commands_stop_all();
	sensors_stop(&helper.sensors);
	close(listener);
	unlink(helper.socket_path);
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct timespec now;
	char why[256];
	int listener;

	parse_args(argc, argv);
	openlog("clustermon-kprobe", LOG_PID, LOG_DAEMON);
	/* A bad policy is no policy: refused before anything is hooked. */
	if (load_policy(why, sizeof(why)) != 0) {
		say(LOG_ERR, "%s", why);
		exit(1);
	}
	if (helper.user != NULL) {
		struct passwd *pw = getpwnam(helper.user);

		if (pw == NULL) {
			errno = ENOENT;
			fatal("unknown user %s: %s", helper.user);
		}
		helper.peer_uid = pw->pw_uid;
	}
	libbpf_set_print(libbpf_log);
	if (geteuid() != 0)
		say(LOG_WARNING, "not root: loading BPF programs needs CAP_BPF and CAP_PERFMON");
	mount_if_missing("/sys/kernel/tracing/events", "/sys/kernel/tracing", "tracefs");
	if (helper.bpffs_dir != NULL)
		prepare_bpffs();
	if (helper.trace_group != NULL)
		set_trace_group();
	listener = open_socket();
	if (helper.trace_group == NULL)
		set_trace_group();
	/* A trace must not be the first to find the directory missing. */
	if (trace_make_base(helper.trace_dir, helper.trace_gid, why, sizeof(why)) != 0)
		say(LOG_WARNING, "%s; traces fail until it can be created", why);
	else
		retain_traces();
	if (!helper.foreground && daemon(0, 0) != 0)
		fatal("cannot become a daemon%s: %s", "");
	clock_gettime(CLOCK_REALTIME, &now);
	snprintf(helper.instance, sizeof(helper.instance), "%d-%lld%09ld", (int)getpid(),
		 (long long)now.tv_sec, now.tv_nsec);
	if (sensors_start(&helper.sensors, helper.raw_tracepoints, helper.sensors_on, why,
			  sizeof(why)) != 0)
		say(LOG_WARNING, "%s; running without them", why);
	else
		say(LOG_INFO, "scheduler sensors on %s%s", helper.sensors.btf ?
		    "BTF tracepoints with task storage" : "raw tracepoints",
		    helper.sensors.cgroup_storage ? ", per-cgroup sums in cgroup storage" : "");
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sa.sa_handler = on_hangup;
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	say(LOG_INFO, "listening on %s", helper.socket_path);
	serve(listener);
	shut_down(listener);
	return 0;
}
