/* SPDX-License-Identifier: BSD-2-Clause */
/* dists.c - load, attach, read and detach distribution rows (dists.h). */
#include "dists.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "common/clustermon_kprobe.h"
#include "common/distspec.h"
#include "probes.h"
#include "tpformat.h"
#include "common/wire.h"

#include "dist.skel.h"

/* Where the cgroup v2 hierarchy is: the whole of /sys/fs/cgroup, or beside
 * the v1 controllers on a hybrid system. */
static const char *const cgroup2_roots[] = { "/sys/fs/cgroup", "/sys/fs/cgroup/unified" };
#define LINE_MAX_TEXT (DIST_SPEC_MAX_TEXT + DIST_CGROUP_MAX + 80)

enum { MODE_VALUE, MODE_THREAD, MODE_KEYED };  /* dist.bpf.c's */

struct dist_row {
	uint32_t id;
	char line[LINE_MAX_TEXT];     /* canonical SPEC[ FILTERS] */
	struct dist_spec spec;
	struct dist_filter filter;
	struct dist_bpf *skel;
	struct bpf_link *links[2];
	int cgroup_fd;
};

static struct dist_row *rows[DIST_MAX_ROWS];
static size_t nrows;

static void row_free(struct dist_row *r)
{
	for (int i = 0; i < 2; i++)
		bpf_link__destroy(r->links[i]);
	dist_bpf__destroy(r->skel);
	if (r->cgroup_fd >= 0)
		close(r->cgroup_fd);
	free(r);
}

/* A field of an event, looked up in its tracefs format. */
static int field_of(const struct probe_spec *ev, const char *name, struct tp_numeric *out,
		    char *why, size_t whylen)
{
	char text[TP_MAX_FORMAT], inner[200];

	if (tpformat_read(ev->category, ev->name, text, sizeof(text), why, whylen) != 0)
		return -1;
	if (tpformat_field(text, name, out, inner, sizeof(inner)) != 0) {
		snprintf(why, whylen, "%.60s:%.60s: %.120s", ev->category, ev->name, inner);
		return -1;
	}
	return 0;
}

/* The constants of the row's copy of dist.bpf.c: mode, fields, filters. */
static int set_constants(struct dist_row *r, char *why, size_t whylen)
{
	struct dist_bpf__rodata *ro = r->skel->rodata;
	struct tp_numeric f;

	ro->filter_tgid = r->filter.f.tgid;
	ro->filter_cpu = r->filter.f.cpu;
	ro->sample_every = r->filter.f.every;
	ro->filter_cgroup = r->cgroup_fd >= 0;
	if (r->spec.kind == DIST_VALUE) {
		ro->mode = MODE_VALUE;
		if (field_of(&r->spec.start, r->spec.field, &f, why, whylen) != 0)
			return -1;
		if (f.is_pointer) {   /* a kernel address: KASLR's secret */
			snprintf(why, whylen, "%.60s:%.60s: field %s holds a kernel address (a "
				 "pointer): not a value to serve", r->spec.start.category,
				 r->spec.start.name, r->spec.field);
			return -1;
		}
		ro->val_off = f.offset;
		ro->val_size = f.size;
		ro->val_signed = f.is_signed != 0;
		return 0;
	}
	ro->mode = r->spec.nkeys == 0 ? MODE_THREAD : MODE_KEYED;
	ro->nkeys = r->spec.nkeys;
	for (unsigned i = 0; i < r->spec.nkeys; i++) {
		if (field_of(&r->spec.start, r->spec.key[i], &f, why, whylen) != 0)
			return -1;
		ro->start_key_off[i] = f.offset;
		ro->start_key_size[i] = f.size;
		if (field_of(&r->spec.end, r->spec.key[i], &f, why, whylen) != 0)
			return -1;
		ro->end_key_off[i] = f.offset;
		ro->end_key_size[i] = f.size;
	}
	return bpf_map__set_max_entries(r->skel->maps.kstart,
					ro->mode == MODE_KEYED ? r->filter.inflight : 1);
}

static int open_cgroup(struct dist_row *r, char *why, size_t whylen)
{
	char path[64 + DIST_CGROUP_MAX + 1];
	struct statfs fs;

	r->cgroup_fd = -1;
	if (r->filter.cgroup[0] == '\0')
		return 0;
	for (size_t i = 0; i < 2; i++) {
		if (statfs(cgroup2_roots[i], &fs) != 0 || fs.f_type != CGROUP2_SUPER_MAGIC)
			continue;
		snprintf(path, sizeof(path), "%s%s", cgroup2_roots[i], r->filter.cgroup);
		r->cgroup_fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (r->cgroup_fd < 0) {
			snprintf(why, whylen, "no cgroup %.200s: %s", path, strerror(errno));
			return -1;
		}
		return 0;
	}
	snprintf(why, whylen, "no cgroup v2 hierarchy at /sys/fs/cgroup or /sys/fs/cgroup/unified");
	return -1;
}

