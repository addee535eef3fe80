/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * proc.c - every process from /proc/PID files (WallMon).
 *
 * WallMon found that most of the cost of watching every process is opening
 * and parsing procfs files. A kept-open file re-read with pread from offset 0
 * (seq_file regenerates the text then) costs about half of open+read+close,
 * but one fd per file per process runs out long before 10,000 processes. So
 * the reader keeps files open for a bounded set of processes, the ones that
 * ran most recently, and opens the rest for one read; the number of fds
 * clustermond holds does not grow with the process count.
 *
 * A process is known by (pid, start time): a start time that changes under
 * a pid is a new process.
 */
#include "proc.h"
#include "collect.h"
#include "parse.h"
#include "common/number.h"

#include <dirent.h>
#include <signal.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ------------------------------------------------------------------ parsers */

/* Fields of /proc/PID/stat, numbered as in proc(5). */
enum { F_STATE = 3, F_MINFLT = 10, F_MAJFLT = 12, F_UTIME = 14, F_STIME = 15,
       F_THREADS = 20, F_START = 22, F_RSS = 24 };

static bool field_is_ours(int f)
{
	return f == F_MINFLT || f == F_MAJFLT || f == F_UTIME || f == F_STIME ||
	       f == F_THREADS || f == F_START || f == F_RSS;
}

/*
 * Fields 4..24 into v[]. Some fields we skip are signed (tty_nr, tpgid,
 * priority, nice), so a '-' is allowed there and only there: a negative
 * value in one of ours would mean the line is not what we think it is.
 */
static int scan_stat_fields(const char *p, uint64_t v[F_RSS + 1])
{
	for (int f = F_STATE + 1; f <= F_RSS; f++) {
		p = skip_blanks(p);
		if (*p == '-' && !field_is_ours(f))
			p++;
		if (!scan_u64(&p, &v[f]))
			return -1;
	}
	return 0;
}

/* "PID (" at the start of the line; the '(' or NULL. */
static const char *scan_pid(const char *buf, uint64_t *pid)
{
	const char *p = buf;

	if (!scan_u64(&p, pid) || *pid == 0 || *pid > INT_MAX)
		return NULL;
	return p[0] == ' ' && p[1] == '(' ? p + 1 : NULL;
}

int procstat_parse(const char *buf, struct proc_sample *out)
{
	uint64_t pid, v[F_RSS + 1];
	const char *open, *close, *p;
	size_t n;
	char state;

	/* comm is whatever the task named itself, ')' and ' ' included (and
	 * even '\n'): it ends at the LAST ')' of the line, never the first. */
	open = scan_pid(buf, &pid);
	close = open != NULL ? strrchr(open, ')') : NULL;
	/* No newline after comm means the read was cut short: refuse it
	 * whole rather than fill half a row. */
	if (close == NULL || strchr(close, '\n') == NULL)
		goto bad;
	p = close + 1;
	if (p[0] != ' ' || p[1] == ' ' || p[1] == '\n' || p[1] == '\0' || p[2] != ' ')
		goto bad;
	state = p[1];
	if (scan_stat_fields(p + 2, v) != 0 || v[F_THREADS] > UINT32_MAX)
		goto bad;

	n = (size_t)(close - open - 1);
	if (n >= sizeof(out->comm))
		n = sizeof(out->comm) - 1;
	memcpy(out->comm, open + 1, n);
	out->comm[n] = '\0';
	out->pid = (pid_t)pid;
	out->state = state;
	out->minflt = v[F_MINFLT];
	out->majflt = v[F_MAJFLT];
	out->utime_ticks = v[F_UTIME];
	out->stime_ticks = v[F_STIME];
	out->threads = (uint32_t)v[F_THREADS];
	out->start_ticks = v[F_START];
	out->rss_pages = v[F_RSS];
	return 0;
bad:
	errno = EINVAL;
	return -1;
}

int schedstat_parse(const char *buf, uint64_t *cpu_ns, uint64_t *run_delay_ns)
{
	const char *p = buf;
	uint64_t run, delay;

	/* The kernel writes the whole line at once; no newline means a cut
	 * read whose last number may be short of digits. */
	if (!scan_u64(&p, &run) || !scan_u64(&p, &delay) || strchr(p, '\n') == NULL) {
		errno = EINVAL;
		return -1;
	}
	*cpu_ns = run;
	*run_delay_ns = delay;
	return 0;
}

