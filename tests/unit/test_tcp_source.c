/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_tcp_source.c - the tcp source's sample path: sockets from the live
 * kernel (a loopback connection made here, found by its ports), counters and
 * socket owners from a fixture root written here, so the owner must come from
 * ROOT/proc/PID/fd (collect/sockowner.c) and not from our own /proc. After
 * the first read of every process, a new socket's owner is looked for only
 * among the processes the proc snapshot says ran (published here by hand).
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sources/proctab.h"
#include "sources/proc.h"
#include "sources/tcp.h"
#include "fixture.h"
#include "fake_clock.h"
#include "tap.h"

#define SEC FAKE_SEC

static char dir[] = "/tmp/cm-tcpsrc-XXXXXX";
static void put(const char *rel, const char *text)
{
	fixture_put(dir, rel, text);
}

/* ROOT/proc/PID/fd/N -> socket:[inode of fd] */
static void own(const char *pid, int fd)
{
	char path[256], target[64];
	struct stat st;

	fstat(fd, &st);
	snprintf(path, sizeof(path), "%s/proc/%s", dir, pid);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/proc/%s/fd", dir, pid);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/proc/%s/fd/%d", dir, pid, fd);
	snprintf(target, sizeof(target), "socket:[%lu]", (unsigned long)st.st_ino);
	if (symlink(target, path) != 0)
		perror(path);
}

static uint16_t port_of(int fd)
{
	struct sockaddr_in a;
	socklen_t len = sizeof(a);

	getsockname(fd, (struct sockaddr *)&a, &len);
	return ntohs(a.sin_port);
}

/* A loopback connection to the listener: the client's fd; *server the accepted one. */
static int connect_to(int listener, int *server)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port_of(listener)),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int c = socket(AF_INET, SOCK_STREAM, 0);

	if (c < 0 || connect(c, (struct sockaddr *)&a, sizeof(a)) != 0)
		return -1;
	*server = accept(listener, NULL, NULL);
	return c;
}

static const struct tcp_row *find(const struct tcp_snapshot *s, uint16_t sport, uint16_t dport)
{
	for (size_t i = 0; i < s->nrows; i++)
		if (s->rows[i].c.sport == sport && s->rows[i].c.dport == dport)
			return &s->rows[i];
	return NULL;
}

static uint16_t lp;

/* The owner of the client end fd (connected to the listener on lp). */
static uint32_t owner_of(const struct tcp_snapshot *snap, int fd)
{
	const struct tcp_row *r = find(snap, port_of(fd), lp);

	return r ? r->pid : UINT32_MAX;
}

/* A proc snapshot in which pid ran (its row changed). */
static void ran(struct proctab *t, int32_t pid)
{
	const struct proc_row *old = proctab_find(t, pid);
	struct proc_row r;
	struct proc_snapshot *ps;

	memset(&r, 0, sizeof(r));
	r.pid = pid;
	r.cpu_ns = old ? old->cpu_ns + 1 : 1;
	proctab_put(t, &r);
	if ((ps = proctab_publish(t)) != NULL)
		snapshot_publish(proc_source_ops.slot, &ps->hdr);
}

static struct tcp_snapshot *sample(void *ctx)
{
	ok(tcp_source_ops.sample(ctx) == 0, "sample succeeds");
	return (struct tcp_snapshot *)snapshot_acquire(tcp_source_ops.slot);
}

