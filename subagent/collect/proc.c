/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * proc.c - every process from kept-open /proc/PID files (WallMon).
 *
 * WallMon found that most of the cost of watching every process is opening
 * and parsing procfs files. Here each process's stat, schedstat and status
 * are opened once, when the process is first seen, and re-read with pread
 * from offset 0 (seq_file regenerates the text then). /proc is listed again
 * only when the caller asks for a rescan; between rescans a process that
 * exits is noticed because its kept-open files fail with ESRCH.
 *
 * A process is known by (pid, start time): the kernel ties a /proc/PID fd to
 * the task, so a reused pid normally shows up as "gone" and then "new" at the
 * next rescan, but a start time that changes under a kept-open file (fixture
 * trees, or any future kernel that rebinds) is handled as a new process too.
 *
 * Steady state (no process appearing) allocates nothing: one read buffer per
 * scanner, entries reached through an array of pointers so that dropping a
 * process moves 8 bytes per survivor rather than a whole entry.
 */
#include "proc.h"
#include "collect.h"
#include "parse.h"

#include <dirent.h>
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
	uint64_t uid = 0, vol = 0, invol = 0;
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
	out->vol_ctxsw = vol;
	out->invol_ctxsw = invol;
	return 0;
bad:
	errno = EINVAL;
	return -1;
}

/* ------------------------------------------------------------------ scanner */

/* What a followed process keeps between samples: its files, what identifies
 * it, and what is read less often than every sample. */
struct proc_entry {
	struct procfile stat, sched, status;
	pid_t pid;
	bool known;               /* start_ticks holds the first sample's */
	uint64_t start_ticks;
	bool have_status;
	uint32_t uid;
	uint64_t vol_ctxsw, invol_ctxsw;
	char cmdline[PROC_CMDLINE_MAX];
};

struct proc_scanner {
	char root[256];
	struct proc_entry **e;    /* followed processes, ascending pid */
	struct proc_entry **next; /* a rescan merges into this one, then swaps */
	size_t n, cap;
	pid_t *pids;              /* the last listing of /proc, reused */
	size_t pids_cap;
	/* Large enough for status with wide Cpus_allowed/Mems_allowed masks. */
	char buf[16384];
};

/* How one read of a process turned out. */
enum sample_rc { S_OK, S_SKIP, S_GONE };

struct proc_scanner *proc_scanner_new(const char *root)
{
	struct proc_scanner *ps;

	if (strlen(root) >= sizeof(ps->root)) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	ps = calloc(1, sizeof(*ps));
	if (ps != NULL)
		strcpy(ps->root, root);
	return ps;
}

static void entry_close(struct proc_entry *e)
{
	procfile_close(&e->stat);
	procfile_close(&e->sched);
	procfile_close(&e->status);
}

static void entry_free(struct proc_entry *e)
{
	entry_close(e);
	free(e);
}

void proc_scanner_free(struct proc_scanner *ps)
{
	if (ps == NULL)
		return;
	for (size_t i = 0; i < ps->n; i++)
		entry_free(ps->e[i]);
	free(ps->e);
	free(ps->next);
	free(ps->pids);
	free(ps);
}

size_t proc_scanner_count(const struct proc_scanner *ps)
{
	return ps->n;
}

/* Out of descriptors: the process cannot be followed now, but one that
 * simply lacks the file (no CONFIG_SCHED_INFO, hidepid) can. */
static bool out_of_fds(void)
{
	return errno == EMFILE || errno == ENFILE;
}

static int open_one(struct proc_scanner *ps, struct procfile *pf, pid_t pid, const char *file)
{
	char rel[64];

	snprintf(rel, sizeof(rel), "proc/%d/%s", (int)pid, file);
	return procfile_open(pf, ps->root, rel);
}

/*
 * The command line, read once per process: it is long, and changes only when
 * a process rewrites its argv. NULs between arguments become spaces; the
 * trailing ones are dropped. Kernel threads and zombies have none: "".
 */
