/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * workload.c - what a cgroup is, from its path alone (clusterMonCgroupWorkload).
 *
 * The layouts recognised, most specific first (a pod's container is also a
 * systemd scope; a Slurm step also sits under slurmstepd.scope):
 *   Kubernetes  kubepods[.slice]/.../pod<UID>[/<container id>] (cgroupfs) or
 *               .../kubepods-<qos>-pod<UID with _>.slice/<runtime>-<id>.scope
 *               (systemd driver)              -> "k8s pod UID container ID12"
 *   Slurm       .../job_<N>[/step_<S>]         -> "slurm job N step S"
 *   Docker      docker/<id> or docker-<id>.scope     -> "docker container ID12"
 *   containerd  cri-containerd-<id>.scope outside a pod -> "containerd container ID12"
 *   podman      libpod-<id>.scope                    -> "podman container ID12"
 *   systemd     the last component ending in .service, .scope, .socket,
 *               .mount, .swap or .slice        -> "systemd UNIT"
 * Anything else has no workload name (""). Container ids are cut to the
 * twelve hex digits docker and crictl print.
 */
#include "workload.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#define ID_SHOWN 12

static bool is_hex(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return n > 0;
}

/* Component k (0-based) of path: *start and *len; false past the last. */
static bool component(const char *path, unsigned k, const char **start, size_t *len)
{
	const char *p = path;

	while (*p == '/')
		p++;
	for (;;) {
		size_t n = strcspn(p, "/");

		if (n == 0)
			return false;
		if (k-- == 0) {
			*start = p;
			*len = n;
			return true;
		}
		p += n;
		while (*p == '/')
			p++;
	}
}

static bool has_prefix(const char *s, size_t n, const char *pre)
{
	size_t m = strlen(pre);

	return n >= m && memcmp(s, pre, m) == 0;
}

static bool has_suffix(const char *s, size_t n, const char *suf)
{
	size_t m = strlen(suf);

	return n >= m && memcmp(s + n - m, suf, m) == 0;
}

/* A container id in component c: bare 64-hex, or RUNTIME-<hex>.scope.
 * *runtime gets "docker", "containerd", "crio", "podman" or "" (bare). */
static bool container_id(const char *c, size_t n, const char **id, size_t *idlen,
			 const char **runtime)
{
	static const struct { const char *prefix, *name; } rt[] = {
		{ "docker-", "docker" }, { "cri-containerd-", "containerd" },
		{ "crio-", "crio" }, { "libpod-", "podman" },
	};

	if (n >= 32 && is_hex(c, n)) {
		*id = c, *idlen = n, *runtime = "";
		return true;
	}
	if (!has_suffix(c, n, ".scope"))
		return false;
	for (size_t i = 0; i < sizeof(rt) / sizeof(rt[0]); i++) {
		size_t pl = strlen(rt[i].prefix), hl;

		if (!has_prefix(c, n, rt[i].prefix))
			continue;
		hl = n - pl - strlen(".scope");
		if (hl >= 32 && is_hex(c + pl, hl)) {
			*id = c + pl, *idlen = hl, *runtime = rt[i].name;
			return true;
		}
	}
	return false;
}

/* "pod<UID>" or "kubepods-<qos>-pod<UID>.slice"; the uid with '-' for '_'. */
static bool pod_uid(const char *c, size_t n, char *uid, size_t cap)
{
	const char *p = NULL;
	size_t len = 0;

	if (has_prefix(c, n, "pod") && !has_suffix(c, n, ".slice")) {
		p = c + 3, len = n - 3;
	} else if (has_prefix(c, n, "kubepods-") && has_suffix(c, n, ".slice")) {
		const char *at = NULL;

		for (size_t i = 0; i + 3 <= n; i++)
			if (memcmp(c + i, "pod", 3) == 0)
				at = c + i;
		if (at == NULL || at == c + 4) /* the "pods" of "kubepods" */
			return false;
		p = at + 3, len = (size_t)(c + n - strlen(".slice") - p);
	}
	if (p == NULL || len < 8 || len >= cap)
		return false;
	for (size_t i = 0; i < len; i++) {
		char ch = p[i] == '_' ? '-' : p[i];

		if (!(is_hex(&ch, 1) || ch == '-'))
			return false;
		uid[i] = ch;
	}
	uid[len] = '\0';
	return true;
}

