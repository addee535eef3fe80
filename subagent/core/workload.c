/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * workload.c - what a cgroup is, from its path alone (clusterMonCgroupWorkload).
 *
 * The layouts recognised, most specific first (a Slurm job may run under a
 * slurmd in a pod or a container; a pod's container is also a systemd scope):
 *   Slurm       .../job_<N>[/step_<S>] or, under [<node>_]slurmstepd.scope,
 *               <SLUID>[/step_<S>] (26.05's default)  -> "slurm job ID [step S]"
 *               slurm[_<node>]/uid_<U> (v1)           -> "slurm uid U"
 *   Kubernetes  kubepods[.slice]/.../pod<UID>[/<container>] (cgroupfs) or
 *               ...kubepods-<qos>-pod<UID with _>.slice/<runtime>-<id>.scope
 *               (systemd driver; also under a kubelet --cgroup-root such as
 *               kind's kubelet.slice/kubelet-kubepods...)
 *                                                  -> "k8s pod UID [container ID12]"
 *   Docker      docker/<id> or docker-<id>.scope     -> "docker container ID12"
 *   containerd  cri-containerd-<id>.scope            -> "containerd container ID12"
 *   CRI-O       crio-<id>[.scope]                    -> "crio container ID12"
 *   podman      libpod-<id>[.scope]                  -> "podman container ID12"
 *               {machine,user}-libpod_pod_<id>.slice -> "podman pod ID12"
 *   systemd     the last component, a valid unit name ending in .service,
 *               .scope, .socket, .mount, .swap or .slice -> "systemd UNIT"
 * Anything else has no workload name (""). tests/fixtures/workload/paths
 * holds the real paths each comes from and where they are documented.
 *
 * The path is untrusted (any byte but '/' and NUL may be in a cgroup's
 * name), so only spans checked against a narrow alphabet are copied into a
 * name: the result is always printable ASCII and cut to the caller's cap.
 */
#include "workload.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* Container ids are cut to the twelve hex digits docker and crictl print. */
#define ID_SHOWN 12
/* Deeper than any layout above, even nested three runtimes down. */
#define MAX_DEPTH 32
/* systemd's UNIT_NAME_MAX less its NUL. */
#define UNIT_NAME_LEN 255

struct span {
	const char *s;
	size_t n;
};

/* The components of path into c[]; 0 when it has none or more than max. */
static unsigned split(const char *path, struct span *c, unsigned max)
{
	unsigned k = 0;

	for (const char *p = path;;) {
		size_t n;

		while (*p == '/')
			p++;
		n = strcspn(p, "/");
		if (n == 0)
			return k;
		if (k == max)
			return 0;
		c[k].s = p, c[k].n = n, k++;
		p += n;
	}
}

static bool is_hex(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return n > 0;
}

/* Every byte of s[0..n) in set (n > 0). */
static bool all_in(const char *s, size_t n, const char *set)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] == '\0' || strchr(set, s[i]) == NULL)
			return false;
	return n > 0;
}

static bool is_digits(const char *s, size_t n)
{
	return all_in(s, n, "0123456789");
}

static bool has_prefix(struct span c, const char *pre)
{
	size_t m = strlen(pre);

	return c.n >= m && memcmp(c.s, pre, m) == 0;
}

static bool has_suffix(struct span c, const char *suf)
{
	size_t m = strlen(suf);

	return c.n >= m && memcmp(c.s + c.n - m, suf, m) == 0;
}

static bool equals(struct span c, const char *s)
{
	return c.n == strlen(s) && memcmp(c.s, s, c.n) == 0;
}

/* c without a trailing suffix (when it has it). */
static struct span strip(struct span c, const char *suf)
{
	if (has_suffix(c, suf))
		c.n -= strlen(suf);
	return c;
}

/* Slurm's SLUID as sluid2str() writes it (src/common/sluid.c): 's' and
 * thirteen digits of Crockford's base 32, upper case. */
static bool is_sluid(struct span c)
{
	return c.n == 14 && c.s[0] == 's' &&
	       all_in(c.s + 1, 13, "0123456789ABCDEFGHJKMNPQRSTVWXYZ");
}

/* step_<S>: a number, batch, extern or interactive, N+H for a component of
 * a heterogeneous step (log_build_step_id_str() without prefix or job). */
static bool step_of(struct span c, struct span *step)
{
	if (!has_prefix(c, "step_") || c.n - 5 > 32)
		return false;
	step->s = c.s + 5, step->n = c.n - 5;
	return all_in(step->s, step->n, "0123456789abcdefghijklmnopqrstuvwxyz+");
}

