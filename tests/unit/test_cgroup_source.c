/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_cgroup_source.c - the cgroup source on the v1 and v2 fixtures:
 * which cgroups the default and configured patterns pick, their row
 * indexes (cgroup id on v2, 2^31 + FNV-1a of the path for v1-only ones)
 * and the values the rows carry; a second sample over unchanged files
 * keeps each row's generation; a cgroup removed and made again under the
 * same path between two walks serves the new one's figures, under its own
 * index, never the old one's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sources/cgroup.h"
#include "sources/sources.h"
#include "sources/top.h"
#include "fixture.h"
#include "tap.h"

static struct cgroup_snapshot *sample(void *ctx)
{
	struct cgroup_snapshot *s;

	if (cgroup_source_ops.sample(ctx) != 0)
		return NULL;
	s = (struct cgroup_snapshot *)snapshot_acquire(cgroup_source_ops.slot);
	snapshot_release(cgroup_source_ops.slot, &s->hdr); /* the slot keeps it alive */
	return s;
}

static const struct cgroup_row *by_path(const struct cgroup_snapshot *s, const char *path)
{
	for (size_t i = 0; s != NULL && i < s->nrows; i++)
		if (strcmp(s->rows[i]->path, path) == 0)
			return s->rows[i];
	return NULL;
}

static uint64_t inode_of(const char *root, const char *rel)
{
	char path[1024];
	struct stat sb;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	return stat(path, &sb) == 0 ? (uint64_t)sb.st_ino : 0;
}

/* FNV-1a written out again, so a change of hash is seen here. */
static uint32_t fnv(const char *s)
{
	uint32_t h = 0x811c9dc5u;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 0x01000193u;
	return 0x80000000u | (h & 0x7fffffffu);
}

static void v2_defaults(void)
{
	char root[512];
	struct sources_conf conf = { 0 };
	struct cgroup_snapshot *s;
	const struct cgroup_row *r;
	void *ctx = cgroup_source_ops.init(fixture_root(root, sizeof(root), "cgroup-v2"));
	const char *pod = "kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1f2e.slice";
	uint64_t gen, row_gen;

	cgroup_source_ops.configure(ctx, &conf);
	s = sample(ctx);
	if (!ok(s != NULL, "v2: a sample with the default patterns"))
		return;
	is_u64(s->nrows, 2, "ssh.service and the pod, not user.slice or the parents");
	r = by_path(s, "system.slice/ssh.service");
	ok(r != NULL && r->version == CGROUP_V2, "system.slice/* picks ssh.service (v2)");
	if (r != NULL) {
		is_u64(r->index, inode_of(root, "sys/fs/cgroup/system.slice/ssh.service"),
		       "its index is the directory's inode, the cgroup id");
		is_u64(r->st.cpu_ns, 4018225000ull, "with its CPU time");
		is_u64(r->st.oom_kill, 2, "and OOM kills");
		ok(strcmp(r->workload, "systemd ssh.service") == 0,
		   "its workload is the unit (got '%s')", r->workload);
	}
	ok(s->top != NULL && s->top->n == s->nrows, "every row is ranked in the top table");
	ok(by_path(s, pod) != NULL, "the pod matches kubepods*/**/kubepods-*pod*.slice");
	ok(s->nrows < 2 || s->rows[0]->index < s->rows[1]->index, "rows ascend by index");
	gen = s->gen;
	row_gen = s->nrows > 0 ? s->rows[0]->gen : 0;
	s = sample(ctx);
	ok(s != NULL && s->gen > gen && s->nrows == 2 && s->rows[0]->gen == row_gen,
	   "sampled again over the same files, the snapshot is newer and its rows keep the "
	   "generation they changed in, so the image keeps them without visiting them");
	cgroup_source_ops.fini(ctx);
}

