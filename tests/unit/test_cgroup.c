/* SPDX-License-Identifier: BSD-2-Clause */
/* test_cgroup.c - the cgroup v1 and v2 readers on fixtures taken from real
 * kernels' file formats, their parsers on bad input, and the path globs. */
#include <errno.h>
#include <string.h>

#include <sys/stat.h>

#include "collect/cgid.h"
#include "collect/cgroup.h"
#include "collect/oomvictim.h"
#include "core/pathglob.h"
#include "fixture.h"

static char buf[1 << 16];

static int read_fixture_cgroup(const char *fixture, const char *rel, struct cgroup_stats *st)
{
	char root[512];
	struct cgroup_mounts m;
	struct cgroup_files cf;
	int rc;

	fixture_root(root, sizeof(root), fixture);
	if (cgroup_mounts_read(root, &m) != 0 || cgroup_files_open(&cf, root, &m, rel) != 0)
		return -2;
	rc = cgroup_files_read(&cf, st, buf, sizeof(buf));
	cgroup_files_close(&cf);
	return rc;
}

static void v2(void)
{
	struct cgroup_stats st;

	ok(read_fixture_cgroup("cgroup-v2", "system.slice/ssh.service", &st) == 0, "v2: ssh.service reads");
	is_u64(st.cpu_ns, 4018225000ull, "usage_usec in ns");
	is_u64(st.user_ns, 2512114000ull, "user_usec in ns");
	is_u64(st.system_ns, 1506111000ull, "system_usec in ns");
	ok((st.have & CGS_THROTTLE) != 0, "throttling with the cpu controller");
	is_u64(st.nr_periods, 500, "nr_periods");
	is_u64(st.nr_throttled, 42, "nr_throttled");
	is_u64(st.throttled_ns, 1234567000ull, "throttled_usec in ns");
	is_u64(st.mem_current, 9203712, "memory.current");
	is_u64(st.mem_peak, 15728640, "memory.peak");
	is_u64(st.mem_limit, 536870912, "memory.max");
	is_u64(st.oom, 3, "memory.events oom");
	is_u64(st.oom_kill, 2, "memory.events oom_kill");
	is_u64(st.anon, 2625536, "memory.stat anon");
	is_u64(st.file, 5541888, "memory.stat file");
	is_u64(st.rbytes, 5574656 + 4096, "io.stat rbytes summed over devices");
	is_u64(st.wbytes, 1048576 + 8192, "wbytes");
	is_u64(st.rios, 222, "rios");
	is_u64(st.wios, 18, "wios");
	is_u64(st.pids_current, 3, "pids.current");
	is_u64(st.pids_limit, 4915, "pids.max");
	is_u64(st.psi_cpu.some.avg10, 150, "cpu.pressure some avg10");
	is_u64(st.psi_io.full.total_us, 29001, "io.pressure full total");
	is_u64(st.nprocs, 2, "cgroup.procs lines");
	ok(st.have == (0xffffu & ~0u), "every column there (have %#x)", st.have);
	ok(read_fixture_cgroup("cgroup-v2", "kubepods.slice/kubepods-burstable.slice/"
			       "kubepods-burstable-pod1f2e.slice", &st) == 0, "v2: a pod reads");
	ok(!(st.have & (CGS_THROTTLE | CGS_MEM_PEAK | CGS_IO | CGS_PSI_CPU)),
	   "files the kernel lacks leave their columns out");
	ok(st.mem_limit == CG_UNLIMITED && st.pids_limit == CG_UNLIMITED, "max is no limit");
	ok((st.have & CGS_PROCS) && st.nprocs == 0, "an empty cgroup.procs counts 0");
	ok(read_fixture_cgroup("cgroup-v2", "no/such", &st) == -2, "a path no tree has is refused");
}