int main(void)
{
	struct sockaddr_in any = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int l = socket(AF_INET, SOCK_STREAM, 0), c1, s1, c2, s2, c3, s3;
	struct proctab t;
	const struct tcp_row *a, *b;
	struct tcp_snapshot *snap;
	uint32_t ia, ib;
	char path[256];
	void *ctx;

	if (mkdtemp(dir) == NULL || l < 0 || bind(l, (struct sockaddr *)&any, sizeof(any)) != 0 ||
	    listen(l, 8) != 0)
		return perror("setup"), 1;
	lp = port_of(l);
	c1 = connect_to(l, &s1);
	snprintf(path, sizeof(path), "%s/proc", dir);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/proc/net", dir);
	mkdir(path, 0700);
	put("proc/net/snmp",
	    "Tcp: RtoAlgorithm RtoMin RtoMax MaxConn ActiveOpens PassiveOpens AttemptFails "
	    "EstabResets CurrEstab InSegs OutSegs RetransSegs InErrs OutRsts InCsumErrors\n"
	    "Tcp: 1 200 120000 -1 11 22 0 0 3 1000 2000 33 44 55 0\n");
	own("4321", c1);
	proctab_init(&t);
	fake_clock_start(10 * SEC);
	ctx = tcp_source_ops.init(dir);
	if (!ok(ctx != NULL && c1 >= 0 && s1 >= 0, "init (inet_diag socket) and a loopback connection"))
		return done_testing();

	snap = sample(ctx);
	a = find(snap, port_of(c1), lp);
	b = find(snap, lp, port_of(c1));
	ok(a != NULL && b != NULL, "both ends of the connection are rows");
	if (a != NULL && b != NULL) {
		ok(a->c.state == TCP_ESTABLISHED && b->c.state == TCP_ESTABLISHED, "established");
		is_u64(a->pid, 4321, "the client's owner is read from ROOT/proc/4321/fd");
		is_u64(b->pid, 0, "the server end has no owner in ROOT: 0, not our own pid");
		ok(a->index != b->index && a->index != 0 && b->index != 0, "distinct indexes");
		ia = a->index, ib = b->index;
	} else {
		ia = ib = 0;
	}
	ok((snap->scalars_found & (1u << TCPS_ACTIVE_OPENS | 1u << TCPS_RETRANS_SEGS)) ==
	   (1u << TCPS_ACTIVE_OPENS | 1u << TCPS_RETRANS_SEGS) &&
	   snap->scalars[TCPS_ACTIVE_OPENS] == 11 && snap->scalars[TCPS_RETRANS_SEGS] == 33,
	   "Tcp counters from ROOT/proc/net/snmp");
	ok(!(snap->scalars_found & 1u << TCPS_LISTEN_OVERFLOWS), "no ROOT/proc/net/netstat: absent");
	snapshot_release(tcp_source_ops.slot, &snap->hdr);

	c2 = connect_to(l, &s2);
	own("4321", c2);
	fake_now += 4 * SEC;
	snap = sample(ctx);
	a = find(snap, port_of(c1), lp);
	b = find(snap, lp, port_of(c1));
	ok(a != NULL && a->index == ia && b != NULL && b->index == ib,
	   "a connection keeps its index from sample to sample");
	b = find(snap, port_of(c2), lp);
	ok(b != NULL && b->index > ia && b->index > ib, "a new connection gets a new index");
	ok(b != NULL && b->pid == 0,
	   "without a proc source, a new socket's owner is not looked for by reading every process again within a minute");
	snapshot_release(tcp_source_ops.slot, &snap->hdr);

	/* The proc source says who ran: only those processes are read. */
	c3 = connect_to(l, &s3);
	own("5555", c3);
	ran(&t, 1);
	snap = sample(ctx);
	ok(owner_of(snap, c2) == 0 && owner_of(snap, c3) == 0,
	   "a process that did not run is not read for owners");
	snapshot_release(tcp_source_ops.slot, &snap->hdr);
	ran(&t, 4321);
	ran(&t, 5555);
	snap = sample(ctx);
	ok(owner_of(snap, c2) == 4321 && owner_of(snap, c3) == 5555,
	   "the owners of new sockets found among the processes that ran");
	snapshot_release(tcp_source_ops.slot, &snap->hdr);
	proctab_free(&t);
	snapshot_clear(proc_source_ops.slot);

	tcp_source_ops.fini(ctx);
	fake_clock_stop();
	close(c1), close(s1), close(c2), close(s2), close(c3), close(s3), close(l);
	fixture_remove(dir);
	return done_testing();
}
