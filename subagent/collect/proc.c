/*
 * proc.c - every process from kept-open /proc/PID files (WallMon).
 *
 * The cost WallMon measured is mostly opening and parsing procfs files. We
 * open each process's files once, re-read them with pread every sample, and
 * list /proc again only when the caller asks for a rescan. A process is known
 * by (pid, start time), so a reused pid is seen as the new process it is.
 */
#include "proc.h"
#include "collect.h"
#include "parse.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Fields of /proc/PID/stat after "pid (comm) ", counted from 3 (state). */
enum { F_STATE = 3, F_MINFLT = 10, F_MAJFLT = 12, F_UTIME = 14, F_STIME = 15,
       F_THREADS = 20, F_START = 22, F_RSS = 24 };

/* The next blank-separated unsigned field; fails on junk or a cut line. */
static bool next_field(const char **p, uint64_t *v)
{
	*p = skip_blanks(*p);
	if (**p == '-') { /* a few fields are signed: they are not ours, skip */
		(*p)++;
	}
	return scan_u64(p, v);
}

static int parse_after_comm(const char *p, struct proc_sample *out)
{
	uint64_t v;

	p = skip_blanks(p);
	if (*p == '\0' || *p == '\n')
		return -1;
	out->state = *p++;
	for (int f = F_STATE + 1; f <= F_RSS; f++) {
		if (!next_field(&p, &v))
			return -1;
		switch (f) {
		case F_MINFLT: out->minflt = v; break;
		case F_MAJFLT: out->majflt = v; break;
		case F_UTIME: out->utime_ticks = v; break;
		case F_STIME: out->stime_ticks = v; break;
		case F_THREADS: out->threads = (uint32_t)v; break;
		case F_START: out->start_ticks = v; break;
		case F_RSS: out->rss_pages = v; break;
		default: break;
		}
	}
	return 0;
}

int procstat_parse(const char *buf, struct proc_sample *out)
{
	const char *open = strchr(buf, '(');
	const char *close = strrchr(buf, ')');
	const char *p = buf;
	uint64_t pid;
	size_t n;

	/* comm may hold spaces and ')': it ends at the LAST ')'. */
	if (open == NULL || close == NULL || close < open || !scan_u64(&p, &pid) ||
	    pid == 0 || pid > 0x7fffffff || strchr(close, '\n') == NULL)
		goto bad;
	n = (size_t)(close - open - 1);
	if (n >= sizeof(out->comm))
		n = sizeof(out->comm) - 1;
	memcpy(out->comm, open + 1, n);
	out->comm[n] = '\0';
	out->pid = (pid_t)pid;
	if (parse_after_comm(close + 1, out) != 0)
		goto bad;
	return 0;
bad:
	errno = EINVAL;
	return -1;
}