static void v1(void)
{
	struct cgroup_stats st;
	const char *job = "slurm/uid_1000/job_77";

	ok(read_fixture_cgroup("cgroup-v1", job, &st) == 0, "v1: a Slurm job reads");
	is_u64(st.cpu_ns, 98765432100ull, "cpuacct.usage (v1 wins over the hybrid v2 tree)");
	is_u64(st.user_ns, 90000000000ull, "cpuacct.usage_user");
	is_u64(st.system_ns, 8765432100ull, "cpuacct.usage_sys");
	is_u64(st.nr_throttled, 311, "cpu.stat nr_throttled");
	is_u64(st.throttled_ns, 9876543210ull, "throttled_time already ns");
	is_u64(st.mem_current, 1073741824, "usage_in_bytes");
	is_u64(st.mem_peak, 2147483648ull, "max_usage_in_bytes");
	is_u64(st.mem_limit, 4294967296ull, "limit_in_bytes");
	ok(!(st.have & CGS_OOM), "no oom event count on v1");
	is_u64(st.oom_kill, 5, "oom_control oom_kill");
	is_u64(st.anon, 402657280, "total_rss");
	is_u64(st.file, 536875008, "total_cache");
	is_u64(st.rbytes, 1048576 + 4096, "blkio Read bytes over devices");
	is_u64(st.wbytes, 8388608, "blkio Write bytes");
	is_u64(st.rios, 17, "blkio Read ops");
	is_u64(st.wios, 64, "blkio Write ops");
	is_u64(st.pids_current, 7, "pids.current");
	ok(st.pids_limit == CG_UNLIMITED, "pids.max max");
	ok((st.have & CGS_PSI_CPU) && st.psi_cpu.some.avg10 == 1234,
	   "pressure from the hybrid v2 tree");
	ok((st.have & CGS_PROCS) && st.nprocs == 0, "the job's own cgroup.procs is empty");
	ok(read_fixture_cgroup("cgroup-v1", "slurm/uid_1000/job_77/step_0", &st) == 0 &&
	   st.nprocs == 1 && st.mem_limit == CG_UNLIMITED && st.cpu_ns == 12345,
	   "the step: one process, v1's huge limit is none");
}

static void mounts(void)
{
	struct cgroup_mounts m;

	ok(cgroup_mounts_parse("cgroup2 /sys/fs/cgroup cgroup2 rw 0 0\n", &m) == 0 &&
	   strcmp(m.v2, "/sys/fs/cgroup") == 0 && m.v1[CG_CPU][0] == '\0', "pure v2");
	ok(cgroup_mounts_parse("cgroup /a\\040b cgroup rw,cpu,cpuacct 0 0\n", &m) == 0 &&
	   strcmp(m.v1[CG_CPU], "/a b") == 0 && strcmp(m.v1[CG_CPUACCT], "/a b") == 0,
	   "an escaped blank; cpu,cpuacct share a mount");
	ok(cgroup_mounts_parse("cgroup /x cgroup rw,cpuset 0 0\n", &m) == 0 && m.v1[CG_CPU][0] == '\0',
	   "cpuset is not cpu");
	ok(cgroup_mounts_parse("cgroup /x\\9 cgroup rw,cpu 0 0\n", &m) == 0 && m.v1[CG_CPU][0] == '\0',
	   "a bad escape skips the line");
	ok(cgroup_mounts_parse("cgroup2 /sys/fs/cgroup cgroup2 rw 0 0", &m) == -1 && errno == EINVAL,
	   "a cut-off buffer is refused");
	ok(cgroup_mounts_parse("garbage\n\n  \n", &m) == 0 && m.v2[0] == '\0', "garbage: nothing");
}

static void bad(void)
{
	struct cgroup_stats st = { 0 };
	uint64_t v, r, w;

	ok(cg_value_parse("12x\n", false, &v) == -1, "12x is no number");
	ok(cg_value_parse("max\n", false, &v) == -1, "max only where allowed");
	ok(cg_value_parse("18446744073709551616\n", false, &v) == -1, "2^64 is refused");
	ok(cg_value_parse("5", false, &v) == -1, "no newline: cut off");
	ok(cg_procs_parse("1\n2", &v) == -1, "cgroup.procs cut off");
	ok(cg2_cpu_stat_parse("user_usec 5\n", &st) == -1, "cpu.stat without usage_usec");
	ok(cg2_cpu_stat_parse("usage_usec 18446744073709552\n", &st) == -1,
	   "usage_usec that overflows in ns");
	ok(cg2_io_stat_parse("8:0 rbytes=1 wbytes=2\n8:1 rbytes=x\n", &st) == -1, "io.stat bad value");
	ok(cg2_io_stat_parse("8:0 rbytes=18446744073709551615\n8:1 rbytes=1\n", &st) == -1,
	   "io.stat sum that overflows");
	ok(cg2_io_stat_parse("8:0 =5\n", &st) == -1, "io.stat empty key");
	ok(cg2_io_stat_parse("8:0 newkey=7 rbytes=3\n", &st) == 0 && st.rbytes == 3,
	   "io.stat keys from later kernels are skipped");
	ok(cg2_io_stat_parse("", &st) == 0 && st.rbytes == 0, "an idle cgroup's empty io.stat");
	ok(cg1_blkio_parse("8:0 Read 1\n8:0 Write\n", &r, &w) == -1, "blkio without a number");
	ok(cg1_blkio_parse("8:0 Read 1", &r, &w) == -1, "blkio cut off");
	ok(cg1_blkio_parse("Total 0\n", &r, &w) == 0 && r == 0 && w == 0, "an idle blkio file");
	ok(cg1_memory_stat_parse("swap 0\n", &st) == -1, "memory.stat without rss or cache");
	ok(cg1_cpu_stat_parse("nr_periods 1\nnr_throttled 1\n", &st) == -1, "v1 cpu.stat short");
	ok(cg2_memory_events_parse("oom 1\noom 2\noom_kill 0\n", &st) == -1, "a repeated field");
}