static int read_cmdline(struct proc_scanner *ps, struct proc_entry *e)
{
	struct procfile pf;
	size_t len = 0;

	e->cmdline[0] = '\0';
	if (open_one(ps, &pf, e->pid, "cmdline") != 0)
		return out_of_fds() ? -1 : 0;
	/* Not procfile_read: a command line longer than ours is cut, not
	 * refused. */
	while (len < sizeof(e->cmdline) - 1) {
		ssize_t n = pread(pf.fd, e->cmdline + len, sizeof(e->cmdline) - 1 - len,
				  (off_t)len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	procfile_close(&pf);
	for (size_t i = 0; i < len; i++)
		if (e->cmdline[i] == '\0')
			e->cmdline[i] = ' ';
	while (len > 0 && e->cmdline[len - 1] == ' ')
		len--;
	e->cmdline[len] = '\0';
	return 0;
}

/* Opens a process's files and reads its command line; -1 when it cannot be
 * followed (gone already, or out of descriptors), with nothing left open. */
static int entry_open(struct proc_scanner *ps, struct proc_entry *e)
{
	e->known = false;
	e->have_status = false;
	e->stat.fd = e->sched.fd = e->status.fd = -1;
	if (open_one(ps, &e->stat, e->pid, "stat") != 0)
		goto fail;
	if (open_one(ps, &e->sched, e->pid, "schedstat") != 0 && out_of_fds())
		goto fail;
	if (open_one(ps, &e->status, e->pid, "status") != 0 && out_of_fds())
		goto fail;
	if (read_cmdline(ps, e) != 0)
		goto fail;
	return 0;
fail:
	entry_close(e);
	return -1;
}

static struct proc_entry *entry_new(struct proc_scanner *ps, pid_t pid)
{
	struct proc_entry *e = malloc(sizeof(*e));

	if (e == NULL)
		return NULL;
	e->pid = pid;
	if (entry_open(ps, e) != 0) {
		free(e);
		return NULL;
	}
	return e;
}

/* A failed read: ESRCH (the task is gone), ENOENT, or nothing at all mean
 * the process exited; anything else is a bad sample of a live process. */
static enum sample_rc read_failed(ssize_t n)
{
	if (n == 0 || errno == ESRCH || errno == ENOENT)
		return S_GONE;
	return S_SKIP;
}

/* stat and schedstat into o; o is left unused unless this returns S_OK. */
static enum sample_rc read_stat(struct proc_scanner *ps, struct proc_entry *e,
				struct proc_sample *o)
{
	ssize_t n = procfile_read(&e->stat, ps->buf, sizeof(ps->buf));

	if (n <= 0)
		return read_failed(n);
	if (procstat_parse(ps->buf, o) != 0 || o->pid != e->pid)
		return S_SKIP;
	o->have_schedstat = false;
	/* /proc/PID/schedstat is the main thread's alone; a multi-threaded
	 * process would be undercounted, so it gets none (stat's utime and
	 * stime cover every thread, dead ones included). */
	if (e->sched.fd < 0 || o->threads > 1)
		return S_OK;
	n = procfile_read(&e->sched, ps->buf, sizeof(ps->buf));
	if (n <= 0 && read_failed(n) == S_GONE)
		return S_GONE; /* exited between the two reads */
	o->have_schedstat = n > 0 &&
			    schedstat_parse(ps->buf, &o->cpu_ns, &o->run_delay_ns) == 0;
	return S_OK;
}

/* status into the entry; a bad read keeps the last values. */
static enum sample_rc read_status(struct proc_scanner *ps, struct proc_entry *e)
{
	struct proc_sample tmp;
	ssize_t n;

	if (e->status.fd < 0)
		return S_OK;
	n = procfile_read(&e->status, ps->buf, sizeof(ps->buf));
	if (n <= 0)
		return read_failed(n) == S_GONE ? S_GONE : S_OK;
	if (procstatus_parse(ps->buf, &tmp) != 0)
		return S_OK;
	e->have_status = true;
	e->uid = tmp.uid;
	e->vol_ctxsw = tmp.vol_ctxsw;
	e->invol_ctxsw = tmp.invol_ctxsw;
	return S_OK;
}

/* The pid now belongs to another process: start over with fresh files. */
static enum sample_rc reopen(struct proc_scanner *ps, struct proc_entry *e,
			     struct proc_sample *o)
{
	entry_close(e);
	if (entry_open(ps, e) != 0)
		return S_GONE;
	return read_stat(ps, e, o);
}

/* One process into o: stat fields fresh, status fields as last read. */
static enum sample_rc sample_entry(struct proc_scanner *ps, struct proc_entry *e,
				   struct proc_sample *o, bool with_status)
{
	enum sample_rc rc = read_stat(ps, e, o);

	if (rc == S_OK && e->known && o->start_ticks != e->start_ticks)
		rc = reopen(ps, e, o);
	if (rc != S_OK)
		return rc;
	if (!e->known) {
		e->known = true;
		e->start_ticks = o->start_ticks;
		with_status = true;
	}
	if (with_status && read_status(ps, e) == S_GONE)
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
 * closed, new ones opened (one that cannot be, because it is gone already or
 * we are out of descriptors, is skipped and tried again next rescan). Both
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
			entry_free(ps->e[i++]);
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

int proc_scanner_sample(struct proc_scanner *ps, bool do_rescan, struct proc_sample **out,
			size_t *cap)
{
	size_t kept = 0, nout = 0;

	if (do_rescan && rescan(ps) != 0)
		return -1;
	if (*cap < ps->n) {
		struct proc_sample *bigger = realloc(*out, ps->n * sizeof(*bigger));

		if (bigger == NULL)
			return -1;
		*out = bigger;
		*cap = ps->n;
	}
	for (size_t i = 0; i < ps->n; i++) {
		struct proc_entry *e = ps->e[i];

		switch (sample_entry(ps, e, &(*out)[nout], do_rescan)) {
		case S_OK:
			nout++;
			break;
		case S_SKIP:
			break; /* alive but unreadable now: follow, don't report */
		case S_GONE:
			entry_free(e);
			continue;
		}
		ps->e[kept++] = e;
	}
	ps->n = kept;
	return (int)nout;
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
