/* SPDX-License-Identifier: BSD-2-Clause */
/* helpermaps.c - the helper's per-process accounting read through its maps. */
#include "helpermaps.h"
#include "common/clock.h"

#include <errno.h>
#include <linux/bpf.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/ranlist.h"

enum { MAP_SLOTS, MAP_RINGS, MAP_CPU, MAP_SPILL, NMAPS };
_Static_assert(NMAPS == WIRE_MAPS_FDS, "the maps reply carries these fds, in this order");

struct helper_maps {
	int sock;                   /* the connection the fds came on */
	int fd[NMAPS];
	struct helper_maps_reply said;
	const struct cm_proc_slot *slots;
	const unsigned char *rings;
	size_t slots_bytes, rings_bytes;
	struct cm_sched_cpu *cpu;   /* said.nrings: a lookup's room */
	struct ran_news *all;       /* nslots + nrings: after entries were lost */
	struct ran_reader rd;
};

/* ------------------------------------------------ the fds, received */

static void close_fds(int *fds, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
}

/* The fds of one message's SCM_RIGHTS into fds (at most max, counted in
 * *n); any beyond are closed. */
static void take_fds(struct msghdr *msg, int *fds, size_t max, size_t *n)
{
	for (struct cmsghdr *cm = CMSG_FIRSTHDR(msg); cm != NULL; cm = CMSG_NXTHDR(msg, cm)) {
		size_t k;
		int *p = (int *)CMSG_DATA(cm);

		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS ||
		    cm->cmsg_len < CMSG_LEN(0))
			continue;
		k = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < k; i++) {
			int fd;

			memcpy(&fd, p + i, sizeof(fd));
			if (*n < max)
				fds[(*n)++] = fd;
			else
				close(fd);
		}
	}
}

int helpermap_recv(int sock, int lines, int64_t deadline, char *buf, size_t cap, int *fds,
		   size_t maxfds, size_t *nfds)
{
	size_t len = 0;

	while (lines > 0) {
		union { char buf[CMSG_SPACE(8 * sizeof(int))]; struct cmsghdr align; } control;
		struct iovec iov = { .iov_base = buf + len, .iov_len = cap - 1 - len };
		struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
				      .msg_control = control.buf,
				      .msg_controllen = sizeof(control.buf) };
		struct pollfd pfd = { .fd = sock, .events = POLLIN };
		int64_t left = deadline - (int64_t)cm_clock_ms();
		ssize_t n;

		if (len + 1 >= cap || left <= 0 || poll(&pfd, 1, (int)left) <= 0)
			return -1;
		n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
		if (n < 0 && errno == EINTR)
			continue;
		if (n > 0 || msg.msg_controllen > 0)
			take_fds(&msg, fds, maxfds, nfds);
		if (n <= 0)
			return -1;
		for (ssize_t i = 0; i < n; i++)
			lines -= buf[len + (size_t)i] == '\n';
		len += (size_t)n;
	}
	buf[len] = '\0';
	return 0;
}

/* ------------------------------------------------ the maps, checked */

static int bpf_call(int cmd, union bpf_attr *attr)
{
	return (int)syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

/* fd must be a BPF map of this type, key and value size, with entries
 * entries and the mmapable flag if mmapable: the helper's word is not
 * taken for what its fds are. */
/* What the kernel says fd is (a struct bpf_map_info, bpf_link_info, ...). */
static int obj_info(int fd, void *info, uint32_t len)
{
	union bpf_attr attr;

	memset(info, 0, len);
	memset(&attr, 0, sizeof(attr));
	attr.info.bpf_fd = (uint32_t)fd;
	attr.info.info_len = len;
	attr.info.info = (uint64_t)(uintptr_t)info;
	return bpf_call(BPF_OBJ_GET_INFO_BY_FD, &attr);
}

int helpermap_check(int fd, uint32_t type, uint32_t key, uint32_t value, uint64_t entries,
		     bool mmapable)
{
	struct bpf_map_info info;

	if (obj_info(fd, &info, sizeof(info)) != 0)
		return -1;
	if (info.type != type || info.key_size != key || info.value_size != value ||
	    info.max_entries != entries || (mmapable && !(info.map_flags & BPF_F_MMAPABLE)))
		return -1;
	return 0;
}

int helpermap_check_iter(int fd)
{
	struct bpf_link_info info;

	if (obj_info(fd, &info, sizeof(info)) != 0)
		return -1;
	return info.type == BPF_LINK_TYPE_ITER ? 0 : -1;
}

int helpermap_iter_open(int link_fd)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.iter_create.link_fd = (uint32_t)link_fd;
	return bpf_call(BPF_ITER_CREATE, &attr);
}

const void *helpermap_mmap_ro(int fd, size_t bytes)
{
	void *p = mmap(NULL, bytes, PROT_READ, MAP_SHARED, fd, 0);

	return p == MAP_FAILED ? NULL : p;
}

int helpermap_lookup(int fd, const void *key, void *value)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.map_fd = (uint32_t)fd;
	attr.key = (uint64_t)(uintptr_t)key;
	attr.value = (uint64_t)(uintptr_t)value;
	return bpf_call(BPF_MAP_LOOKUP_ELEM, &attr);
}