static void globs(void)
{
	ok(path_glob_match("system.slice/*", "system.slice/ssh.service"), "a child of system.slice");
	ok(!path_glob_match("system.slice/*", "system.slice/a/b"), "* never crosses a /");
	ok(path_glob_match("kubepods*/**/pod*", "kubepods/pod12"), "** can be nothing");
	ok(path_glob_match("kubepods*/**/pod*", "kubepods/burstable/pod12"), "** can be one level");
	ok(!path_glob_match("kubepods*/**/pod*", "kubepods/burstable/pod12/ctr"), "but pod* ends it");
	ok(path_glob_match("**/slurm*/uid_*/job_*", "slurm/uid_1000/job_77"), "slurm at the top");
	ok(path_glob_match("**/slurm*/uid_*/job_*", "a/b/slurm_n1/uid_0/job_1"), "and deeper");
	ok(path_glob_match("**/*slurmstepd.scope/job_*", "system.slice/slurmstepd.scope/job_7") &&
	   path_glob_match("**/*slurmstepd.scope/job_*", "system.slice/n1_slurmstepd.scope/job_7"),
	   "a v2 job, one slurmd or several");
	ok(path_glob_match("**/*slurmstepd.scope/s?????????????",
			   "system.slice/slurmstepd.scope/sEKNKTV3WPV500"), "a 26.05 SLUID job");
	ok(!path_glob_match("**/*slurmstepd.scope/s?????????????", "system.slice/slurmstepd.scope/system"),
	   "but not the stepds' waiting area");
	ok(!path_glob_match("*", ".hidden"), "a leading dot needs a dot");
	ok(!path_glob_below("system.slice/*", "system.slice/a"), "nothing below a child matches system.slice/*");
	ok(path_glob_below("system.slice/*", "system.slice"), "but below system.slice");
	ok(!path_glob_below("system.slice/*", "user.slice"), "and nothing below user.slice");
	ok(path_glob_below("**/slurm*/job_*", "a/b/c"), "** could be below anything");
	ok(path_glob_below("kubepods*/**/pod*", "kubepods/x"), "after its first component too");
	ok(path_glob_check("/abs") != NULL, "absolute patterns are refused");
	ok(path_glob_check("a//b") != NULL && path_glob_check("a/") != NULL, "empty components too");
	ok(path_glob_check("a/../b") != NULL, "and ..");
	ok(path_glob_check("system.slice/*") == NULL, "a good pattern passes");
}

static void of_pid(void)
{
	char root[512], out[256];

	fixture_root(root, sizeof(root), "cgroup-v2");
	ok(cgroup_of_pid(root, 4242, out, sizeof(out)) == 0 &&
	   strcmp(out, "system.slice/ssh.service") == 0, "v2: the 0:: line");
	fixture_root(root, sizeof(root), "cgroup-v1");
	ok(cgroup_of_pid(root, 77, out, sizeof(out)) == 0 &&
	   strcmp(out, "slurm/uid_1000/job_77/step_0") == 0, "hybrid: v1 cpu's before v2's slice");
	ok(cgroup_of_pid_parse("0::/\n4:memory:/\n", out, sizeof(out)) == 0 && strcmp(out, "/") == 0,
	   "all at the root: /");
	ok(cgroup_of_pid_parse("0::/\n4:memory:/j\n", out, sizeof(out)) == 0 && strcmp(out, "j") == 0,
	   "another controller when cpu and v2 are at the root");
	ok(cgroup_of_pid_parse("0::nope\n", out, sizeof(out)) == -1, "a path without / is refused");
	ok(cgroup_of_pid_parse("0::/a", out, sizeof(out)) == -1, "cut off");
	ok(cgroup_of_pid_parse("0::/abcdef\n", out, 4) == -1 && errno == ENAMETOOLONG,
	   "too long for the caller");
}