static void v1_configured(void)
{
	char root[512];
	struct sources_conf conf = { .cgroup = { .n = 1, .pattern = { "slurm/**" } } };
	struct cgroup_snapshot *s;
	const struct cgroup_row *job, *step;
	void *ctx = cgroup_source_ops.init(fixture_root(root, sizeof(root), "cgroup-v1"));

	cgroup_source_ops.configure(ctx, &conf);
	s = sample(ctx);
	if (!ok(s != NULL, "v1: a sample with cgroupMatch slurm/**"))
		return;
	is_u64(s->nrows, 4, "slurm, uid_1000, job_77 and step_0, once each over four hierarchies");
	job = by_path(s, "slurm/uid_1000/job_77");
	step = by_path(s, "slurm/uid_1000/job_77/step_0");
	ok(job != NULL && job->version == CGROUP_HYBRID, "the job is in both trees");
	if (job != NULL)
		is_u64(job->index, inode_of(root, "sys/fs/cgroup/unified/slurm/uid_1000/job_77"),
		       "so its index is its v2 cgroup id");
	ok(step != NULL && step->version == CGROUP_V1, "the step is v1 only");
	if (step != NULL) {
		is_u64(step->index, fnv("slurm/uid_1000/job_77/step_0"),
		       "its index is 2^31 + FNV-1a of its path");
		is_u64(step->st.nprocs, 1, "one process");
		ok(strcmp(step->workload, "slurm job 77 step 0") == 0,
		   "its workload is the job's step (got '%s')", step->workload);
	}
	if (job != NULL)
		is_u64(job->st.throttled_ns, 9876543210ull, "the job's throttled time");
	conf.cgroup.n = 1;
	strcpy(conf.cgroup.pattern[0], "nothing*");
	cgroup_source_ops.configure(ctx, &conf);
	s = sample(ctx);
	ok(s != NULL && s->nrows == 0, "new patterns take effect at the next sample");
	cgroup_source_ops.fini(ctx);
}

static int put(const char *dir, const char *name, const char *text)
{
	char path[1024];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if ((f = fopen(path, "w")) == NULL)
		return -1;
	fputs(text, f);
	return fclose(f);
}

/* A v2 tree of one cgroup, system.slice/a.service, with usage_usec us. */
static int make_cgroup(const char *dir, unsigned usage_usec)
{
	char text[128];

	snprintf(text, sizeof(text), "usage_usec %u\nuser_usec 0\nsystem_usec 0\n", usage_usec);
	if (mkdir(dir, 0755) != 0 || put(dir, "cgroup.procs", "") != 0)
		return -1;
	return put(dir, "cpu.stat", text);
}

/* Removed and made again between two walks: the old one's files, kept
 * open, still read (a fixture's plain files do; the kernel's would say
 * ENODEV only at their next reading, with the helper up to 10 s later). */
static void made_again(void)
{
	char root[] = "/tmp/cm-cgsrc-XXXXXX", cg[1024], old[1100];
	struct sources_conf conf = { .cgroup = { .n = 1, .pattern = { "system.slice/*" } } };
	struct cgroup_snapshot *s;
	const struct cgroup_row *r;
	uint64_t was;
	void *ctx;

	if (!ok(mkdtemp(root) != NULL, "a directory for a tree of our own"))
		return;
	snprintf(cg, sizeof(cg), "mkdir -p %s/proc/self %s/sys/fs/cgroup/system.slice && "
		 "echo 'cgroup2 /sys/fs/cgroup cgroup2 rw 0 0' >%s/proc/self/mounts", root, root, root);
	if (!ok(system(cg) == 0, "a v2 tree in %s", root))
		return;
	snprintf(cg, sizeof(cg), "%s/sys/fs/cgroup/system.slice/a.service", root);
	snprintf(old, sizeof(old), "%s/gone", root); /* out of the tree */
	ok(make_cgroup(cg, 1000) == 0, "with system.slice/a.service at 1 ms of CPU");
	ctx = cgroup_source_ops.init(root);
	cgroup_source_ops.configure(ctx, &conf);
	s = sample(ctx);
	r = by_path(s, "system.slice/a.service");
	if (!ok(r != NULL && r->st.cpu_ns == 1000000, "the first sample serves it"))
		goto out;
	was = r->index;
	/* The old directory stays until the new one is made, so the new one
	 * cannot take its inode. */
	ok(rename(cg, old) == 0 && make_cgroup(cg, 7000) == 0, "made again at 7 ms");
	nanosleep(&(struct timespec){ .tv_sec = 1, .tv_nsec = 100000000 }, NULL);
	s = sample(ctx);
	r = by_path(s, "system.slice/a.service");
	ok(s != NULL && s->nrows == 1, "one row for the path after the next walk");
	ok(r != NULL && r->index == inode_of(root, "sys/fs/cgroup/system.slice/a.service") &&
	   r->index != was, "under the new cgroup's id, not the old one's");
	is_u64(r != NULL ? r->st.cpu_ns : 0, 7000000, "with the new cgroup's CPU time");
	ok(s != NULL && s->ends != NULL, "the old one's last row went to the end log");
out:
	cgroup_source_ops.fini(ctx);
	snprintf(cg, sizeof(cg), "rm -rf %s", root);
	if (system(cg) != 0)
		diag("could not remove %s", root);
}

int main(void)
{
	v2_defaults();
	v1_configured();
	made_again();
	snapshot_clear(cgroup_source_ops.slot);
	return done_testing();
}
