/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fuzz_parsers.c - feeds arbitrary bytes to every /proc text parser:
 * stat, meminfo, vmstat, pressure, /proc/PID/{stat,schedstat,status},
 * the Tcp tables of /proc/net/snmp and netstat, the cgroup v1 and v2
 * files with /proc/self/mounts and /proc/PID/cgroup, and each line as a
 * cgroup path to name (core/workload.c).
 *
 * With libFuzzer:
 *   tests/fuzz/run-fuzzers.sh (see tests/fuzz/README)
 * Without it (-DFUZZ_SMOKE_MAIN): smoke.h's TAP driver, run by make check.
 *
 * Besides not crashing, every accepted input must obey the parsers'
 * contracts; a violation aborts, which both drivers report.
 */
#include <stdint.h>
#include <stdio.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "collect/cgroup.h"
#include "collect/collect.h"
#include "collect/netstat.h"
#include "collect/oomvictim.h"
#include "collect/proc.h"
#include "core/workload.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int cond, const char *what)
{
	if (!cond) {
		fprintf(stderr, "contract broken: %s\n", what);
		abort();
	}
}

static void fuzz_cpustat(const char *text)
{
	struct cpustat_cpu cpus[4];
	struct cpustat st = { .cpus = cpus, .cap = 4 };

	if (cpustat_parse(text, &st) != 0) {
		check(st.ncpu == 0, "refused /proc/stat leaves no rows");
		return;
	}
	check(st.ncpu <= st.cap, "ncpu within cap");
	for (unsigned i = 1; i < st.ncpu; i++)
		check(cpus[i].cpu > cpus[i - 1].cpu, "cpu numbers increase");
}

static void fuzz_meminfo(const char *text)
{
	struct meminfo mi;

	if (meminfo_parse(text, &mi) != 0)
		check(mi.total_kb == 0 && mi.free_kb == 0, "refused meminfo is zeroed");
}

static void fuzz_vmstat(const char *text)
{
	struct vmstat vm;

	if (vmstat_parse(text, &vm) != 0)
		check(vm.pgfault == 0 && vm.pgmajfault == 0, "refused vmstat is zeroed");
}

static void fuzz_pressure(const char *text)
{
	struct pressure p;

	if (pressure_parse(text, &p) != 0) {
		check(!p.have_some && !p.have_full, "refused pressure is zeroed");
		return;
	}
	check(p.have_some || p.have_full, "an accepted pressure file has a line");
	check(p.some.avg10 <= 10000 && p.some.avg60 <= 10000 && p.some.avg300 <= 10000,
	      "some averages within 0..10000");
	check(p.full.avg10 <= 10000 && p.full.avg60 <= 10000 && p.full.avg300 <= 10000,
	      "full averages within 0..10000");
}

static void fuzz_proc_pid(const char *text)
{
	struct proc_sample ps;
	uint64_t a = 7, b = 7;
	uint32_t last;

	memset(&ps, 0, sizeof(ps));
	if (procstat_parse(text, &ps) == 0) {
		check(ps.pid > 0, "an accepted stat has a pid");
		check(memchr(ps.comm, '\0', sizeof(ps.comm)) != NULL, "comm is terminated");
	}
	if (schedstat_parse(text, &a, &b) != 0)
		check(a == 7 && b == 7, "a refused schedstat writes nothing");
	procstatus_parse(text, &ps);
	check(loadavg_last_pid_parse(text, &last) != 0 || last <= INT_MAX,
	      "an accepted loadavg names a pid");
}

static void fuzz_netstat(const char *text)
{
	static const char *const keys[] = { "ActiveOpens", "RetransSegs", "ListenDrops" };
	uint64_t v[3];
	uint32_t found = 0;

	if (netstat_parse(text, "Tcp", keys, 3, v, &found) != 0)
		check(found == 0, "a refused table finds nothing");
	check(found < 8, "found bits only for the keys asked");
	netstat_parse(text, "TcpExt", keys, 3, v, &found);
}

static void fuzz_cgroup(const char *text)
{
	struct cgroup_stats st;
	struct cgroup_mounts m;
	uint64_t r = 7, w = 7;
	char path[32];
	bool v1 = false;

	memset(&st, 0, sizeof(st));
	if (cg2_cpu_stat_parse(text, &st) == 0)
		check(st.have & CGS_CPU, "an accepted cpu.stat has the usage");
	if (cg2_io_stat_parse(text, &st) == 0)
		check(st.have & CGS_IO, "an accepted io.stat sets its bit");
	cg2_memory_events_parse(text, &st);
	cg2_memory_stat_parse(text, &st);
	cg1_cpu_stat_parse(text, &st);
	cg1_oom_control_parse(text, &st);
	cg1_memory_stat_parse(text, &st);
	if (cg1_blkio_parse(text, &r, &w) != 0)
		check(r == 0 && w == 0, "a refused blkio file sums nothing");
	cg_value_parse(text, true, &r);
	cg_procs_parse(text, &r);
	if (cgroup_mounts_parse(text, &m) == 0) {
		check(memchr(m.v2, '\0', sizeof(m.v2)) != NULL, "mount point terminated");
		check(m.v2[0] == '\0' || m.v2[0] == '/', "mount points are absolute");
	}
	if (cgroup_of_pid_parse(text, path, sizeof(path)) == 0)
		check(strlen(path) < sizeof(path), "the cgroup path fits");
	if (oom_cgroup_parse(text, path, sizeof(path), &v1) == 0)
		check(strlen(path) < sizeof(path) && path[0] != '\0', "the memory cgroup's path fits");
}

