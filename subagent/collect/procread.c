/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * procread.c - reading one process's /proc files, with a bounded cache of
 * kept-open ones (WallMon).
 *
 * WallMon found that most of the cost of watching every process is opening
 * and parsing procfs files. A kept-open file re-read with pread from offset 0
 * (seq_file regenerates the text then) costs about half of open+read+close,
 * but one fd per file per process runs out long before 10,000 processes. So
 * the reader keeps files open for a bounded set of processes, the ones that
 * ran most recently, and opens the rest for one read; the number of fds
 * clustermond holds does not grow with the process count.
 */
#include "proc.h"
#include "procread.h"
#include "collect.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * A bounded set of kept-open stat and schedstat files, for the processes
 * that ran most recently. pread on a kept fd costs about half of
 * open+read+close, but one fd per file per process runs out at 10,000
 * processes: a process read while cold is opened, read and closed, and only
 * a hot one (the caller says it ran) takes a slot, evicting the least
 * recently run.
 */
#define NO_SLOT UINT32_MAX

struct hot_slot {
	pid_t pid;                /* 0: free */
	struct procfile stat, sched;
	uint32_t prev, next;      /* the LRU list: head is the most recent */
	uint32_t chain;           /* the next slot in this hash bucket */
};

struct proc_reader {
	char root[256];
	struct hot_slot *slot;
	uint32_t nslots, nbuckets, *bucket;
	uint32_t head, tail, nfree;
	size_t open_fds;
	/* Large enough for status with wide Cpus_allowed/Mems_allowed masks. */
	char buf[16384];
};

struct proc_reader *proc_reader_new(const char *root, size_t max_hot)
{
	struct proc_reader *r;

	if (strlen(root) >= sizeof(r->root)) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	if (max_hot > 65536)
		max_hot = 65536;
	r = calloc(1, sizeof(*r));
	if (r == NULL)
		return NULL;
	strcpy(r->root, root);
	r->nslots = (uint32_t)max_hot;
	r->nbuckets = 16;
	while (r->nbuckets < 2 * r->nslots)
		r->nbuckets *= 2;
	r->slot = calloc(r->nslots ? r->nslots : 1, sizeof(*r->slot));
	r->bucket = malloc(r->nbuckets * sizeof(*r->bucket));
	if (r->slot == NULL || r->bucket == NULL) {
		proc_reader_free(r);
		return NULL;
	}
	for (uint32_t i = 0; i < r->nbuckets; i++)
		r->bucket[i] = NO_SLOT;
	r->head = r->tail = NO_SLOT;
	r->nfree = r->nslots;
	return r;
}

static uint32_t *bucket_of(struct proc_reader *r, pid_t pid)
{
	return &r->bucket[((uint32_t)pid * 2654435761u) & (r->nbuckets - 1)];
}

static uint32_t hot_find(struct proc_reader *r, pid_t pid)
{
	uint32_t i = *bucket_of(r, pid);

	while (i != NO_SLOT && r->slot[i].pid != pid)
		i = r->slot[i].chain;
	return i;
}

static void lru_unlink(struct proc_reader *r, uint32_t i)
{
	struct hot_slot *s = &r->slot[i];

	if (s->prev != NO_SLOT)
		r->slot[s->prev].next = s->next;
	else
		r->head = s->next;
	if (s->next != NO_SLOT)
		r->slot[s->next].prev = s->prev;
	else
		r->tail = s->prev;
}

static void lru_push(struct proc_reader *r, uint32_t i)
{
	r->slot[i].prev = NO_SLOT;
	r->slot[i].next = r->head;
	if (r->head != NO_SLOT)
		r->slot[r->head].prev = i;
	r->head = i;
	if (r->tail == NO_SLOT)
		r->tail = i;
}

static void slot_close(struct proc_reader *r, struct hot_slot *s)
{
	r->open_fds -= (s->stat.fd >= 0) + (s->sched.fd >= 0);
	procfile_close(&s->stat);
	procfile_close(&s->sched);
}

/* Frees slot i: its files closed, out of the list and its bucket. */
static void hot_drop(struct proc_reader *r, uint32_t i)
{
	uint32_t *link = bucket_of(r, r->slot[i].pid);

	while (*link != i)
		link = &r->slot[*link].chain;
	*link = r->slot[i].chain;
	lru_unlink(r, i);
	slot_close(r, &r->slot[i]);
	r->slot[i].pid = 0;
	r->nfree++;
}

