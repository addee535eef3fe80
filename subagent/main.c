/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * main.c - clustermond: options, net-snmp start-up, privilege drop and the
 * SNMP thread's loop. Every net-snmp call happens on this thread; sampling
 * runs on the sampler threads and reaches us only through snapshots.
 */
#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>
#include <net-snmp/agent/net-snmp-agent-includes.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "conf.h"
#include "reload.h"
#include "mib/mib.h"
#include "mib/engine/defer.h"
#include "mib/engine/publish.h"
#include "privdrop.h"
#include "runtime/sampler.h"
#include "runtime/logq.h"
#include "sources/oomwatch.h"

#define APP_NAME "clustermond"

struct options {
	int foreground;
	int logging_set;
	const char *agentx;
	const char *config;
	const char *pidfile;
	const char *user;
	const char *root;
};

static volatile sig_atomic_t stop_requested, reload_requested;
static int wake_pipe[2] = { -1, -1 };

static void usage(FILE *out)
{
	fprintf(out,
		"usage: " APP_NAME " [-f] [-x AGENTX-ADDRESS] [-c CONFIG-FILE] [-p PIDFILE]\n"
		"                   [-u USER] [-L LOGOPTS] [-D TOKEN[,...]] [-R ROOT]\n"
		"  -f  stay in the foreground (log to stderr unless -L says otherwise)\n"
		"  -x  the master agent's AgentX socket, net-snmp syntax\n"
		"  -c  read this config file besides the usual clustermond.conf search path\n"
		"  -p  write the process id to this file\n"
		"  -u  drop to this user after start-up\n"
		"  -L  net-snmp logging options (-Lo, -Le, -Lf FILE, -Ls daemon, ...)\n"
		"  -D  net-snmp debug tokens\n"
		"  -R  read kernel files under ROOT instead of / (testing)\n"
		"  -v  print the version and exit\n");
}

static void parse_options(int argc, char **argv, struct options *o)
{
	int c;

	while ((c = getopt(argc, argv, "fx:c:p:u:L:D:R:hv")) != -1) {
		switch (c) {
		case 'f': o->foreground = 1; break;
		case 'x': o->agentx = optarg; break;
		case 'c': o->config = optarg; break;
		case 'p': o->pidfile = optarg; break;
		case 'u': o->user = optarg; break;
		case 'R': o->root = optarg; break;
		case 'L':
			if (snmp_log_options(optarg, argc, argv) < 0) {
				usage(stderr);
				exit(2);
			}
			o->logging_set = 1;
			break;
		case 'D':
			debug_register_tokens(optarg);
			snmp_set_do_debugging(1);
			break;
		case 'v': printf(APP_NAME " " CLUSTERMON_VERSION "\n"); exit(0);
		case 'h': usage(stdout); exit(0);
		default: usage(stderr); exit(2);
		}
	}
	if (optind < argc) {
		fprintf(stderr, APP_NAME ": unexpected argument '%s'\n", argv[optind]);
		usage(stderr);
		exit(2);
	}
}

static void on_signal(int sig)
{
	int saved = errno;

	if (sig == SIGHUP)
		reload_requested = 1;
	else
		stop_requested = 1;
	/* Wake the select() in agent_check_and_process. */
	if (write(wake_pipe[1], "x", 1) < 0) { /* pipe full: already awake */ }
	errno = saved;
}

static void drain_wake_pipe(int fd, void *data)
{
	char buf[64];

	(void)data;
	while (read(fd, buf, sizeof(buf)) > 0)
		;
}

/* Other threads' log lines (logq.h), and a sample someone waited for
 * (mib_defer_poll), wake the loop like a signal. */
static void wake_loop(void)
{
	if (write(wake_pipe[1], "x", 1) < 0) { /* pipe full: already awake */ }
}

static void emit_log(int priority, const char *line)
{
	snmp_log(priority, "%s\n", line);
}

