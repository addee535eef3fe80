/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * procparse.c - the /proc/PID text the process readers parse (stat,
 * schedstat, status, the pid namespace link, loadavg): untrusted text in,
 * fields out, no file kept. comm may hold spaces and parentheses, so stat
 * is parsed by hand from its last ')'.
 */
#include "proc.h"
#include "parse.h"
#include "common/number.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

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