static bool kubernetes(const char *path, char *out, size_t cap)
{
	const char *c, *id = NULL, *rt;
	size_t n, idlen = 0;
	char uid[64] = "";
	bool in_pods = false;

	for (unsigned k = 0; component(path, k, &c, &n); k++) {
		if (has_prefix(c, n, "kubepods"))
			in_pods = true;
		if (!in_pods)
			continue;
		if (uid[0] == '\0')
			pod_uid(c, n, uid, sizeof(uid));
		else if (container_id(c, n, &id, &idlen, &rt))
			break;
	}
	if (uid[0] == '\0')
		return false;
	if (id != NULL)
		snprintf(out, cap, "k8s pod %s container %.*s", uid, ID_SHOWN, id);
	else
		snprintf(out, cap, "k8s pod %s", uid);
	return true;
}

/* job_<digits>, then step_<word> in the component after it, if any. */
static bool slurm(const char *path, char *out, size_t cap)
{
	const char *c;
	size_t n;

	for (unsigned k = 0; component(path, k, &c, &n); k++) {
		const char *s;
		size_t sn, d = 4;

		if (!has_prefix(c, n, "job_") || n == 4)
			continue;
		while (d < n && c[d] >= '0' && c[d] <= '9')
			d++;
		if (d != n || n - 4 > 20)
			continue;
		if (component(path, k + 1, &s, &sn) && has_prefix(s, sn, "step_") && sn > 5 &&
		    sn - 5 <= 32)
			snprintf(out, cap, "slurm job %.*s step %.*s", (int)(n - 4), c + 4,
				 (int)(sn - 5), s + 5);
		else
			snprintf(out, cap, "slurm job %.*s", (int)(n - 4), c + 4);
		return true;
	}
	return false;
}

/* A container outside Kubernetes: docker/<id>, RUNTIME-<id>.scope. */
static bool container(const char *path, char *out, size_t cap)
{
	const char *c, *prev = NULL, *id, *rt;
	size_t n, prevlen = 0, idlen;

	for (unsigned k = 0; component(path, k, &c, &n); k++) {
		if (container_id(c, n, &id, &idlen, &rt)) {
			if (rt[0] == '\0' && prev != NULL && prevlen == 6 &&
			    memcmp(prev, "docker", 6) == 0)
				rt = "docker";
			if (rt[0] != '\0') {
				snprintf(out, cap, "%s container %.*s", rt, ID_SHOWN, id);
				return true;
			}
		}
		prev = c, prevlen = n;
	}
	return false;
}

static bool systemd_unit(const char *path, char *out, size_t cap)
{
	static const char *const kinds[] = { ".service", ".scope", ".socket", ".mount",
					     ".swap", ".slice" };
	const char *c, *last = NULL;
	size_t n, lastlen = 0;

	for (unsigned k = 0; component(path, k, &c, &n); k++)
		last = c, lastlen = n;
	if (last == NULL)
		return false;
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (lastlen > strlen(kinds[i]) && has_suffix(last, lastlen, kinds[i])) {
			snprintf(out, cap, "systemd %.*s", (int)lastlen, last);
			return true;
		}
	return false;
}

const char *workload_name(const char *path, char *out, size_t cap)
{
	if (cap == 0)
		return out;
	out[0] = '\0';
	if (path == NULL)
		return out;
	if (!kubernetes(path, out, cap) && !slurm(path, out, cap) &&
	    !container(path, out, cap) && !systemd_unit(path, out, cap))
		out[0] = '\0';
	return out;
}