static int open_one(const char *root, struct procfile *pf, pid_t pid, const char *file)
{
	char rel[64];

	snprintf(rel, sizeof(rel), "proc/%d/%s", (int)pid, file);
	return procfile_open(pf, root, rel);
}

/* A slot for pid with its files open, the least recently run evicted when
 * all are taken; NO_SLOT when it cannot have one. */
static uint32_t hot_take(struct proc_reader *r, pid_t pid)
{
	uint32_t i, *b;

	if (r->nslots == 0)
		return NO_SLOT;
	if (r->nfree == 0)
		hot_drop(r, r->tail);
	for (i = 0; r->slot[i].pid != 0; i++)
		;
	if (open_one(r->root, &r->slot[i].stat, pid, "stat") != 0)
		return NO_SLOT;
	if (open_one(r->root, &r->slot[i].sched, pid, "schedstat") != 0)
		r->slot[i].sched.fd = -1;
	r->open_fds += 1 + (r->slot[i].sched.fd >= 0);
	r->slot[i].pid = pid;
	b = bucket_of(r, pid);
	r->slot[i].chain = *b;
	*b = i;
	lru_push(r, i);
	r->nfree--;
	return i;
}

void proc_reader_free(struct proc_reader *r)
{
	if (r == NULL)
		return;
	for (uint32_t i = 0; r->slot != NULL && i < r->nslots; i++)
		if (r->slot[i].pid != 0)
			slot_close(r, &r->slot[i]);
	free(r->slot);
	free(r->bucket);
	free(r);
}

size_t proc_reader_open_fds(const struct proc_reader *r)
{
	return r->open_fds;
}

/* A failed read: ESRCH (the task is gone), ENOENT, or nothing at all mean
 * the process exited (errno ESRCH then); anything else is a bad read of a
 * live process (EINVAL unless the OS said otherwise). */
static int read_failed(ssize_t n)
{
	if (n == 0 || errno == ESRCH || errno == ENOENT)
		errno = ESRCH;
	return -1;
}

/* One file of pid into r->buf: through the kept fd when there is one,
 * else opened for this read alone. */
static ssize_t read_file(struct proc_reader *r, struct procfile *kept, pid_t pid,
			 const char *file)
{
	struct procfile pf;
	ssize_t n;
	int err;

	if (kept != NULL && kept->fd >= 0)
		return procfile_read(kept, r->buf, sizeof(r->buf));
	if (open_one(r->root, &pf, pid, file) != 0)
		return -1;
	n = procfile_read(&pf, r->buf, sizeof(r->buf));
	err = errno;
	procfile_close(&pf);
	errno = err;
	return n;
}

/* A single-threaded process's schedstat into o (a multi-threaded one's
 * counts its main thread alone). A missing schedstat (no CONFIG_SCHED_INFO)
 * leaves the stat fields good; a process that exited meanwhile fails its
 * next stat read. */
static void read_sched(struct proc_reader *r, uint32_t i, pid_t pid, struct proc_sample *o)
{
	struct hot_slot *s = i != NO_SLOT ? &r->slot[i] : NULL;
	ssize_t n;

	o->have_schedstat = false;
	if (o->threads > 1 || (s != NULL && s->sched.fd < 0))
		return;
	n = read_file(r, s ? &s->sched : NULL, pid, "schedstat");
	o->have_schedstat = n > 0 &&
			    schedstat_parse(r->buf, &o->cpu_ns, &o->run_delay_ns) == 0;
}

/* stat (utime and stime cover every thread, dead ones included) and, when
 * sched says so, schedstat (read_sched). */
static int read_stat(struct proc_reader *r, uint32_t i, pid_t pid, bool sched,
		     struct proc_sample *o)
{
	struct hot_slot *s = i != NO_SLOT ? &r->slot[i] : NULL;
	ssize_t n = read_file(r, s ? &s->stat : NULL, pid, "stat");

	if (n <= 0)
		return read_failed(n);
	if (procstat_parse(r->buf, o) != 0 || o->pid != pid) {
		errno = EINVAL;
		return -1;
	}
	o->have_schedstat = false;
	if (sched)
		read_sched(r, i, pid, o);
	return 0;
}