static void install_signals(void)
{
	struct sigaction sa;

	if (pipe2(wake_pipe, O_CLOEXEC | O_NONBLOCK) != 0) {
		snmp_log(LOG_ERR, APP_NAME ": pipe: %s\n", strerror(errno));
		exit(1);
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	register_readfd(wake_pipe[0], drain_wake_pipe, NULL);
	logq_set_wake(wake_loop);
	sampler_on_sample(wake_loop);
	oomwatch_set_wake(wake_loop);
}

static void setup_netsnmp(const struct options *o)
{
	if (!o->logging_set) {
		if (o->foreground)
			snmp_enable_stderrlog();
		else
			snmp_enable_syslog_ident(APP_NAME, LOG_DAEMON);
	}
	netsnmp_ds_set_boolean(NETSNMP_DS_APPLICATION_ID, NETSNMP_DS_AGENT_ROLE, 1);
	if (o->agentx)
		netsnmp_ds_set_string(NETSNMP_DS_APPLICATION_ID, NETSNMP_DS_AGENT_X_SOCKET,
				      o->agentx);
	if (o->config)
		netsnmp_ds_set_string(NETSNMP_DS_LIBRARY_ID, NETSNMP_DS_LIB_OPTIONALCONFIG,
				      o->config);
	init_agent(APP_NAME);
	/* Re-register within seconds of a master restart; a config file may say
	 * otherwise. Set after init_agent, which resets the AgentX defaults. */
	netsnmp_ds_set_int(NETSNMP_DS_APPLICATION_ID, NETSNMP_DS_AGENT_AGENTX_PING_INTERVAL, 2);
	reload_init();
}

static void add_sources(const char *root)
{
	if (sampler_add_all(root) != 0) {
		snmp_log(LOG_ERR, APP_NAME ": cannot read kernel statistics under '%s': %s\n",
			 root[0] ? root : "/", strerror(errno));
		exit(1);
	}
}

static void set_node_name(void)
{
	struct utsname u;

	mib_system_set_node_name(uname(&u) == 0 ? u.nodename : "");
}

static void write_pidfile(const char *path)
{
	FILE *f = fopen(path, "w");

	if (f == NULL || fprintf(f, "%ld\n", (long)getpid()) < 0 || fclose(f) != 0) {
		snmp_log(LOG_ERR, APP_NAME ": cannot write pidfile %s: %s\n", path, strerror(errno));
		exit(1);
	}
}

static void drop_privileges(const char *user)
{
	char err[256];

	/* Everything we read is open already: no capability is needed later. */
	if (privdrop(user, NULL, 0, err, sizeof(err)) != 0) {
		snmp_log(LOG_ERR, APP_NAME ": -u %s: %s\n", user, err);
		exit(1);
	}
}

static void run(void)
{
	while (!stop_requested) {
		if (reload_requested) {
			reload_requested = 0;
			snmp_log(LOG_INFO, APP_NAME ": SIGHUP: re-reading configuration\n");
			update_config();
		}
		agent_check_and_process(1);
		mib_defer_poll();
		logq_drain(emit_log);
		mib_exit_notify();
	}
}

/*
 * Into the background as net-snmp's netsnmp_daemonize goes (fork, setsid,
 * fork again, chdir /), but the two processes that go away leave with
 * _exit: exit() runs the libraries' exit handlers (OpenSSL's cleanup) in a
 * fork, and under ASan one hung there on an allocator lock, holding the
 * invoker's stdout open for ever. stdin and stdout go to /dev/null, stderr
 * too unless a -L option logs somewhere.
 */
static int daemonize(bool keep_stderr)
{
	pid_t pid;
	int fd;

	fflush(NULL); /* what is buffered is printed once, not once a process */
	if ((pid = fork()) < 0)
		return -1;
	if (pid > 0)
		_exit(0);
	if (setsid() < 0 || (pid = fork()) < 0)
		return -1;
	if (pid > 0)
		_exit(0);
	if (chdir("/") != 0)
		return -1;
	if ((fd = open("/dev/null", O_RDWR | O_CLOEXEC)) < 0)
		return -1;
	dup2(fd, STDIN_FILENO);
	dup2(fd, STDOUT_FILENO);
	if (!keep_stderr)
		dup2(fd, STDERR_FILENO);
	if (fd > STDERR_FILENO)
		close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	struct options o = { .root = "" };

	parse_options(argc, argv, &o);
	setup_netsnmp(&o);
	add_sources(o.root);
	set_node_name();
	mib_system_watch_sessions();
	if (mib_register_all() != 0) {
		snmp_log(LOG_ERR, APP_NAME ": cannot register CLUSTER-MON-MIB groups\n");
		return 1;
	}
	init_snmp(APP_NAME);
	if (conf_errors() > 0) {
		snmp_log(LOG_ERR, APP_NAME ": refusing to start with %d configuration error%s\n",
			 conf_errors(), conf_errors() == 1 ? "" : "s");
		return 1;
	}
	conf_started();
	if (!o.foreground && daemonize(o.logging_set) != 0) {
		snmp_log(LOG_ERR, APP_NAME ": cannot detach: %s\n", strerror(errno));
		return 1;
	}
	if (o.pidfile)
		write_pidfile(o.pidfile);
	install_signals();
	/* The sampler threads start before the drop so they can raise their
	 * priority; setresuid then moves every thread to the user, and threads
	 * without KEEPCAPS lose all capabilities with it. */
	if (sampler_start() != 0) {
		snmp_log(LOG_ERR, APP_NAME ": cannot start the sampler: %s\n", strerror(errno));
		return 1;
	}
	/* Requests that arrived while init_snmp registered the groups one by
	 * one were answered already, as root: net-snmp dispatches them during
	 * its synchronous AgentX exchanges. The MIB glue reads only snapshots,
	 * so nothing they did used the privileges dropped here. */
	if (o.user)
		drop_privileges(o.user);
	mib_system_mark_discontinuity();
	publish_start();
	snmp_log(LOG_INFO, APP_NAME " " CLUSTERMON_VERSION " started\n");
	run();
	snmp_log(LOG_INFO, APP_NAME ": exiting\n");
	publish_stop();
	sampler_stop();
	snmp_shutdown(APP_NAME);
	mib_history_clear();
	mib_thresholds_clear();
	mib_probes_clear();
	mib_trace_clear();
	mib_dist_clear();
	shutdown_agent();
	if (o.pidfile)
		unlink(o.pidfile);
	return 0;
}