static int attach(struct dist_row *r, char *why, size_t whylen)
{
	bool pair = r->spec.kind == DIST_LATENCY;
	__u32 zero = 0;
	int err;

	if (open_cgroup(r, why, whylen) != 0)
		return -1;
	if ((r->skel = dist_bpf__open()) == NULL) {
		snprintf(why, whylen, "cannot open the BPF object: %s", strerror(errno));
		return -1;
	}
	if (set_constants(r, why, whylen) != 0)
		return -1;
	bpf_program__set_autoload(r->skel->progs.dist_end, pair);
	if ((err = dist_bpf__load(r->skel)) != 0) {
		snprintf(why, whylen, "the kernel refused the BPF program: %s", strerror(-err));
		return -1;
	}
	if (r->cgroup_fd >= 0 &&
	    bpf_map__update_elem(r->skel->maps.cgroup, &zero, sizeof(zero), &r->cgroup_fd,
				 sizeof(r->cgroup_fd), BPF_ANY) != 0) {
		snprintf(why, whylen, "cannot filter on cgroup %s: %s", r->filter.cgroup,
			 strerror(errno));
		return -1;
	}
	for (int i = 0; i < (pair ? 2 : 1); i++) {
		const struct probe_spec *ev = i == 0 ? &r->spec.start : &r->spec.end;
		struct bpf_program *p = i == 0 ? r->skel->progs.dist_start : r->skel->progs.dist_end;

		r->links[i] = bpf_program__attach_tracepoint(p, ev->category, ev->name);
		if (r->links[i] == NULL) {
			snprintf(why, whylen, "attaching to %s:%s failed: %s", ev->category,
				 ev->name, strerror(errno));
			return -1;
		}
	}
	return 0;
}

static struct dist_row **find(uint32_t id)
{
	for (size_t i = 0; i < nrows; i++)
		if (rows[i]->id == id)
			return &rows[i];
	return NULL;
}

static void do_dist(const struct wire_request *req, FILE *out)
{
	struct dist_row **old, *r;
	char why[256];

	if ((r = calloc(1, sizeof(*r))) == NULL) {
		wire_write_err(out, WIRE_ERR_FAILED, "out of memory");
		return;
	}
	r->id = req->id;
	r->cgroup_fd = -1;
	r->spec = req->dist;
	r->filter = req->dfilter;
	dist_line_format(&r->spec, &r->filter, r->line, sizeof(r->line));
	old = find(r->id);
	if (old != NULL && strcmp((*old)->line, r->line) == 0) {
		wire_write_ok(out, WIRE_OK_UNCHANGED);
		free(r);
		return;
	}
	if (old == NULL && nrows == DIST_MAX_ROWS) {
		wire_write_err(out, WIRE_ERR_BUSY, "at most %u distributions", DIST_MAX_ROWS);
		free(r);
		return;
	}
	if (attach(r, why, sizeof(why)) != 0) {
		wire_write_err(out, WIRE_ERR_FAILED, "%s", why);
		row_free(r);
		return;
	}
	if (old != NULL) {
		row_free(*old);
		*old = r;
	} else {
		rows[nrows++] = r;
	}
	wire_write_ok(out, WIRE_OK_ATTACHED);
}

static void do_undist(uint32_t id, FILE *out)
{
	struct dist_row **r = find(id);

	if (r == NULL) {
		wire_write_err(out, WIRE_ERR_INVALID, "no dist %u", id);
		return;
	}
	row_free(*r);
	*r = rows[--nrows];
	wire_write_ok(out, WIRE_OK_PLAIN);
}

/* A row whose maps cannot be read reports zeros rather than vanish, so
 * the count announced stays true. */
static void report(const struct dist_row *r, FILE *out)
{
	unsigned n = possible_cpus();
	struct cm_dist_stats *v = calloc(n, sizeof(*v));
	struct wire_reply line = { .kind = WIRE_R_DIST, .u.dist.id = r->id };
	struct cm_hist h;
	__u32 zero = 0;

	if (v == NULL || bpf_map__lookup_elem(r->skel->maps.stats, &zero, sizeof(zero), v,
					      n * sizeof(*v), 0) != 0 ||
	    hist_read_map(r->skel->maps.hist, &h) != 0) {
		memset(&h, 0, sizeof(h));
		n = 0;
	}
	for (unsigned c = 0; c < n; c++) {
		line.u.dist.hits += v[c].hits;
		line.u.dist.sampled += v[c].sampled;
		line.u.dist.misses += v[c].misses;
	}
	free(v);
	line.u.dist.sum = h.sum;
	memcpy(line.u.dist.slot, h.slot, sizeof(line.u.dist.slot));
	wire_write_reply(out, &line);
}

bool dists_serve(const struct wire_request *req, FILE *out)
{
	switch (req->verb) {
	case WIRE_DIST: do_dist(req, out); break;
	case WIRE_UNDIST: do_undist(req->id, out); break;
	case WIRE_DISTS:
		wire_write_count(out, nrows);
		for (size_t i = 0; i < nrows; i++)
			report(rows[i], out);
		break;
	default: return false;
	}
	return true;
}

void dists_clear(void)
{
	while (nrows > 0)
		row_free(rows[--nrows]);
}