/* The job of component k: job_<N> wherever it is (v1's uid_<U>/job_<N>,
 * v2's slurmstepd.scope/job_<N>, 26.05 with CgroupJobIdPaths=yes), or a
 * SLUID right under [<node>_]slurmstepd.scope, 26.05's default. A SLUID
 * is only trusted there: elsewhere it is any 14-character name. */
static bool job_of(const struct span *c, unsigned k, struct span *id)
{
	if (has_prefix(c[k], "job_")) {
		id->s = c[k].s + 4, id->n = c[k].n - 4;
		return id->n <= 20 && is_digits(id->s, id->n);
	}
	*id = c[k];
	return k > 0 && has_suffix(c[k - 1], "slurmstepd.scope") && is_sluid(c[k]);
}

static bool slurm(const struct span *c, unsigned n, char *out, size_t cap)
{
	struct span id, step, uid;

	for (unsigned k = 0; k < n; k++) {
		if (!job_of(c, k, &id))
			continue;
		if (k + 1 < n && step_of(c[k + 1], &step))
			snprintf(out, cap, "slurm job %.*s step %.*s", (int)id.n, id.s,
				 (int)step.n, step.s);
		else
			snprintf(out, cap, "slurm job %.*s", (int)id.n, id.s);
		return true;
	}
	/* v1's per-user cgroup over the jobs, under CgroupPrepend: "/slurm",
	 * or "/slurm_%n" with several slurmd (plugins/cgroup/v1/xcgroup.c). */
	if (n < 2 || !has_prefix(c[n - 1], "uid_") ||
	    !(equals(c[n - 2], "slurm") || has_prefix(c[n - 2], "slurm_")))
		return false;
	uid.s = c[n - 1].s + 4, uid.n = c[n - 1].n - 4;
	if (uid.n > 10 || !is_digits(uid.s, uid.n))
		return false;
	snprintf(out, cap, "slurm uid %.*s", (int)uid.n, uid.s);
	return true;
}

/* A component of the kubelet's pod tree: kubepods[.slice] or, under the
 * systemd driver, a slice with kubepods as one of its dash-separated
 * words (kubepods-burstable.slice; kind's kubelet-kubepods.slice, where
 * the kubelet's --cgroup-root is /kubelet). */
static bool kubepods_word(struct span c)
{
	for (size_t i = 0; i + 8 <= c.n; i++)
		if (memcmp(c.s + i, "kubepods", 8) == 0 && (i == 0 || c.s[i - 1] == '-') &&
		    (i + 8 == c.n || c.s[i + 8] == '-' || c.s[i + 8] == '.'))
			return true;
	return false;
}

/* The pod uid of c: cgroupfs's pod<UID>, or the systemd driver's
 * ...-pod<UID>.slice, where systemd's escaping turned the uid's '-' into
 * '_'. A static pod's uid is 32 hex digits without dashes. */
static bool pod_uid(struct span c, char *uid, size_t cap)
{
	struct span u = { NULL, 0 };

	if (has_prefix(c, "pod") && !has_suffix(c, ".slice")) {
		u.s = c.s + 3, u.n = c.n - 3;
	} else if (has_suffix(c, ".slice") && kubepods_word(c)) {
		struct span b = strip(c, ".slice");

		for (size_t i = b.n; u.s == NULL && i-- > 0;)
			if (i + 4 <= b.n && memcmp(b.s + i, "-pod", 4) == 0)
				u.s = b.s + i + 4, u.n = b.n - i - 4;
	}
	if (u.s == NULL || u.n < 8 || u.n >= cap || !all_in(u.s, u.n, "0123456789abcdef-_"))
		return false;
	for (size_t i = 0; i < u.n; i++)
		uid[i] = u.s[i] == '_' ? '-' : u.s[i];
	uid[u.n] = '\0';
	return true;
}

/* A container's cgroup: a bare id (docker's and containerd's cgroupfs
 * layouts) or RUNTIME-<id>, a .scope under systemd and a plain directory
 * under CRI-O's and podman's cgroupfs managers. *runtime is "" for a bare
 * id. conmon's crio-conmon-<id> and libpod-conmon-<id> are not containers. */