int helpermap_lookup_batch(int fd, uint64_t *token, bool first, void *keys, void *values,
			   uint32_t *count)
{
	union bpf_attr attr;
	int rc;

	memset(&attr, 0, sizeof(attr));
	attr.batch.in_batch = first ? 0 : (uint64_t)(uintptr_t)token;
	attr.batch.out_batch = (uint64_t)(uintptr_t)token;
	attr.batch.keys = (uint64_t)(uintptr_t)keys;
	attr.batch.values = (uint64_t)(uintptr_t)values;
	attr.batch.count = *count;
	attr.batch.map_fd = (uint32_t)fd;
	rc = bpf_call(BPF_MAP_LOOKUP_BATCH, &attr);
	*count = attr.batch.count;
	return rc;
}

/* The kernel's possible CPUs ("0-N" or a list of ranges): a per-CPU
 * lookup writes a value for each, so our room is sized by our own count,
 * never by the helper's word. 0 when it cannot tell. */
uint64_t helpermap_possible_cpus(void)
{
	FILE *f = fopen("/sys/devices/system/cpu/possible", "r");
	char buf[256] = "", *p = buf, *end;
	uint64_t n = 0;

	if (f == NULL)
		return 0;
	if (fgets(buf, sizeof(buf), f) == NULL)
		buf[0] = '\0';
	fclose(f);
	for (;;) {
		unsigned long a = strtoul(p, &end, 10), b = a;

		if (end == p)
			return 0;
		p = end;
		if (*p == '-') {
			b = strtoul(p + 1, &end, 10);
			if (end == p + 1 || b < a)
				return 0;
			p = end;
		}
		if ((n += b - a + 1) > HELPER_MAX_CPUS)
			return 0;
		if (*p != ',')
			break;
		p++;
	}
	return *p == '\n' || *p == '\0' ? n : 0;
}

/* Every fd what the reply says it is, the arrays mapped read-only. */
static int check_and_map(struct helper_maps *m, char *why, size_t whylen)
{
	const struct helper_maps_reply *r = &m->said;
	uint32_t slot = sizeof(struct cm_proc_slot), ring = sizeof(struct cm_ran_ring);

	if (r->nrings != helpermap_possible_cpus() || r->ncpu != r->nrings) {
		snprintf(why, whylen, "the helper's CPU count is not this machine's");
		return -1;
	}
	if (helpermap_check(m->fd[MAP_SLOTS], BPF_MAP_TYPE_ARRAY, 4, slot, r->nslots, true) != 0 ||
	    helpermap_check(m->fd[MAP_RINGS], BPF_MAP_TYPE_ARRAY, 4, ring, r->nrings, true) != 0 ||
	    helpermap_check(m->fd[MAP_CPU], BPF_MAP_TYPE_PERCPU_ARRAY, 4, sizeof(struct cm_sched_cpu), 1,
		      false) != 0 ||
	    helpermap_check(m->fd[MAP_SPILL], BPF_MAP_TYPE_LRU_HASH, 4, slot, CM_PROC_SPILL, false) != 0) {
		snprintf(why, whylen, "the helper's maps are not what it said they are");
		return -1;
	}
	m->slots_bytes = (size_t)r->nslots * slot;
	m->rings_bytes = (size_t)r->nrings * ring;
	m->slots = helpermap_mmap_ro(m->fd[MAP_SLOTS], m->slots_bytes);
	m->rings = helpermap_mmap_ro(m->fd[MAP_RINGS], m->rings_bytes);
	m->cpu = calloc((size_t)r->nrings, sizeof(*m->cpu));
	m->all = malloc(((size_t)r->nslots + (size_t)r->nrings) * sizeof(*m->all));
	if (m->slots == NULL || m->rings == NULL || m->cpu == NULL || m->all == NULL ||
	    ran_reader_init(&m->rd, (size_t)r->nrings) != 0) {
		snprintf(why, whylen, "mapping the helper's maps failed: %s", strerror(errno));
		return -1;
	}
	/* The kernel maps a BPF array only through a fd that may write, so
	 * these two could: closed now, they leave only the PROT_READ
	 * mappings, which bpf_map_mmap keeps from becoming writable. */
	close(m->fd[MAP_SLOTS]);
	close(m->fd[MAP_RINGS]);
	m->fd[MAP_SLOTS] = m->fd[MAP_RINGS] = -1;
	return 0;
}

/* ------------------------------------------------ attach and detach */

static struct helper_maps *fresh(void)
{
	struct helper_maps *m = calloc(1, sizeof(*m));

	if (m == NULL)
		return NULL;
	m->sock = -1;
	for (int i = 0; i < NMAPS; i++)
		m->fd[i] = -1;
	return m;
}