/* "Name:<blanks>NUMBER" on the line at p, the number in *v. */
static bool scan_status_value(const char *p, size_t namelen, uint64_t *v)
{
	p += namelen + 1; /* the name and its ':' */
	return scan_u64(&p, v);
}

int procstatus_parse(const char *buf, struct proc_sample *out)
{
	uint64_t uid = 0, vol = 0, invol = 0, tgid = 0;
	bool have_uid = false;
	size_t len = strlen(buf);

	/* status always ends in a newline; without it the read was cut. */
	if (len == 0 || buf[len - 1] != '\n')
		goto bad;
	for (const char *p = buf; p != NULL; p = next_line(p)) {
		if (line_is(p, "Uid")) {
			/* real, effective, saved, fs: the first is the owner */
			if (!scan_status_value(p, 3, &uid) || uid > UINT32_MAX)
				goto bad;
			have_uid = true;
		} else if (line_is(p, "Tgid")) {
			if (!scan_status_value(p, 4, &tgid) || tgid > INT_MAX)
				goto bad;
		} else if (line_is(p, "voluntary_ctxt_switches")) {
			if (!scan_status_value(p, 23, &vol))
				goto bad;
		} else if (line_is(p, "nonvoluntary_ctxt_switches")) {
			if (!scan_status_value(p, 26, &invol))
				goto bad;
		}
	}
	/* Context switch lines date from 2.6.23; a kernel without them reads 0. */
	if (!have_uid)
		goto bad;
	out->uid = (uint32_t)uid;
	out->tgid = (uint32_t)tgid;
	out->vol_ctxsw = vol;
	out->invol_ctxsw = invol;
	return 0;
bad:
	errno = EINVAL;
	return -1;
}

