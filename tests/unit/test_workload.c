/* SPDX-License-Identifier: BSD-2-Clause */
/* test_workload.c - workload names from cgroup paths: one row per layout
 * (cgroup v1 and v2, cgroupfs and systemd drivers) and the look-alikes
 * that must not match. */
#include <stdio.h>
#include <string.h>

#include "tap.h"
#include "core/workload.h"

static const struct {
	const char *path, *want;
} cases[] = {
	/* Slurm: v1 (slurm/uid_N/job_N/step_N) and v2 (slurmstepd.scope) */
	{ "slurm/uid_1000/job_77", "slurm job 77" },
	{ "slurm/uid_1000/job_77/step_0", "slurm job 77 step 0" },
	{ "slurm/uid_1000/job_4242/step_batch", "slurm job 4242 step batch" },
	{ "system.slice/slurmstepd.scope/job_4242", "slurm job 4242" },
	{ "system.slice/slurmstepd.scope/job_4242/step_extern/user/task_0",
	  "slurm job 4242 step extern" },
	{ "slurm_node1/uid_0/job_12", "slurm job 12" },
	{ "slurm/uid_1000/job_x7", "" },
	{ "slurm/uid_1000/job_", "" },
	/* systemd units */
	{ "system.slice/ssh.service", "systemd ssh.service" },
	{ "user.slice/user-1000.slice/session-3.scope", "systemd session-3.scope" },
	{ "system.slice", "systemd system.slice" },
	{ "system.slice/var-lib-docker.mount", "systemd var-lib-docker.mount" },
	{ "system.slice/.service", "" },
	/* Kubernetes, cgroupfs driver (v1 and v2) */
	{ "kubepods/burstable/pod6f1c2a3b-1d2e-4f50-9a8b-0c1d2e3f4a5b",
	  "k8s pod 6f1c2a3b-1d2e-4f50-9a8b-0c1d2e3f4a5b" },
	{ "kubepods/burstable/pod6f1c2a3b-1d2e-4f50-9a8b-0c1d2e3f4a5b/"
	  "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
	  "k8s pod 6f1c2a3b-1d2e-4f50-9a8b-0c1d2e3f4a5b container 0123456789ab" },
	{ "kubepods/pod11111111-2222-3333-4444-555555555555",
	  "k8s pod 11111111-2222-3333-4444-555555555555" },
	/* Kubernetes, systemd driver, containerd and cri-o and docker runtimes */
	{ "kubepods.slice/kubepods-burstable.slice/"
	  "kubepods-burstable-pod6f1c2a3b_1d2e_4f50_9a8b_0c1d2e3f4a5b.slice",
	  "k8s pod 6f1c2a3b-1d2e-4f50-9a8b-0c1d2e3f4a5b" },
	{ "kubepods.slice/kubepods-besteffort.slice/"
	  "kubepods-besteffort-pod6f1c2a3b_1d2e_4f50_9a8b_0c1d2e3f4a5b.slice/"
	  "cri-containerd-fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210.scope",
	  "k8s pod 6f1c2a3b-1d2e-4f50-9a8b-0c1d2e3f4a5b container fedcba987654" },
	{ "kubepods.slice/kubepods-pod11111111_2222_3333_4444_555555555555.slice/"
	  "crio-aaaabbbbccccddddeeeeffff0000111122223333444455556666777788889999.scope",
	  "k8s pod 11111111-2222-3333-4444-555555555555 container aaaabbbbcccc" },
	{ "kubepods.slice/kubepods-burstable.slice", "systemd kubepods-burstable.slice" },
	/* Docker, containerd, podman outside Kubernetes */
	{ "docker/0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
	  "docker container 0123456789ab" },
	{ "system.slice/docker-0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef.scope",
	  "docker container 0123456789ab" },
	{ "system.slice/cri-containerd-fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210.scope",
	  "containerd container fedcba987654" },
	{ "machine.slice/libpod-aaaabbbbccccddddeeeeffff0000111122223333444455556666777788889999.scope",
	  "podman container aaaabbbbcccc" },
	{ "system.slice/docker-xyz.scope", "systemd docker-xyz.scope" },
	{ "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", "" },
	/* nothing known */
	{ "", "" },
	{ "/", "" },
	{ "mygroup/sub", "" },
	{ "kubepods/burstable/podXYZ", "" },
};

int main(void)
{
	size_t n = sizeof(cases) / sizeof(cases[0]);
	char out[WORKLOAD_MAX], small[8];

	plan((int)n + 2);
	for (size_t i = 0; i < n; i++) {
		workload_name(cases[i].path, out, sizeof(out));
		ok(strcmp(out, cases[i].want) == 0, "'%s' -> '%s' (got '%s')", cases[i].path,
		   cases[i].want, out);
	}
	workload_name("slurm/uid_1000/job_4242/step_batch", small, sizeof(small));
	ok(strlen(small) == sizeof(small) - 1, "a short buffer gets a cut, terminated name");
	ok(workload_name(NULL, out, sizeof(out))[0] == '\0', "no path: no name");
	return done_testing();
}
