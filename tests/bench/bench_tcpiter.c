/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * bench_tcpiter.c - issue 42's TCP measurement: the cost of one sample of
 * the connection table read
 *   (a) as the tcp source reads it today: the inet_diag dump with tcp_info
 *       of every socket (subagent/collect/inetdiag.c, the product's reader);
 *   (b) through tcpiter.bpf.c's iter/tcp program, which writes only the
 *       sockets whose counters moved since its last pass (sk_storage);
 *   (c) through its iterator over the sk_storage map itself, which visits
 *       only the sockets it watches (given storage when established).
 *
 * usage: bench_tcpiter TCPITER.BPF.O SOCKETS SAMPLES MOVING...
 *
 * It runs in a network namespace of its own (nothing else's sockets are
 * dumped or written; the kernel's hash tables are shared, so the walks see
 * the same buckets), where a child holds SOCKETS/2 loopback connections and
 * sends 1 kB over MOVING/2 of them before each sample (both ends of a
 * connection move). For every MOVING level it takes SAMPLES samples, the
 * three passes in turn first, half with bpf_stats on (the BPF run time)
 * and half off (the CPU without the stats' own clock reads). Every record
 * of (b) and (c) is checked against (a)'s row of the same socket, and the
 * sockets written against those that moved between (a)'s dumps; ten new
 * connections after the programs loaded check (c)'s tracepoint. The child
 * stops when the parent goes or after 600 s.
 */
#include "bench_tcpiter.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Per sample sums over the samples of one kind. */
struct sums {
	struct cost c;
	long rows, n;
};

static void add(struct sums *s, const struct cost *c, long rows)
{
	s->c.cpu_ns += c->cpu_ns;
	s->c.user_us += c->user_us;
	s->c.sys_us += c->sys_us;
	s->c.bpf_ns += c->bpf_ns;
	s->c.bpf_runs += c->bpf_runs;
	s->rows += rows;
	s->n++;
}

static void print_sums(const char *what, const struct sums *s)
{
	double n = s->n ? (double)s->n : 1;

	printf("  %-28s cpu %8.1f us  user %7.1f us  sys %7.1f us  bpf %8.1f us (%ld runs)  rows %ld\n",
	       what, s->c.cpu_ns / n / 1e3, s->c.user_us / n, s->c.sys_us / n,
	       s->c.bpf_ns / n / 1e3, (long)(s->c.bpf_runs / n), (long)(s->rows / n));
}

/* (b)'s CPU a sample over (a)'s. */
static double ratio(const struct sums *b, const struct sums *a)
{
	if (a->c.cpu_ns == 0 || a->n == 0 || b->n == 0)
		return 0;
	return ((double)b->c.cpu_ns / (double)b->n) / ((double)a->c.cpu_ns / (double)a->n);
}

/* The three passes of a sample, in one of three orders (shared noise
 * falls on each in turn); then (a)'s movement and the checks. */
static int sample(struct bench *b, int order, bool stats, struct sums *sa,
		  struct sums sr[][2])
{
	struct cost ca, cr[READERS];

	for (int k = 0; k < 3; k++) {
		int which = (k + order) % 3;
		int rc = which == 2 ? pass_a(b, &ca) : pass_it(b, &b->it[which], &cr[which]);

		if (rc != 0)
			return -1;
	}
	moved_in_a(b);
	add(&sa[stats], &ca, (long)b->a.n);
	for (int r = 0; r < READERS; r++) {
		check_rows(b, &b->it[r].rows);
		add(&sr[r][stats], &cr[r], (long)b->it[r].rows.n);
	}
	return 0;
}

static void print_level(const struct bench *b, const struct sums *sa, struct sums sr[][2])
{
	for (int on = 0; on < 2; on++) {
		printf(" bpf_stats %s:\n", on ? "on" : "off");
		print_sums("(a) inet_diag", &sa[on]);
		for (int r = 0; r < READERS; r++)
			print_sums(b->it[r].name, &sr[r][on]);
	}
	for (int r = 0; r < READERS; r++)
		printf("  ratio %s / (a), CPU a sample: %.3f stats off, %.3f stats on\n",
		       b->it[r].name, ratio(&sr[r][0], &sa[0]), ratio(&sr[r][1], &sa[1]));
}

static int level(struct bench *b, int moving, int samples)
{
	struct sums sa[2] = { 0 }, sr[READERS][2] = { 0 };

	for (int i = 0; i < samples; i++) {
		bool stats = i % 2 == 0;

		if (move_conns(b, moving / 2) != 0 || stats_set(b, stats) != 0 ||
		    sample(b, i % 3, stats, sa, sr) != 0)
			return -1;
	}
	stats_set(b, false);
	printf("%d moving sockets of %d, %d samples (half with bpf_stats on):\n", moving,
	       b->sockets, samples);
	print_level(b, sa, sr);
	return 0;
}

/* The first pass: (b) and (c) have no state yet and write every socket;
 * (c) first needs tcp_adopt's pass to give the sockets storage. */
static int first_pass(struct bench *b)
{
	struct sums sa[2] = { 0 }, sr[READERS][2] = { 0 }, sadopt = { 0 };
	struct cost c;

	if (stats_set(b, true) != 0 || adopt_pass(b, &c) != 0 || sample(b, 0, true, sa, sr) != 0)
		return -1;
	stats_set(b, false);
	add(&sadopt, &c, 0);
	printf("first pass (no state yet: every socket written), bpf_stats on:\n");
	print_sums("(a) inet_diag", &sa[1]);
	for (int r = 0; r < READERS; r++)
		print_sums(b->it[r].name, &sr[r][1]);
	print_sums("(c)'s tcp_adopt pass, once", &sadopt);
	for (int r = 0; r < READERS; r++)
		printf("  ratio %s / (a), CPU: %.3f\n", b->it[r].name, ratio(&sr[r][1], &sa[1]));
	return 0;
}

/* New connections after the programs loaded: (c) sees them through
 * tcp_new only. Checked, not timed. */
static int new_conns(struct bench *b, int n)
{
	struct sums sa[2] = { 0 }, sr[READERS][2] = { 0 };
	long before = b->differ + b->set_differ;

	if (move_conns(b, -n) != 0 || sample(b, 0, false, sa, sr) != 0)
		return -1;
	printf("%d new connections: (a) %zu moved or new, (b) wrote %zu, (c) wrote %zu, %s\n", n,
	       b->moved_a, b->it[READ_B].rows.n, b->it[READ_C].rows.n,
	       b->differ + b->set_differ == before ? "agreeing" : "NOT agreeing");
	b->sockets += 2 * n;
	return 0;
}

/* What tcp_new cost while bpf_stats was on: it runs at every TCP state
 * change on the machine (other namespaces' too), not in the reader. */
static void tp_line(const struct bench *b)
{
	struct cost c;

	cost_now(b->tp_prog, &c);
	printf("(c)'s tcp_new (tp_btf/inet_sock_set_state), while bpf_stats was on: %llu runs, "
	       "%.0f ns a run\n", (unsigned long long)c.bpf_runs,
	       c.bpf_runs ? (double)c.bpf_ns / (double)c.bpf_runs : 0.0);
}

int main(int argc, char **argv)
{
	struct bench b = { 0 };
	int samples;

	if (argc < 5 || (b.sockets = atoi(argv[2])) < 2 || (samples = atoi(argv[3])) < 1) {
		fprintf(stderr, "usage: bench_tcpiter TCPITER.BPF.O SOCKETS SAMPLES MOVING...\n");
		return 2;
	}
	b.sockets -= b.sockets % 2;
	if (own_netns() != 0 || start_load(&b) != 0 || load_iter(&b, argv[1]) != 0)
		return 1;
	printf("sockets: %d established in a netns of its own (%d connections)\n", b.sockets,
	       b.sockets / 2);
	if (first_pass(&b) != 0 || new_conns(&b, 10) != 0)
		return 1;
	for (int i = 4; i < argc; i++)
		if (level(&b, atoi(argv[i]), samples) != 0)
			return 1;
	tp_line(&b);
	printf("check: %ld records compared with (a)'s rows of the same sockets, %ld differ; "
	       "%ld passes that wrote other sockets than moved in (a)\n",
	       b.checked, b.differ, b.set_differ);
	stop_load(&b);
	return b.differ == 0 && b.set_differ == 0 ? 0 : 1;
}
