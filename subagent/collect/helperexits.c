/* SPDX-License-Identifier: BSD-2-Clause */
/* helperexits.c - the helper's exit log drained through its ring buffer. */
#include "helperexits.h"
#include "helper.h"
#include "helpermaps.h"
#include "common/clock.h"

#include <linux/bpf.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

/* The kernel's ring buffer record header (linux/bpf.h names the bits). */
#define RB_HDR 8u

struct helper_exits {
	int sock, fd;
	size_t size, page;
	uint64_t *consumer;           /* the first page: ours to write */
	const unsigned char *prod;    /* the producer page, then the data twice */
	uint64_t cons, bad;
};

/* ------------------------------------------------ the ring, walked */

static uint64_t load_acquire(const void *p)
{
	return atomic_load_explicit((const _Atomic uint64_t *)p, memory_order_acquire);
}

static uint32_t load_len(const unsigned char *p)
{
	return atomic_load_explicit((const _Atomic uint32_t *)(const void *)p,
				    memory_order_acquire);
}

/* A record's bytes (len of them) into *out when they are one the helper
 * writes: the right size for its kind, its strings cut to their arrays. */
static bool take_rec(const unsigned char *p, uint32_t len, union exit_ring_rec *out)
{
	uint32_t kind;

	if (len < sizeof(kind))
		return false;
	memcpy(&kind, p, sizeof(kind));
	if (kind == CM_REC_EXIT && len == sizeof(out->exit)) {
		memcpy(&out->exit, p, len);
		out->exit.comm[sizeof(out->exit.comm) - 1] = '\0';
		if (out->exit.args_len > CM_EXIT_ARGS)
			out->exit.args_len = 0;
		return out->exit.tgid != 0;
	}
	if (kind == CM_REC_OOM && len == sizeof(out->oom)) {
		memcpy(&out->oom, p, len);
		out->oom.comm[sizeof(out->oom.comm) - 1] = '\0';
		return out->oom.tgid != 0;
	}
	return false;
}

size_t exitring_walk(uint64_t *cons, uint64_t prod, const unsigned char *data, size_t size,
		     size_t max, exit_rec_fn fn, void *ctx, uint64_t *bad)
{
	union exit_ring_rec rec;
	size_t n = 0;

	if (prod < *cons || prod - *cons > size) {
		*cons = prod;
		(*bad)++;
		return 0;
	}
	while (*cons < prod && n < max) {
		const unsigned char *p = data + (*cons & (size - 1));
		uint32_t len = load_len(p);
		uint64_t step;

		if (len & BPF_RINGBUF_BUSY_BIT)
			break;
		len &= ~(uint32_t)BPF_RINGBUF_DISCARD_BIT;
		step = ((uint64_t)len + RB_HDR + 7) & ~7ull;
		if (len > size - RB_HDR || step > prod - *cons) {
			*cons = prod;
			(*bad)++;
			break;
		}
		if (!(load_len(p) & BPF_RINGBUF_DISCARD_BIT)) {
			if (take_rec(p + RB_HDR, len, &rec)) {
				fn(ctx, &rec);
				n++;
			} else {
				(*bad)++;
			}
		}
		*cons += step;
	}
	return n;
}

/* ------------------------------------------------ the ring, attached */

static int map_ring(struct helper_exits *x)
{
	void *c = mmap(NULL, x->page, PROT_READ | PROT_WRITE, MAP_SHARED, x->fd, 0);
	void *p;

	if (c == MAP_FAILED)
		return -1;
	x->consumer = c;
	p = mmap(NULL, x->page + 2 * x->size, PROT_READ, MAP_SHARED, x->fd, (off_t)x->page);
	if (p == MAP_FAILED)
		return -1;
	x->prod = p;
	/* Where the last reader stopped (0 for a new ring): a full ring
	 * refuses new records rather than overwrite old ones, so what no
	 * reader took is still there, and the caller chooses which of it to
	 * use (the proc source: the exits since it started). A position
	 * that makes no sense is caught by exitring_walk. */
	x->cons = load_acquire(x->consumer);
	return 0;
}

struct helper_exits *helper_exits_attach(const char *path, enum exit_ring which,
					 int timeout_ms, char *why, size_t whylen)
{
	int64_t deadline = (int64_t)cm_clock_ms() + timeout_ms;
	struct helper_exits *x = calloc(1, sizeof(*x));
	char reply[512] = "", text[64];
	int fds[WIRE_EXITS_FDS] = { -1, -1 };
	uint64_t bytes;
	size_t nfds = 0;
	int n;

	if (x == NULL) {
		snprintf(why, whylen, "out of memory");
		return NULL;
	}
	x->fd = -1;
	x->page = (size_t)sysconf(_SC_PAGESIZE);
	if ((x->sock = helper_connect(path, why, whylen)) < 0)
		goto fail;
	if ((n = helper_ask_text(HELPER_ASK_EXITS, text, sizeof(text))) < 0 ||
	    send(x->sock, text, (size_t)n, MSG_NOSIGNAL) != n ||
	    helpermap_recv(x->sock, 2, deadline, reply, sizeof(reply), fds, WIRE_EXITS_FDS,
			   &nfds) != 0 ||
	    helper_parse_exits(reply, &bytes) != 0 || nfds != WIRE_EXITS_FDS) {
		snprintf(why, whylen, "clustermon-kprobe did not hand out its exit log: '%.60s'",
			 strchr(reply, '\n') ? strchr(reply, '\n') + 1 : "");
		for (size_t i = 0; i < nfds; i++)
			close(fds[i]);
		goto fail;
	}
	/* Each reader keeps the one ring it drains. */
	x->fd = fds[which];
	close(fds[1 - which]);
	if (which == EXIT_RING_OOM)
		bytes = CM_OOM_RING_BYTES;
	x->size = (size_t)bytes;
	if (helpermap_check(x->fd, BPF_MAP_TYPE_RINGBUF, 0, 0, bytes, false) != 0 ||
	    x->size < x->page || map_ring(x) != 0) {
		snprintf(why, whylen, "clustermon-kprobe's exit ring is not the one clustermon_kprobe.h describes");
		goto fail;
	}
	return x;
fail:
	helper_exits_detach(x);
	return NULL;
}

void helper_exits_detach(struct helper_exits *x)
{
	if (x == NULL)
		return;
	if (x->consumer != NULL)
		munmap(x->consumer, x->page);
	if (x->prod != NULL)
		munmap((void *)x->prod, x->page + 2 * x->size);
	if (x->fd >= 0)
		close(x->fd);
	if (x->sock >= 0)
		close(x->sock);
	free(x);
}

bool helper_exits_alive(const struct helper_exits *x)
{
	return helper_conn_alive(x->sock);
}

size_t helper_exits_drain(struct helper_exits *x, size_t max, exit_rec_fn fn, void *ctx)
{
	size_t n = exitring_walk(&x->cons, load_acquire(x->prod), x->prod + x->page, x->size, max,
				 fn, ctx, &x->bad);

	/* Room for the programs again. */
	atomic_store_explicit((_Atomic uint64_t *)x->consumer, x->cons, memory_order_release);
	return n;
}

uint64_t helper_exits_bad(const struct helper_exits *x)
{
	return x->bad;
}

int helper_exits_fd(const struct helper_exits *x)
{
	return x->fd;
}