int schedstat_parse(const char *buf, uint64_t *cpu_ns, uint64_t *run_delay_ns)
{
	const char *p = buf;

	if (!scan_u64(&p, cpu_ns) || !scan_u64(&p, run_delay_ns)) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

int procstatus_parse(const char *buf, struct proc_sample *out)
{
	unsigned seen = 0;

	for (const char *p = buf; p != NULL && *p != '\0'; p = next_line(p)) {
		const char *v;
		uint64_t n;

		if (strchr(p, '\n') == NULL)
			break;
		if (line_is(p, "Uid")) {
			v = p + 4;
			if (!scan_u64(&v, &n))
				goto bad;
			out->uid = (uint32_t)n;
			seen |= 1;
		} else if (line_is(p, "voluntary_ctxt_switches")) {
			v = p + 24;
			if (!scan_u64(&v, &out->vol_ctxsw))
				goto bad;
			seen |= 2;
		} else if (line_is(p, "nonvoluntary_ctxt_switches")) {
			v = p + 27;
			if (!scan_u64(&v, &out->invol_ctxsw))
				goto bad;
			seen |= 4;
		}
	}
	if (seen & 1)
		return 0;
bad:
	errno = EINVAL;
	return -1;
}

/* ---------------------------------------------------------------- scanner */

struct proc_entry {
	struct procfile stat, sched, status;
	struct proc_sample s;  /* the last values; status fields persist */
	bool alive;
};

struct proc_scanner {
	char root[256];
	struct proc_entry *e;  /* ascending pid */
	size_t n, cap;
	char buf[16384];
};

struct proc_scanner *proc_scanner_new(const char *root)
{
	struct proc_scanner *ps = calloc(1, sizeof(*ps));

	if (ps != NULL)
		snprintf(ps->root, sizeof(ps->root), "%s", root);
	return ps;
}

static void entry_close(struct proc_entry *e)
{
	procfile_close(&e->stat);
	procfile_close(&e->sched);
	procfile_close(&e->status);
}

void proc_scanner_free(struct proc_scanner *ps)
{
	if (ps == NULL)
		return;
	for (size_t i = 0; i < ps->n; i++)
		entry_close(&ps->e[i]);
	free(ps->e);
	free(ps);
}

size_t proc_scanner_count(const struct proc_scanner *ps)
{
	return ps->n;
}

/* The command line, read once per process: it rarely changes and is long. */
static void read_cmdline(struct proc_scanner *ps, pid_t pid, char *out, size_t len)
{
	struct procfile pf;
	char rel[64];
	ssize_t n;

	out[0] = '\0';
	snprintf(rel, sizeof(rel), "proc/%d/cmdline", (int)pid);
	if (procfile_open(&pf, ps->root, rel) != 0)
		return;
	n = pread(pf.fd, out, len - 1, 0);
	procfile_close(&pf);
	if (n <= 0)
		return;
	out[n] = '\0';
	for (ssize_t i = 0; i < n; i++)
		if (out[i] == '\0')
			out[i] = ' ';
	while (n > 0 && out[n - 1] == ' ')
		out[--n] = '\0';
}

static int open_entry(struct proc_scanner *ps, struct proc_entry *e, pid_t pid)
{
	char rel[64];

	memset(e, 0, sizeof(*e));
	e->stat.fd = e->sched.fd = e->status.fd = -1;
	e->s.pid = pid;
	snprintf(rel, sizeof(rel), "proc/%d/stat", (int)pid);
	if (procfile_open(&e->stat, ps->root, rel) != 0)
		return -1;
	snprintf(rel, sizeof(rel), "proc/%d/schedstat", (int)pid);
	procfile_open(&e->sched, ps->root, rel);
	snprintf(rel, sizeof(rel), "proc/%d/status", (int)pid);
	procfile_open(&e->status, ps->root, rel);
	read_cmdline(ps, pid, e->s.cmdline, sizeof(e->s.cmdline));
	return 0;
}

/* Reads stat (and schedstat) into e->s; -1 when the process is gone. */
static int read_stat(struct proc_scanner *ps, struct proc_entry *e, struct proc_sample *tmp)
{
	*tmp = e->s;
	if (procfile_read(&e->stat, ps->buf, sizeof(ps->buf)) <= 0 ||
	    procstat_parse(ps->buf, tmp) != 0 || tmp->pid != e->s.pid)
		return -1;
	tmp->have_schedstat = e->sched.fd >= 0 &&
			      procfile_read(&e->sched, ps->buf, sizeof(ps->buf)) > 0 &&
			      schedstat_parse(ps->buf, &tmp->cpu_ns, &tmp->run_delay_ns) == 0;
	return 0;
}

static void read_status(struct proc_scanner *ps, struct proc_entry *e)
{
	e->s.have_status = e->status.fd >= 0 &&
			   procfile_read(&e->status, ps->buf, sizeof(ps->buf)) > 0 &&
			   procstatus_parse(ps->buf, &e->s) == 0;
}

/* One process's sample; false when it is gone. */
static bool sample_entry(struct proc_scanner *ps, struct proc_entry *e, bool with_status)
{
	struct proc_sample tmp;
	pid_t pid = e->s.pid;

	if (read_stat(ps, e, &tmp) != 0)
		return false;
	if (e->alive && tmp.start_ticks != e->s.start_ticks) {
		/* The pid was reused: a new process behind the same number. */
		entry_close(e);
		if (open_entry(ps, e, pid) != 0 || read_stat(ps, e, &tmp) != 0)
			return false;
		with_status = true;
	}
	if (!e->alive)
		with_status = true;
	e->s = tmp;
	e->alive = true;
	if (with_status)
		read_status(ps, e);
	return true;
}

static int compare_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

/* The numeric entries of ROOT/proc, ascending; NULL on failure. */
static pid_t *list_pids(const struct proc_scanner *ps, size_t *count)
{
	char path[300];
	DIR *d;
	struct dirent *de;
	pid_t *pids = NULL, *bigger;
	size_t n = 0, cap = 0;

	snprintf(path, sizeof(path), "%s/proc", ps->root[0] ? ps->root : "");
	d = opendir(path);
	if (d == NULL)
		return NULL;
	while ((de = readdir(d)) != NULL) {
		const char *p = de->d_name;
		uint64_t v;

		if (!scan_u64(&p, &v) || *p != '\0' || v == 0 || v > 0x7fffffff)
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 1024;
			bigger = realloc(pids, cap * sizeof(*pids));
			if (bigger == NULL)
				break;
			pids = bigger;
		}
		pids[n++] = (pid_t)v;
	}
	closedir(d);
	if (pids == NULL)
		pids = malloc(sizeof(*pids));
	qsort(pids, n, sizeof(*pids), compare_pid);
	*count = n;
	return pids;
}