static void pid_cache(void)
{
	char root[512];
	struct cg_pid_cache *c = cg_pid_cache_new(1000);

	fixture_root(root, sizeof(root), "cgroup-v2");
	ok(strcmp(cg_pid_cache_get(c, root, 4242, 7, 0), "system.slice/ssh.service") == 0,
	   "the cache reads a process's cgroup");
	fixture_root(root, sizeof(root), "cgroup-v1");
	ok(strcmp(cg_pid_cache_get(c, root, 4242, 7, 999), "system.slice/ssh.service") == 0,
	   "and keeps it while young (another root is not read)");
	ok(strcmp(cg_pid_cache_get(c, root, 4242, 8, 999), "") == 0,
	   "a new start time is another process: read again (none in this root)");
	ok(strcmp(cg_pid_cache_get(c, root, 77, 1, 2000), "slurm/uid_1000/job_77/step_0") == 0,
	   "another pid reads its own");
	cg_pid_cache_free(c);
}

/* The memory cgroup an OOM victim ran out in (clusterMonOomKill). */
static void oom_of_pid(void)
{
	char out[64];
	bool v1 = false;

	ok(oom_cgroup_parse("12:pids:/a\n9:memory:/slurm/uid_0/job_7\n0::/b\n", out, sizeof(out),
			    &v1) == 0 && v1 && strcmp(out, "slurm/uid_0/job_7") == 0,
	   "a hybrid host: the v1 memory controller's path");
	ok(oom_cgroup_parse("4:cpu,memory:/\n0::/x\n", out, sizeof(out), &v1) == 0 && v1 &&
	   strcmp(out, "/") == 0, "memory among other controllers, at the root: '/'");
	ok(oom_cgroup_parse("0::/kubepods.slice/pod1\n", out, sizeof(out), &v1) == 0 && !v1 &&
	   strcmp(out, "kubepods.slice/pod1") == 0, "pure v2: the unified path");
	ok(oom_cgroup_parse("3:memoryx:/a\n", out, sizeof(out), &v1) == -1 &&
	   oom_cgroup_parse("", out, sizeof(out), &v1) == -1,
	   "no memory controller and no v2 line: refused");
}

/* The inode of a fixture directory: its cgroup id to the maps. */
static uint64_t fixture_ino(const char *rel)
{
	char root[512], path[1024];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", fixture_root(root, sizeof(root), "cgroup-v1"), rel);
	return stat(path, &st) == 0 ? (uint64_t)st.st_ino : 0;
}

/* A v1 victim already exiting reads as "/" in /proc: the helper's memory
 * cgroup id names it, in the memory controller's hierarchy. */
static void oom_by_memcg(void)
{
	char root[512];
	uint64_t job = fixture_ino("sys/fs/cgroup/memory/slurm/uid_1000/job_77");
	uint64_t ujob = fixture_ino("sys/fs/cgroup/unified/slurm/uid_1000/job_77");
	struct oom_victim v = { .cgroup = "/", .v1 = true };
	struct cgid_map *mem = cgid_map_new(0, CGID_MEMORY), *uni = cgid_map_new(0, CGID_UNIFIED);
	char out[256];

	fixture_root(root, sizeof(root), "cgroup-v1");
	ok(!oom_victim_placed(&v, job), "v1 '/' with a memory cgroup id from the helper: not placed");
	ok(oom_victim_placed(&v, 0) && oom_victim_placed(&v, 1),
	   "v1 '/' with none, or the root's: the root it is");
	v.v1 = false;
	ok(oom_victim_placed(&v, job), "v2's '/' is what the kernel says");
	v.cgroup[0] = '\0';
	ok(!oom_victim_placed(&v, 0), "no path read: not placed");
	ok(oom_victim_memcg(root, mem, job, 1, &v) == 0 &&
	   strcmp(v.cgroup, "slurm/uid_1000/job_77") == 0 && v.v1,
	   "the id names the v1 memory cgroup (%s)", v.cgroup);
	ok(v.have_mem && v.limit == 4294967296ull && v.usage == 1073741824ull,
	   "with its limit and usage");
	ok(oom_victim_memcg(root, mem, ujob, 2, &v) == -1, "a unified id is no memory cgroup on v1");
	ok(strcmp(cgid_map_path(uni, root, ujob, 1, out, sizeof(out)), "slurm/uid_1000/job_77") == 0 &&
	   cgid_map_path(uni, root, job, 2, out, sizeof(out))[0] == '\0',
	   "the unified map names unified ids only");
	ok(oom_victim_memcg(root, mem, 0, 3, &v) == -1, "id 0 (the helper read none): refused");
	cgid_map_free(mem);
	cgid_map_free(uni);
}

int main(void)
{
	oom_of_pid();
	oom_by_memcg();
	v2();
	v1();
	mounts();
	bad();
	globs();
	of_pid();
	pid_cache();
	return done_testing();
}