/* The name of path: terminated, printable, one of workload.c's kinds, the
 * same twice, and cut to a prefix of itself in a smaller buffer. */
static void fuzz_workload_path(const char *path)
{
	static const char *const kinds[] = {
		"slurm job ", "slurm uid ", "k8s pod ", "docker container ",
		"containerd container ", "crio container ", "podman container ",
		"podman pod ", "systemd ",
	};
	char out[WORKLOAD_MAX], again[WORKLOAD_MAX], cut[WORKLOAD_MAX];
	size_t n, cap = 1 + strlen(path) % WORKLOAD_MAX, known = 0;

	workload_name(path, out, sizeof(out));
	n = strnlen(out, sizeof(out));
	check(n < sizeof(out), "the name is terminated");
	for (size_t i = 0; i < n; i++)
		check(out[i] >= 0x20 && out[i] < 0x7f, "the name is printable");
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		known |= strncmp(out, kinds[i], strlen(kinds[i])) == 0;
	check(n == 0 || known, "a name is one of the kinds");
	check(strcmp(workload_name(path, again, sizeof(again)), out) == 0, "the same twice");
	workload_name(path, cut, cap);
	check(strlen(cut) == (n < cap ? n : cap - 1) && strncmp(cut, out, strlen(cut)) == 0,
	      "a smaller buffer gets a prefix");
}

/* Each line as a path, in an exact-size copy so ASan sees a read past it. */
static void fuzz_workload(const char *text)
{
	for (const char *p = text; *p;) {
		size_t len = strcspn(p, "\n");
		char *line = malloc(len + 1);

		if (line == NULL)
			return;
		memcpy(line, p, len);
		line[len] = '\0';
		fuzz_workload_path(line);
		free(line);
		p += len + (p[len] == '\n');
	}
}


int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* An exact-size heap copy: ASan catches any read past the NUL. */
	char *text = malloc(size + 1);

	if (text == NULL)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	fuzz_cpustat(text);
	fuzz_meminfo(text);
	fuzz_vmstat(text);
	fuzz_pressure(text);
	fuzz_proc_pid(text);
	fuzz_netstat(text);
	fuzz_cgroup(text);
	fuzz_workload(text);
	free(text);
	return 0;
}

#ifdef FUZZ_SMOKE_MAIN
static const char *const fuzz_splices[] = {
	"cpu ", "cpu7 ", "ctxt ", "procs_running ", "MemTotal:", "MemFree:", " kB",
	"pgfault ", "pgmajfault ", "some ", "full ", "avg10=", "total=", "\n", " ",
	"18446744073709551615", "18446744073709551616", "99999999999999999999999", ".", "-",
	"Tcp:", "TcpExt:", "ActiveOpens", ")", "(", "Uid:\t",
	"usage_usec ", "8:0 ", "rbytes=", "wios=", " Read ", "Total ", "oom_kill ", "max\n",
	"0::/", "cgroup2 ", " cgroup ", "\\040", "total_rss ",
	"/", "\t", "job_", "step_", "uid_", "slurm_n1", "slurmstepd.scope/", "sEKNKTV3WPV500",
	"kubepods", "-pod", ".slice", ".scope", "_", "cri-containerd-", "crio-", "libpod-",
	"docker/", "machine-libpod_pod_", "0123456789abcdef0123456789abcdef", "\xff",
};
static const size_t fuzz_nsplices = sizeof(fuzz_splices) / sizeof(fuzz_splices[0]);
static const char *const fuzz_seeds[] = {
	"proc-basic/proc/stat", "proc-basic/proc/meminfo", "proc-basic/proc/vmstat",
	"proc-basic/proc/pressure/memory", "proc-offline/proc/stat", "proc-old/proc/stat",
	"proc-old/proc/meminfo", "bad/binary", "proc-procs/proc/1/stat",
	"proc-procs/proc/1/status", "proc-procs/proc/1/schedstat",
	"cgroup-v2/sys/fs/cgroup/system.slice/ssh.service/cpu.stat",
	"cgroup-v2/sys/fs/cgroup/system.slice/ssh.service/io.stat",
	"cgroup-v2/sys/fs/cgroup/system.slice/ssh.service/memory.stat",
	"cgroup-v1/sys/fs/cgroup/blkio/slurm/uid_1000/job_77/blkio.throttle.io_service_bytes_recursive",
	"cgroup-v1/proc/self/mounts", "cgroup-v1/proc/77/cgroup", "workload/paths",
};
static const size_t fuzz_nseeds = sizeof(fuzz_seeds) / sizeof(fuzz_seeds[0]);
#include "smoke.h"
#endif