struct helper_maps *helper_maps_attach(const char *path, int timeout_ms, char *why,
				       size_t whylen)
{
	int64_t deadline = (int64_t)cm_clock_ms() + timeout_ms;
	struct helper_maps *m = fresh();
	char reply[512], text[64];
	size_t nfds = 0;
	int n;

	if (m == NULL) {
		snprintf(why, whylen, "out of memory");
		return NULL;
	}
	if ((m->sock = helper_connect(path, why, whylen)) < 0)
		goto fail;
	if ((n = helper_ask_text(HELPER_ASK_MAPS, text, sizeof(text))) < 0 ||
	    send(m->sock, text, (size_t)n, MSG_NOSIGNAL) != n ||
	    helpermap_recv(m->sock, 2, deadline, reply, sizeof(reply), m->fd, NMAPS, &nfds) != 0) {
		snprintf(why, whylen, "clustermon-kprobe did not answer the maps request");
		goto fail;
	}
	if (helper_parse_maps(reply, &m->said, why, whylen) != 0)
		goto fail;
	if (nfds != NMAPS) {
		snprintf(why, whylen, "clustermon-kprobe passed %zu fds, not %d", nfds, NMAPS);
		goto fail;
	}
	if (check_and_map(m, why, whylen) == 0)
		return m;
fail:
	helper_maps_detach(m);
	return NULL;
}

void helper_maps_detach(struct helper_maps *m)
{
	if (m == NULL)
		return;
	if (m->slots != NULL)
		munmap((void *)m->slots, m->slots_bytes);
	if (m->rings != NULL)
		munmap((void *)m->rings, m->rings_bytes);
	close_fds(m->fd, NMAPS);
	if (m->sock >= 0)
		close(m->sock);
	ran_reader_free(&m->rd);
	free(m->cpu);
	free(m->all);
	free(m);
}

bool helper_maps_alive(struct helper_maps *m)
{
	return helper_conn_alive(m->sock);
}

/* ------------------------------------------------ a drain */

static void read_sums(void *ctx, struct ran_news *p)
{
	struct helper_maps *m = ctx;
	struct cm_proc_slot spill;

	if (ran_read_slot(m->slots, (size_t)m->said.nslots, p))
		return;
	if (helpermap_lookup(m->fd[MAP_SPILL], &p->tgid, &spill) == 0 && spill.tgid == p->tgid) {
		p->cpu_ns = spill.cpu_ns;
		p->run_delay_ns = spill.run_delay_ns;
	}
}

void helper_maps_sums(struct helper_maps *m, uint32_t tgid, uint64_t *cpu_ns,
		      uint64_t *run_delay_ns)
{
	struct ran_news p = { .tgid = tgid, .mark = CM_RAN };
	uint32_t zero = 0;

	if (tgid == 0 || tgid > CM_PID_MAX_LIMIT)
		return;
	read_sums(m, &p);
	if (helpermap_lookup(m->fd[MAP_CPU], &zero, m->cpu) == 0) {
		uint64_t now = cm_clock_ns();

		for (uint64_t c = 0; c < m->said.ncpu; c++)
			if (m->cpu[c].running && m->cpu[c].tgid == tgid && now > m->cpu[c].since)
				p.cpu_ns += now - m->cpu[c].since;
	}
	if (p.cpu_ns > *cpu_ns)
		*cpu_ns = p.cpu_ns;
	if (p.run_delay_ns > *run_delay_ns)
		*run_delay_ns = p.run_delay_ns;
}

/* The processes of this drain, sums read. */
static ssize_t drain(struct helper_maps *m, struct ran_news **v, bool *lost)
{
	uint64_t now = cm_clock_ns();
	uint32_t zero = 0;
	ssize_t n = ran_drain(&m->rd, m->rings, (uint32_t)(now >> CM_EPOCH_SHIFT),
			      (size_t)m->said.nrings, lost);

	*v = m->rd.out;
	if (n < 0)
		return -1;
	if (*lost) {
		*v = m->all;
		n = (ssize_t)ran_all_slots(m->slots, (size_t)m->said.nslots, m->all);
	}
	for (ssize_t i = 0; i < n; i++)
		read_sums(m, &(*v)[i]);
	if (helpermap_lookup(m->fd[MAP_CPU], &zero, m->cpu) == 0)
		n = (ssize_t)ran_add_running(*v, (size_t)n, (size_t)n, m->cpu,
					     (unsigned)m->said.ncpu, cm_clock_ns(), read_sums, m);
	return n;
}

int helper_maps_procs(struct helper_maps *m, struct helper_procs *out)
{
	struct ran_news *v;
	bool lost = false;
	ssize_t n = drain(m, &v, &lost);

	memset(out, 0, sizeof(*out));
	if (n < 0)
		return -1;
	snprintf(out->instance, sizeof(out->instance), "%s", m->said.instance);
	out->v = malloc(((size_t)n ? (size_t)n : 1) * sizeof(*out->v));
	if (out->v == NULL)
		return -1;
	for (ssize_t i = 0; i < n; i++)
		out->v[i] = (struct helper_proc){ .tgid = v[i].tgid, .mark = (uint8_t)v[i].mark,
						  .exited = v[i].mark == CM_EXITED,
						  .cpu_ns = v[i].cpu_ns,
						  .run_delay_ns = v[i].run_delay_ns };
	out->n = out->cap = (size_t)n;
	out->lost = lost;
	return 0;
}