static bool container_id(struct span c, struct span *id, const char **runtime)
{
	static const struct { const char *prefix, *name; } rt[] = {
		{ "docker-", "docker" }, { "cri-containerd-", "containerd" },
		{ "crio-", "crio" }, { "libpod-", "podman" },
	};
	struct span b = strip(c, ".scope");

	if (b.n == c.n && b.n >= 32 && is_hex(b.s, b.n)) {
		*id = b, *runtime = "";
		return true;
	}
	for (size_t i = 0; i < sizeof(rt) / sizeof(rt[0]); i++) {
		size_t pl = strlen(rt[i].prefix);

		if (!has_prefix(b, rt[i].prefix))
			continue;
		id->s = b.s + pl, id->n = b.n - pl;
		if (id->n >= 32 && is_hex(id->s, id->n)) {
			*runtime = rt[i].name;
			return true;
		}
	}
	return false;
}

static bool kubernetes(const struct span *c, unsigned n, char *out, size_t cap)
{
	char uid[64] = "";
	bool in_pods = false;
	struct span id;
	const char *rt;

	for (unsigned k = 0; k < n; k++) {
		in_pods = in_pods || kubepods_word(c[k]);
		if (!in_pods)
			continue;
		if (uid[0] == '\0') {
			pod_uid(c[k], uid, sizeof(uid));
		} else if (container_id(c[k], &id, &rt)) {
			snprintf(out, cap, "k8s pod %s container %.*s", uid, ID_SHOWN, id.s);
			return true;
		}
	}
	if (uid[0] == '\0')
		return false;
	snprintf(out, cap, "k8s pod %s", uid);
	return true;
}

/* A podman pod's slice with no container below: machine-libpod_pod_<id>
 * (root) or user-libpod_pod_<id> (rootless). Its systemd name is 97
 * characters, too long for a workload name. */
static bool podman_pod(const struct span *c, unsigned n, char *out, size_t cap)
{
	static const char *const pre[] = { "machine-libpod_pod_", "user-libpod_pod_" };

	for (unsigned k = 0; k < n; k++) {
		struct span b = strip(c[k], ".slice");

		for (size_t i = 0; b.n < c[k].n && i < sizeof(pre) / sizeof(pre[0]); i++) {
			size_t pl = strlen(pre[i]);

			if (has_prefix(b, pre[i]) && b.n - pl >= 32 && is_hex(b.s + pl, b.n - pl)) {
				snprintf(out, cap, "podman pod %.*s", ID_SHOWN, b.s + pl);
				return true;
			}
		}
	}
	return false;
}

/* A container outside Kubernetes: docker/<id>, RUNTIME-<id>[.scope]. A bare
 * id anywhere else is too common a shape to call a container. */
static bool container(const struct span *c, unsigned n, char *out, size_t cap)
{
	struct span id;
	const char *rt;

	for (unsigned k = 0; k < n; k++) {
		if (!container_id(c[k], &id, &rt))
			continue;
		if (rt[0] == '\0' && k > 0 && equals(c[k - 1], "docker"))
			rt = "docker";
		if (rt[0] != '\0') {
			snprintf(out, cap, "%s container %.*s", rt, ID_SHOWN, id.s);
			return true;
		}
	}
	return podman_pod(c, n, out, cap);
}

/* The last component, when systemd could have named it: a unit name's
 * alphabet (unit_name_is_valid(): letters, digits, ":-_.\", '@' for a
 * template's instance) and a unit type that has a cgroup. */
static bool systemd_unit(const struct span *c, unsigned n, char *out, size_t cap)
{
	static const char *const kinds[] = { ".service", ".scope", ".socket", ".mount",
					     ".swap", ".slice" };
	static const char unit_chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
					 "0123456789:-_.\\@";
	struct span u;

	if (n == 0)
		return false;
	u = c[n - 1];
	if (u.n > UNIT_NAME_LEN || !all_in(u.s, u.n, unit_chars))
		return false;
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (u.n > strlen(kinds[i]) && has_suffix(u, kinds[i])) {
			snprintf(out, cap, "systemd %.*s", (int)u.n, u.s);
			return true;
		}
	return false;
}

const char *workload_name(const char *path, char *out, size_t cap)
{
	struct span c[MAX_DEPTH];
	unsigned n;

	if (cap == 0)
		return out;
	out[0] = '\0';
	if (path == NULL)
		return out;
	n = split(path, c, MAX_DEPTH);
	if (!slurm(c, n, out, cap) && !kubernetes(c, n, out, cap) &&
	    !container(c, n, out, cap) && !systemd_unit(c, n, out, cap))
		out[0] = '\0';
	return out;
}
