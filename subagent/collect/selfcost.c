/* SPDX-License-Identifier: BSD-2-Clause */
/* selfcost.c - clustermond's own CPU per thread, memory and image size. */
#include "selfcost.h"
#include "collect.h"
#include "proc.h"
#include "common/number.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* CPU time of a /proc/self stat file (relpath under /): 0, or -1. */
static int stat_cpu(const char *relpath, char *name, size_t namelen, uint64_t *ns)
{
	static long hz;
	struct proc_sample p;
	struct procfile pf;
	char buf[1024];
	int rc = -1;

	if (hz <= 0)
		hz = sysconf(_SC_CLK_TCK);
	if (hz <= 0 || procfile_open(&pf, "", relpath) != 0)
		return -1;
	memset(&p, 0, sizeof(p));
	if (procfile_read(&pf, buf, sizeof(buf)) > 0 && procstat_parse(buf, &p) == 0) {
		*ns = (p.utime_ticks + p.stime_ticks) * (1000000000ull / (uint64_t)hz);
		if (name != NULL) {
			size_t n = strnlen(p.comm, namelen - 1);

			memcpy(name, p.comm, n);
			name[n] = '\0';
		}
		rc = 0;
	}
	procfile_close(&pf);
	return rc;
}

static int by_tid(const void *a, const void *b)
{
	const struct self_thread *x = a, *y = b;

	return (x->tid > y->tid) - (x->tid < y->tid);
}

/* Every thread of this process (a thread that exits meanwhile is left out). */
static void read_threads(struct self_cost *c)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	char rel[64];

	c->nthreads = 0;
	while (d != NULL && (e = readdir(d)) != NULL && c->nthreads < SELF_THREADS_MAX) {
		struct self_thread *t = &c->thread[c->nthreads];
		uint64_t tid;

		if (num_parse_u64(e->d_name, 4194304, &tid) != NUM_OK || tid == 0)
			continue;
		snprintf(rel, sizeof(rel), "proc/self/task/%u/stat", (unsigned)tid);
		if (stat_cpu(rel, t->name, sizeof(t->name), &t->cpu_ns) != 0)
			continue;
		t->tid = (uint32_t)tid;
		c->nthreads++;
	}
	if (d != NULL)
		closedir(d);
	qsort(c->thread, c->nthreads, sizeof(c->thread[0]), by_tid);
}

static uint64_t rss_kb(void)
{
	struct procfile pf;
	char buf[256];
	const char *p;
	uint64_t size, rss = 0;

	if (procfile_open(&pf, "", "proc/self/statm") != 0)
		return 0;
	/* statm: "size resident shared ..." in pages */
	if (procfile_read(&pf, buf, sizeof(buf)) <= 0 || num_scan_u64(buf, &p, &size) != NUM_OK ||
	    *p != ' ' || num_scan_u64(p + 1, NULL, &rss) != NUM_OK)
		rss = 0;
	procfile_close(&pf);
	return rss * (uint64_t)(sysconf(_SC_PAGESIZE) / 1024);
}

int self_cost_read(struct self_cost *c, const char *image_path)
{
	struct stat st;

	/* Threads first: the process's figure, read after, is then at least
	 * their sum (within the ticks each rounds down). */
	read_threads(c);
	if (stat_cpu("proc/self/stat", NULL, 0, &c->cpu_ns) != 0)
		return -1;
	c->rss_kb = rss_kb();
	c->have_image = image_path[0] == '/' && stat(image_path, &st) == 0 && S_ISREG(st.st_mode);
	c->image_bytes = c->have_image ? (uint64_t)st.st_size : 0;
	c->have = true;
	return 0;
}