static int read_status(struct proc_reader *r, pid_t pid, struct proc_sample *o)
{
	ssize_t n = read_file(r, NULL, pid, "status");

	if (n <= 0)
		return read_failed(n);
	o->have_status = procstatus_parse(r->buf, o) == 0;
	return 0;
}

/*
 * The command line: NULs between arguments become spaces, the trailing ones
 * are dropped. Kernel threads and zombies have none: "". Not procfile_read:
 * a command line longer than ours is cut, not refused.
 */
int proc_read_cmdline(struct proc_reader *r, pid_t pid, char *out, size_t cap)
{
	struct procfile pf;
	size_t len = 0;

	out[0] = '\0';
	if (open_one(r->root, &pf, pid, "cmdline") != 0)
		return read_failed(-1);
	while (len < cap - 1) {
		ssize_t n = pread(pf.fd, out + len, cap - 1 - len, (off_t)len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	procfile_close(&pf);
	for (size_t k = 0; k < len; k++)
		if (out[k] == '\0')
			out[k] = ' ';
	while (len > 0 && out[len - 1] == ' ')
		len--;
	out[len] = '\0';
	return 0;
}

/* The stat part, through a kept fd when pid has (or, hot, may take) one. A
 * kept fd that says the task is gone may belong to an earlier process under
 * the same pid: the path is tried once more. */
int proc_read_stat_kept(struct proc_reader *r, pid_t pid, bool hot, bool sched,
			struct proc_sample *o)
{
	uint32_t i = hot_find(r, pid);

	if (i != NO_SLOT) {
		lru_unlink(r, i);
		lru_push(r, i);
		if (read_stat(r, i, pid, sched, o) == 0)
			return 0;
		if (errno != ESRCH)
			return -1;
		hot_drop(r, i);
	}
	if (hot && (i = hot_take(r, pid)) != NO_SLOT) {
		if (read_stat(r, i, pid, sched, o) == 0)
			return 0;
		hot_drop(r, i);
		return -1;
	}
	return read_stat(r, NO_SLOT, pid, sched, o);
}

int proc_read(struct proc_reader *r, pid_t pid, unsigned what, bool hot, struct proc_sample *o)
{
	if ((what & PROC_READ_STAT) && proc_read_stat_kept(r, pid, hot, true, o) != 0)
		return -1;
	if ((what & PROC_READ_STATUS) && read_status(r, pid, o) != 0)
		return -1;
	if ((what & PROC_READ_CMDLINE) && proc_read_cmdline(r, pid, o->cmdline, sizeof(o->cmdline)) != 0)
		return -1;
	return 0;
}

void proc_reader_forget(struct proc_reader *r, pid_t pid)
{
	uint32_t i = hot_find(r, pid);

	if (i != NO_SLOT)
		hot_drop(r, i);
}

void proc_read_sched_kept(struct proc_reader *r, pid_t pid, struct proc_sample *o)
{
	read_sched(r, hot_find(r, pid), pid, o);
}

int proc_threads_schedstat(const char *root, pid_t pid, uint64_t *cpu_ns, uint64_t *run_delay_ns)
{
	char dir[PATH_MAX], rel[96], buf[128];
	struct dirent *d;
	struct procfile pf;
	int read = 0;
	DIR *dp;

	snprintf(dir, sizeof(dir), "%s/proc/%d/task", root, (int)pid);
	if ((dp = opendir(dir)) == NULL)
		return -1;
	*cpu_ns = *run_delay_ns = 0;
	while ((d = readdir(dp)) != NULL) {
		uint64_t c, r;

		if (d->d_name[0] < '0' || d->d_name[0] > '9')
			continue;
		snprintf(rel, sizeof(rel), "proc/%d/task/%.20s/schedstat", (int)pid, d->d_name);
		if (procfile_open(&pf, root, rel) != 0)
			continue; /* the thread just exited */
		if (procfile_read(&pf, buf, sizeof(buf)) > 0 && schedstat_parse(buf, &c, &r) == 0) {
			*cpu_ns += c;
			*run_delay_ns += r;
			read++;
		}
		procfile_close(&pf);
	}
	closedir(dp);
	return read > 0 ? 0 : -1;
}