int pidns_link_parse(const char *link, uint64_t *ino)
{
	const char *end;

	if (strncmp(link, "pid:[", 5) != 0 || num_scan_u64(link + 5, &end, ino) != NUM_OK ||
	    strcmp(end, "]") != 0) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

/* Its own /proc shows a namespace's pids from its own level down (NSpid
 * there has one field), so the namespace's inode tells instead: the
 * initial one's is fixed (PROC_PID_INIT_INO). */
bool proc_self_in_child_pidns(const char *root)
{
	char path[PATH_MAX], link[64];
	uint64_t ino;
	ssize_t n;

	if (snprintf(path, sizeof(path), "%s/proc/self/ns/pid", root) >= (int)sizeof(path))
		return false;
	n = readlink(path, link, sizeof(link) - 1);
	if (n < 0)
		return false;
	link[n] = '\0';
	return pidns_link_parse(link, &ino) == 0 && ino != PIDNS_INIT_INO;
}


/* ------------------------------------------------------------------ reader */

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
static int read_cmdline(struct proc_reader *r, pid_t pid, char *out, size_t cap)
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
static int read_stat_kept(struct proc_reader *r, pid_t pid, bool hot, bool sched,
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
	if ((what & PROC_READ_STAT) && read_stat_kept(r, pid, hot, true, o) != 0)
		return -1;
	if ((what & PROC_READ_STATUS) && read_status(r, pid, o) != 0)
		return -1;
	if ((what & PROC_READ_CMDLINE) && read_cmdline(r, pid, o->cmdline, sizeof(o->cmdline)) != 0)
		return -1;
	return 0;
}

void proc_reader_forget(struct proc_reader *r, pid_t pid)
{
	uint32_t i = hot_find(r, pid);

	if (i != NO_SLOT)
		hot_drop(r, i);
}

/* ------------------------------------------------------------------ scanner */

/* What a followed process keeps between samples: what identifies it, and
 * what is read less often than every sample. No file stays open here: the
 * reader keeps a bounded set for the processes that ran. */
struct proc_entry {
	pid_t pid;
	bool known;               /* start_ticks holds the first sample's */
	bool ran;                 /* its CPU time moved at the last read */
	uint8_t idle_reads;       /* reads in a row that found it had not run */
	uint64_t start_ticks, ticks;
	bool have_sched;          /* single-threaded: its last schedstat read */
	uint64_t cpu_ns, run_delay_ns;
	bool have_status;
	uint32_t uid;
	uint64_t vol_ctxsw, invol_ctxsw;
	/* what stat said at the last status read: a status turn skips a
	 * process that has not run since (issue 30) */
	uint64_t status_ticks, status_minflt;
	char status_state;
	uint8_t status_skipped;
	char cmdline[PROC_CMDLINE_MAX];
};

struct proc_scanner {
	char root[256];
	struct proc_reader *reader;
	struct proc_entry **e;    /* followed processes, ascending pid */
	struct proc_entry **next; /* a rescan merges into this one, then swaps */
	size_t n, cap;
	pid_t *pids;              /* the last listing of /proc, reused */
	size_t pids_cap;
	size_t status_quota;      /* statuses the next sample reads besides */
	pid_t status_cursor;      /* the last pid whose status that read */
	void (*tick)(void *);     /* proc_scanner_on_tick */
	void *tick_ctx;
	pid_t *pending;           /* proc_scanner_add: joins at the next sample */
	size_t npending, pending_cap;
	uint64_t pass;            /* samples taken: whose idle turn it is */
};

/* How one read of a process turned out. */
enum sample_rc { S_OK, S_SKIP, S_GONE };

struct proc_scanner *proc_scanner_new(const char *root, size_t max_hot)
{
	struct proc_scanner *ps;

	if (strlen(root) >= sizeof(ps->root)) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	ps = calloc(1, sizeof(*ps));
	if (ps == NULL)
		return NULL;
	strcpy(ps->root, root);
	ps->reader = proc_reader_new(root, max_hot);
	if (ps->reader == NULL) {
		free(ps);
		return NULL;
	}
	return ps;
}

void proc_scanner_free(struct proc_scanner *ps)
{
	if (ps == NULL)
		return;
	for (size_t i = 0; i < ps->n; i++)
		free(ps->e[i]);
	free(ps->e);
	free(ps->next);
	free(ps->pids);
	free(ps->pending);
	proc_reader_free(ps->reader);
	free(ps);
}

size_t proc_scanner_count(const struct proc_scanner *ps)
{
	return ps->n;
}

struct proc_reader *proc_scanner_reader(struct proc_scanner *ps)
{
	return ps->reader;
}

/* The command line, read when a process is first seen: it is long, and
 * changes only when a process rewrites its argv. */
static struct proc_entry *entry_new(struct proc_scanner *ps, pid_t pid)
{
	struct proc_entry *e = calloc(1, sizeof(*e));

	if (e == NULL)
		return NULL;
	e->pid = pid;
	if (read_cmdline(ps->reader, pid, e->cmdline, sizeof(e->cmdline)) != 0 &&
	    (errno == ESRCH || errno == EMFILE || errno == ENFILE)) {
		free(e);
		return NULL;
	}
	return e;
}

static enum sample_rc sample_rc_of(void)
{
	return errno == ESRCH ? S_GONE : S_SKIP;
}

/* status into the entry; a bad read keeps the last values. */
static enum sample_rc entry_status(struct proc_scanner *ps, struct proc_entry *e)
{
	struct proc_sample tmp;

	tmp.have_status = false;
	if (proc_read(ps->reader, e->pid, PROC_READ_STATUS, false, &tmp) != 0)
		return errno == ESRCH ? S_GONE : S_OK;
	if (tmp.have_status) {
		e->have_status = true;
		e->uid = tmp.uid;
		e->vol_ctxsw = tmp.vol_ctxsw;
		e->invol_ctxsw = tmp.invol_ctxsw;
	}
	return S_OK;
}

/* The pid now belongs to another process: forget what the old one had. */
static void renew(struct proc_scanner *ps, struct proc_entry *e)
{
	e->known = false;
	e->have_status = false;
	e->have_sched = false;
	if (read_cmdline(ps->reader, e->pid, e->cmdline, sizeof(e->cmdline)) != 0)
		e->cmdline[0] = '\0';
}

/*
 * A single-threaded process's schedstat, read again only when its stat
 * ticks moved: utime + stime is the kernel's sum_exec_runtime in USER_HZ
 * ticks (cputime_adjust scales the sampled split to it), so a process whose
 * ticks stayed has run under 20 ms since, and at 10,000 idle processes this
 * halves what a sample opens and reads. Its run delay is refreshed with it.
 */
static void entry_sched(struct proc_scanner *ps, struct proc_entry *e, bool moved,
			struct proc_sample *o)
{
	if (o->threads == 1 && e->have_sched && !moved) {
		o->have_schedstat = true;
		o->cpu_ns = e->cpu_ns;
		o->run_delay_ns = e->run_delay_ns;
		return;
	}
	read_sched(ps->reader, hot_find(ps->reader, e->pid), e->pid, o);
	e->have_sched = o->have_schedstat;
	e->cpu_ns = o->have_schedstat ? o->cpu_ns : 0;
	e->run_delay_ns = o->have_schedstat ? o->run_delay_ns : 0;
}

/*
 * Whether a status turn reads the process's status: the costliest file
 * (about 9 us), and at 10,000 processes a second's turns were most of what
 * the scanner cost. A process that has not run since its last status read
 * (the same ticks, faults and state in stat) has the same context switch
 * counts and uid as then, but for sub-tick runs: so it is skipped, and read
 * anyway every STATUS_SKIPS turns, as the helper-fed mode reads the slow
 * fields of processes that ran.
 */
#define STATUS_SKIPS 30

static bool status_due(struct proc_entry *e, const struct proc_sample *o)
{
	if (e->have_status && o->utime_ticks + o->stime_ticks == e->status_ticks &&
	    o->minflt == e->status_minflt && o->state == e->status_state &&
	    ++e->status_skipped < STATUS_SKIPS)
		return false;
	e->status_ticks = o->utime_ticks + o->stime_ticks;
	e->status_minflt = o->minflt;
	e->status_state = o->state;
	e->status_skipped = 0;
	return true;
}

/* One process into o: stat fields fresh, schedstat when it ran (or as last
 * read), status fields as last read. */
static enum sample_rc sample_entry(struct proc_scanner *ps, struct proc_entry *e,
				   struct proc_sample *o, bool with_status, bool force_status)
{
	bool moved;

	if (read_stat_kept(ps->reader, e->pid, e->ran || !e->known, false, o) != 0)
		return sample_rc_of();
	if (e->known && o->start_ticks != e->start_ticks)
		renew(ps, e);
	moved = !e->known || o->utime_ticks + o->stime_ticks != e->ticks;
	if (!e->known) {
		e->known = true;
		e->start_ticks = o->start_ticks;
		e->ticks = o->utime_ticks + o->stime_ticks;
		with_status = true;
	}
	e->ran = o->utime_ticks + o->stime_ticks != e->ticks;
	e->ticks = o->utime_ticks + o->stime_ticks;
	if (e->ran || o->state == 'R' || o->state == 'D')
		e->idle_reads = 0;
	else if (e->idle_reads < UINT8_MAX)
		e->idle_reads++;
	entry_sched(ps, e, moved, o);
	if (with_status && !status_due(e, o) && !force_status)
		with_status = false;
	if (with_status && entry_status(ps, e) == S_GONE)
		return S_GONE;
	o->have_status = e->have_status;
	o->uid = e->have_status ? e->uid : 0;
	o->vol_ctxsw = e->have_status ? e->vol_ctxsw : 0;
	o->invol_ctxsw = e->have_status ? e->invol_ctxsw : 0;
	memcpy(o->cmdline, e->cmdline, strlen(e->cmdline) + 1);
	return S_OK;
}

static int compare_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

/* Room for want entries: doubling, from 256, so rescans rarely realloc. */
static size_t grown(size_t cap, size_t want)
{
	size_t c = cap ? cap : 256;

	while (c < want)
		c *= 2;
	return c;
}

/* Both entry arrays keep the same capacity, ps->cap: a rescan merges one
 * into the other. */
static int reserve_entries(struct proc_scanner *ps, size_t want)
{
	size_t c = grown(ps->cap, want);
	struct proc_entry **bigger;

	if (c == ps->cap)
		return 0;
	bigger = realloc(ps->e, c * sizeof(*bigger));
	if (bigger == NULL)
		return -1;
	ps->e = bigger;
	bigger = realloc(ps->next, c * sizeof(*bigger));
	if (bigger == NULL)
		return -1; /* ps->e is larger than ps->cap says: harmless */
	ps->next = bigger;
	ps->cap = c;
	return 0;
}

static int reserve_pids(pid_t **pids, size_t *cap, size_t want)
{
	size_t c = grown(*cap, want);
	pid_t *bigger;

	if (c == *cap)
		return 0;
	bigger = realloc(*pids, c * sizeof(*bigger));
	if (bigger == NULL)
		return -1;
	*pids = bigger;
	*cap = c;
	return 0;
}

static bool pid_name(const char *name, pid_t *pid)
{
	uint64_t v;

	if (name[0] < '1' || name[0] > '9' || !scan_u64(&name, &v) || *name != '\0' ||
	    v > INT_MAX)
		return false;
	*pid = (pid_t)v;
	return true;
}

ssize_t proc_list_pids(const char *root, pid_t **pids, size_t *cap)
{
	char path[300];
	struct dirent *de;
	size_t n = 0;
	bool sorted = true;
	DIR *d;

	if ((size_t)snprintf(path, sizeof(path), "%s/proc", root) >= sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	d = opendir(path);
	if (d == NULL)
		return -1;
	while ((de = readdir(d)) != NULL) {
		pid_t pid;

		if (!pid_name(de->d_name, &pid))
			continue;
		if (n == *cap && reserve_pids(pids, cap, n + 1) != 0) {
			closedir(d);
			return -1;
		}
		sorted = sorted && (n == 0 || (*pids)[n - 1] < pid);
		(*pids)[n++] = pid;
	}
	closedir(d);
	/* procfs lists in pid order; fixture directories need not. */
	if (!sorted)
		qsort(*pids, n, sizeof(**pids), compare_pid);
	return (ssize_t)n;
}

/*
 * Merges the fresh listing into the followed set: pids no longer listed are
 * dropped, new ones added (one that cannot be read, because it is gone already
 * or we are out of descriptors, is skipped and tried again next rescan). Both
 * lists ascend, so one pass does it.
 */
static int rescan(struct proc_scanner *ps)
{
	ssize_t listed = proc_list_pids(ps->root, &ps->pids, &ps->pids_cap);
	size_t npids, i = 0, j = 0, k = 0;
	struct proc_entry **out;

	if (listed < 0)
		return -1;
	npids = (size_t)listed;
	if (reserve_entries(ps, npids) != 0)
		return -1;
	out = ps->next;
	while (i < ps->n || j < npids) {
		if (j == npids || (i < ps->n && ps->e[i]->pid < ps->pids[j])) {
			proc_reader_forget(ps->reader, ps->e[i]->pid);
			free(ps->e[i++]);
		} else if (i == ps->n || ps->pids[j] < ps->e[i]->pid) {
			struct proc_entry *e = entry_new(ps, ps->pids[j++]);

			if (e != NULL)
				out[k++] = e;
		} else {
			out[k++] = ps->e[i++];
			j++;
		}
	}
	ps->next = ps->e;
	ps->e = out;
	ps->n = k;
	return 0;
}

/* An idle process whose turn this sample is not (SCAN_IDLE_EVERY). */
static bool resting(const struct proc_scanner *ps, const struct proc_entry *e, unsigned how)
{
	/* kill() asks the live system: a fixture root is always read */
	return ps->root[0] == '\0' && !(how & PROC_SCAN_STATUS) && e->known &&
	       e->idle_reads >= SCAN_IDLE_READS &&
	       ((uint64_t)e->pid + ps->pass) % SCAN_IDLE_EVERY != 0;
}

void proc_scanner_add(struct proc_scanner *ps, pid_t pid)
{
	if (ps->npending == ps->pending_cap &&
	    reserve_pids(&ps->pending, &ps->pending_cap, ps->npending + 1) != 0)
		return; /* found by the next listing instead */
	ps->pending[ps->npending++] = pid;
}

/* The pids proc_scanner_add queued, merged in as a rescan merges a
 * listing (one pass over both sorted lists). */
static int join_pending(struct proc_scanner *ps)
{
	size_t i = 0, j = 0, k = 0;
	struct proc_entry **out;

	if (ps->npending == 0)
		return 0;
	if (reserve_entries(ps, ps->n + ps->npending) != 0)
		return -1;
	qsort(ps->pending, ps->npending, sizeof(*ps->pending), compare_pid);
	out = ps->next;
	while (i < ps->n || j < ps->npending) {
		if (j == ps->npending || (i < ps->n && ps->e[i]->pid < ps->pending[j])) {
			out[k++] = ps->e[i++];
		} else if (i < ps->n && ps->e[i]->pid == ps->pending[j]) {
			j++;
		} else {
			struct proc_entry *e = entry_new(ps, ps->pending[j++]);

			if (e != NULL)
				out[k++] = e;
			while (j < ps->npending && ps->pending[j] == ps->pending[j - 1])
				j++;
		}
	}
	ps->next = ps->e;
	ps->e = out;
	ps->n = k;
	ps->npending = 0;
	return 0;
}

int proc_scanner_sample(struct proc_scanner *ps, unsigned how, struct proc_sample **out,
			size_t *cap)
{
	size_t kept = 0, nout = 0;

	if ((how & PROC_SCAN_LIST) && rescan(ps) != 0)
		return -1;
	if ((how & PROC_SCAN_LIST))
		ps->npending = 0; /* the listing has every one that lives */
	else if (join_pending(ps) != 0)
		return -1;
	if (*cap < ps->n) {
		struct proc_sample *bigger = realloc(*out, ps->n * sizeof(*bigger));

		if (bigger == NULL)
			return -1;
		*out = bigger;
		*cap = ps->n;
	}
	/* Statuses by quota: [lo, hi) after the cursor, then [0, wrap). */
	size_t lo = 0, hi = 0, wrap = 0, q = ps->status_quota < ps->n ? ps->status_quota : ps->n;

	ps->status_quota = 0;
	if (!(how & PROC_SCAN_STATUS) && q > 0) {
		while (lo < ps->n && ps->e[lo]->pid <= ps->status_cursor)
			lo++;
		hi = lo + q <= ps->n ? lo + q : ps->n;
		wrap = q - (hi - lo);
		ps->status_cursor = wrap > 0 ? ps->e[wrap - 1]->pid : ps->e[hi - 1]->pid;
	}
	ps->pass++;
	for (size_t i = 0; i < ps->n; i++) {
		struct proc_entry *e = ps->e[i];
		bool status = (how & PROC_SCAN_STATUS) || (i >= lo && i < hi) || i < wrap;

		if (ps->tick != NULL && i % PROC_SCAN_TICK == 0)
			ps->tick(ps->tick_ctx);
		if (resting(ps, e, how)) {
			if (kill(e->pid, 0) != 0 && errno == ESRCH) {
				proc_reader_forget(ps->reader, e->pid);
				free(e);
				continue;
			}
			(*out)[nout].pid = e->pid;
			(*out)[nout++].skipped = true;
			ps->e[kept++] = e;
			continue;
		}
		(*out)[nout].skipped = false;
		switch (sample_entry(ps, e, &(*out)[nout], status, how & PROC_SCAN_STATUS)) {
		case S_OK:
			nout++;
			break;
		case S_SKIP:
			break; /* alive but unreadable now: follow, don't report */
		case S_GONE:
			proc_reader_forget(ps->reader, e->pid);
			free(e);
			continue;
		}
		ps->e[kept++] = e;
	}
	ps->n = kept;
	return (int)nout;
}

void proc_scanner_status_quota(struct proc_scanner *ps, size_t n)
{
	ps->status_quota = n;
}

void proc_scanner_on_tick(struct proc_scanner *ps, void (*fn)(void *ctx), void *ctx)
{
	ps->tick = fn;
	ps->tick_ctx = ctx;
}

/* "0.00 0.01 0.05 1/234 5678\n": the last number. */
int loadavg_last_pid_parse(const char *buf, uint32_t *pid)
{
	const char *p = strrchr(buf, ' ');
	uint64_t v;

	if (p != NULL)
		p++;
	if (p == NULL || !scan_u64(&p, &v) || (*p != '\n' && *p != '\0') || v > INT_MAX) {
		errno = EINVAL;
		return -1;
	}
	*pid = (uint32_t)v;
	return 0;
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