static int reserve_entries(struct proc_scanner *ps, size_t want)
{
	struct proc_entry *bigger;
	size_t cap = ps->cap ? ps->cap : 256;

	while (cap < want)
		cap *= 2;
	if (cap == ps->cap)
		return 0;
	bigger = realloc(ps->e, cap * sizeof(*bigger));
	if (bigger == NULL)
		return -1;
	ps->e = bigger;
	ps->cap = cap;
	return 0;
}

/* Merges a fresh pid list into the followed set: new pids are opened (a
 * process we cannot open, gone already or out of fds, is skipped), pids no
 * longer listed are closed. Both lists ascend, so one pass does it. */
static int rescan(struct proc_scanner *ps)
{
	size_t npids, i = 0, j = 0, k = 0;
	pid_t *pids = list_pids(ps, &npids);
	struct proc_entry *old;
	size_t nold = ps->n;

	if (pids == NULL)
		return -1;
	old = malloc((nold ? nold : 1) * sizeof(*old));
	if (old == NULL || reserve_entries(ps, npids) != 0) {
		free(old);
		free(pids);
		return -1;
	}
	memcpy(old, ps->e, nold * sizeof(*old));
	while (i < nold || j < npids) {
		if (j == npids || (i < nold && old[i].s.pid < pids[j])) {
			entry_close(&old[i++]);         /* gone */
		} else if (i == nold || pids[j] < old[i].s.pid) {
			if (open_entry(ps, &ps->e[k], pids[j]) == 0)
				k++;                    /* new */
			j++;
		} else {
			ps->e[k++] = old[i++];          /* still there */
			j++;
		}
	}
	ps->n = k;
	free(old);
	free(pids);
	return 0;
}

int proc_scanner_sample(struct proc_scanner *ps, bool do_rescan, struct proc_sample **out,
			size_t *cap)
{
	size_t kept = 0;

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
		struct proc_entry *e = &ps->e[i];

		if (!sample_entry(ps, e, do_rescan)) {
			entry_close(e);                 /* vanished: never half-filled */
			continue;
		}
		(*out)[kept] = e->s;
		ps->e[kept++] = *e;
	}
	ps->n = kept;
	return (int)kept;
}
