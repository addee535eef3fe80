/* SPDX-License-Identifier: BSD-2-Clause */
/* trace.c - trace sessions: load, drain into CTF, end (see trace.h). */
#include "trace.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "probes.h"
#include "tpformat.h"
#include "trace.skel.h"

/* CTF packets of 64 KiB: big enough that a packet header is noise, small
 * enough that a session ended by a crash loses little. */
#define TRACE_PACKET (64u << 10)
#define TRACE_PREFIX (CTF_HEADER_BYTES + CTF_CONTEXT_BYTES)

static int64_t realtime_offset_ns(void)
{
	struct timespec rt, mono;

	clock_gettime(CLOCK_REALTIME, &rt);
	clock_gettime(CLOCK_MONOTONIC, &mono);
	return ((int64_t)rt.tv_sec - (int64_t)mono.tv_sec) * 1000000000 +
	       ((int64_t)rt.tv_nsec - (int64_t)mono.tv_nsec);
}

/* The built-in sensor's fields: struct cm_switch_rec. */
static const struct ctf_event_class switch_class = {
	"sched_switch", 7, {
		{ "prev_comm", CTF_TEXT, 16 },
		{ "prev_pid", CTF_SIGNED, 4 },
		{ "prev_prio", CTF_SIGNED, 4 },
		{ "prev_state", CTF_SIGNED, 8 },
		{ "next_comm", CTF_TEXT, 16 },
		{ "next_pid", CTF_SIGNED, 4 },
		{ "next_prio", CTF_SIGNED, 4 },
	},
};

static bool is_sched_switch(const struct probe_spec *s)
{
	return s->kind == SPEC_TRACEPOINT && strcmp(s->category, "sched") == 0 &&
	       strcmp(s->name, "sched_switch") == 0;
}

/* The event class of a tracepoint from tracefs; raw tracepoints have only
 * the common context (their arguments are kernel pointers). */
static int event_class(struct trace_session *t, char *why, size_t whylen)
{
	char text[TP_MAX_FORMAT];
	int n;

	if (t->spec.kind == SPEC_RAW_TRACEPOINT) {
		snprintf(t->cls.name, sizeof(t->cls.name), "%s", t->spec.name);
		t->payload = 0;
		return 0;
	}
	if (is_sched_switch(&t->spec)) {
		_Static_assert(sizeof(struct cm_switch_rec) == 56, "the class's layout");
		t->cls = switch_class;
		t->payload = sizeof(struct cm_switch_rec);
		t->builtin_switch = true;
		return 0;
	}
	snprintf(t->cls.name, sizeof(t->cls.name), "%.63s:%.63s", t->spec.category, t->spec.name);
	if (tpformat_read(t->spec.category, t->spec.name, text, sizeof(text), why, whylen) != 0)
		return -1;
	if (tpformat_parse(text, &t->cls, &t->payload, why, whylen) != 0)
		return -1;
	if ((n = tpformat_pointers(text, t->zero, CTF_MAX_FIELDS)) < 0) {
		snprintf(why, whylen, "more than %d pointer fields", CTF_MAX_FIELDS);
		return -1;
	}
	t->nzero = (unsigned)n;
	return 0;
}

/* The record's payload, its pointer fields zeroed (into buf when any). */
static const uint8_t *without_pointers(const struct trace_session *t, const uint8_t *payload,
				       uint8_t buf[TP_MAX_PAYLOAD])
{
	if (t->nzero == 0 || t->payload > TP_MAX_PAYLOAD)
		return payload;
	memcpy(buf, payload, t->payload);
	for (unsigned i = 0; i < t->nzero; i++)
		if ((size_t)t->zero[i].offset + t->zero[i].bytes <= t->payload)
			memset(buf + t->zero[i].offset, 0, t->zero[i].bytes);
	return buf;
}

/*
 * The trace base is reached from "/" one component at a time, each opened
 * O_DIRECTORY|O_NOFOLLOW and checked on its fd: a directory owned by root
 * (or by the helper's own uid), writable by nobody else. An ancestor may be
 * writable by others only when it is sticky (/tmp): then nobody but its
 * owner renames or removes what is in it. Whoever may write in a directory
 * on the way could otherwise swap what comes after it for a symbolic link
 * between the check and the use.
 */
static bool trusted_owner(const struct stat *st)
{
	return st->st_uid == 0 || st->st_uid == geteuid();
}

static const char *owner_name(void)
{
	return geteuid() == 0 ? "root" : "root or the helper's user";
}

/* Why the directory path (opened as fd, stat st) is no trace base, or
 * on the way to one; NULL when it is fine. */
static const char *distrust(const struct stat *st, bool base)
{
	if (!S_ISDIR(st->st_mode))
		return "is not a directory";
	if (!trusted_owner(st))
		return NULL;  /* said by the caller, with the owner's name */
	if (base && (st->st_mode & (S_IWGRP | S_IWOTH)) != 0)
		return "is writable by its group or others";
	if (!base && (st->st_mode & (S_IWGRP | S_IWOTH)) != 0 && (st->st_mode & S_ISVTX) == 0)
		return "is writable by its group or others (and not sticky)";
	return NULL;
}

/* The next component of path after *p (slashes skipped): its length, 0 at
 * the end. */
static size_t component(const char **p)
{
	while (**p == '/')
		(*p)++;
	return strcspn(*p, "/");
}

int trace_open_base(const char *base, gid_t gid, char *why, size_t whylen)
{
	char path[TRACE_DIR_MAX], name[256];
	const char *p = base, *bad;
	size_t len, done = 1;   /* path is "/" so far */
	struct stat st;
	int fd, next;

	if (base[0] != '/') {
		snprintf(why, whylen, "trace base %.200s is not an absolute path", base);
		return -1;
	}
	if (strlen(base) >= sizeof(path)) {
		snprintf(why, whylen, "trace base %.200s: name too long", base);
		return -1;
	}
	fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	strcpy(path, "/");
	if (fd < 0 || fstat(fd, &st) != 0) {
		snprintf(why, whylen, "cannot open /: %s", strerror(errno));
		goto fail;
	}
	while ((len = component(&p)) > 0) {
		const char *rest;
		bool last, made = false;

		if (len >= sizeof(name)) {
			snprintf(why, whylen, "trace base %.200s: name too long", base);
			goto fail;
		}
		memcpy(name, p, len);
		name[len] = '\0';
		p += len;
		rest = p;
		last = component(&rest) == 0;
		/* the directory we are in, before going further */
		bad = distrust(&st, false);
		if (bad != NULL || !trusted_owner(&st)) {
			if (bad != NULL)
				snprintf(why, whylen, "trace base %.200s: %.200s %s", base, path, bad);
			else
				snprintf(why, whylen, "trace base %.200s: %.200s is not owned by %s",
					 base, path, owner_name());
			goto fail;
		}
		if (strcmp(name, "..") == 0 || strcmp(name, ".") == 0) {
			snprintf(why, whylen, "trace base %.200s: has a . or .. component", base);
			goto fail;
		}
		snprintf(path + done, sizeof(path) - done, "%s%s", done > 1 ? "/" : "", name);
		done = strlen(path);
		if (mkdirat(fd, name, last ? 0750 : 0755) == 0)
			made = true;
		else if (errno != EEXIST)
			goto fail_errno;
		next = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0) {
			if ((errno == ELOOP || errno == ENOTDIR) &&
			    fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
				snprintf(why, whylen, last ? "trace base %.200s is a symbolic link"
							   : "trace base %.200s: %.200s is a symbolic link",
					 base, path);
			else if (errno == ELOOP || errno == ENOTDIR)
				snprintf(why, whylen, last ? "trace base %.200s is not a directory"
							   : "trace base %.200s: %.200s is not a directory",
					 base, path);
			else
				goto fail_errno;
			goto fail;
		}
		close(fd);
		fd = next;
		/* A directory made here: its mode (mkdirat's passed through the
		 * umask) and group set on the fd, never by name. */
		if (made && (fchmod(fd, last ? 0750 : 0755) != 0 ||
			     (last && gid != (gid_t)-1 && fchown(fd, (uid_t)-1, gid) != 0)))
			goto fail_errno;
		if (fstat(fd, &st) != 0)
			goto fail_errno;
	}
	bad = distrust(&st, true);
	if (bad != NULL || !trusted_owner(&st)) {
		if (bad != NULL)
			snprintf(why, whylen, "trace base %.200s %s", base, bad);
		else
			snprintf(why, whylen, "trace base %.200s is not owned by %s", base,
				 owner_name());
		goto fail;
	}
	return fd;
fail_errno:
	snprintf(why, whylen, "trace base %.200s: cannot create or open %.200s: %s", base, path,
		 strerror(errno));
fail:
	if (fd >= 0)
		close(fd);
	return -1;
}

int trace_make_base(const char *base, gid_t gid, char *why, size_t whylen)
{
	int fd = trace_open_base(base, gid, why, whylen);

	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

/*
 * The session's directory: trace-ID-STAMP-RANDOM, made with mkdirat in the
 * base's fd, so nothing but the helper made it (EEXIST is a refusal, never
 * a directory to use), and a name nobody knows before the reply says it:
 * 64 bits from getrandom after the UTC stamp (kept for people sorting by
 * name). The session keeps the directory's fd and makes its files in it.
 */
static int make_dir(struct trace_session *t, const char *base, int basefd, char *why,
		    size_t whylen)
{
	char stamp[32], name[96];
	time_t now = time(NULL);
	uint8_t rnd[8];
	struct tm tm;
	struct stat st;

	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm);
	if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd)) {
		snprintf(why, whylen, "cannot name the trace directory: getrandom: %s",
			 strerror(errno));
		return -1;
	}
	snprintf(name, sizeof(name), "trace-%u-%s-", t->id, stamp);
	for (size_t i = 0; i < sizeof(rnd); i++)
		snprintf(name + strlen(name), sizeof(name) - strlen(name), "%02x", rnd[i]);
	if (snprintf(t->dir, sizeof(t->dir), "%s/%s", base, name) >= (int)sizeof(t->dir)) {
		snprintf(why, whylen, "trace directory under %.200s: name too long", base);
		return -1;
	}
	if (mkdirat(basefd, name, 0755) != 0) {
		snprintf(why, whylen, "cannot create %.200s: %s", t->dir, strerror(errno));
		return -1;
	}
	t->dirfd = openat(basefd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (t->dirfd < 0 || fstat(t->dirfd, &st) != 0) {
		snprintf(why, whylen, "cannot open %.200s: %s", t->dir, strerror(errno));
		return -1;
	}
	if (!trusted_owner(&st)) {  /* swapped in the instant after mkdirat */
		snprintf(why, whylen, "%.200s is not the helper's", t->dir);
		return -1;
	}
	/* mkdirat's mode went through the umask: set on the fd, never by name. */
	if (fchmod(t->dirfd, 0755) != 0) {
		snprintf(why, whylen, "cannot set the mode of %.200s: %s", t->dir, strerror(errno));
		return -1;
	}
	return 0;
}

static int write_metadata(struct trace_session *t, char *why, size_t whylen)
{
	struct ctf_trace ct = { .nclasses = 1, .classes = &t->cls };
	char spec[SPEC_MAX_TEXT + 1], filter[64];

	if (getrandom(ct.uuid, sizeof(ct.uuid), 0) != sizeof(ct.uuid))
		memset(ct.uuid, t->id & 0xff, sizeof(ct.uuid));
	ct.uuid[6] = (uint8_t)((ct.uuid[6] & 0x0f) | 0x40);  /* a version 4 UUID */
	ct.uuid[8] = (uint8_t)((ct.uuid[8] & 0x3f) | 0x80);
	gethostname(ct.hostname, sizeof(ct.hostname) - 1);
	spec_format(&t->spec, spec, sizeof(spec));
	filter_format(&t->filter, filter, sizeof(filter));
	snprintf(ct.description, sizeof(ct.description), "%s%s", spec, filter);
	ct.clock_offset_ns = realtime_offset_ns();
	memcpy(t->uuid, ct.uuid, sizeof(t->uuid));
	if (ctf_write_metadata(&ct, t->dirfd, &t->meta_bytes) != 0) {
		snprintf(why, whylen, "cannot write %.200s/metadata: %s", t->dir, strerror(errno));
		return -1;
	}
	return 0;
}

/* Bytes the trace takes: on disk and in packets not yet written. */
static uint64_t trace_bytes(const struct trace_session *t)
{
	uint64_t n = t->meta_bytes;

	for (unsigned c = 0; t->cpus != NULL && c < t->ncpu; c++) {
		const struct ctf_stream *s = &t->cpus[c].stream;

		n += s->bytes + (s->pkt != NULL && s->used > TRACE_PREFIX ? s->used : 0);
	}
	return n;
}

/* Room kept for the empty packet a stream writes before its first one
 * when that one reports losses (ctfstream.c): not written yet, so not in
 * trace_bytes, but the byte budget must hold it. */
static uint64_t baselines(const struct trace_session *t)
{
	uint64_t n = 0;

	for (unsigned c = 0; c < t->ncpu; c++)
		if (t->cpus[c].stream.pkt != NULL && t->cpus[c].stream.seq == 0)
			n += TRACE_PREFIX;
	return n;
}

static int open_stream(struct trace_cpu *tc, unsigned cpu)
{
	if (tc->stream.pkt != NULL)
		return 0;
	if (tc->t->dirfd < 0) {
		errno = EBADF;
		return -1;
	}
	return ctf_stream_open(&tc->stream, tc->t->dirfd, cpu, tc->t->uuid, TRACE_PACKET);
}

static void fail(struct trace_session *t, const char *what)
{
	t->state = TRACE_FAILED;
	snprintf(t->reason, sizeof(t->reason), "%s: %s", what, strerror(errno));
}

/* One record out of a CPU's buffer (bytes the kernel wrote: checked). */
static int on_record(void *ctx, void *data, size_t size)
{
	struct trace_cpu *tc = ctx;
	struct trace_session *t = tc->t;
	const struct cm_trace_rec *r = data;
	/* Tracepoint records start with the kernel's common fields. */
	size_t skip = t->payload > 0 && !t->builtin_switch ? TP_COMMON_BYTES : 0;
	size_t want = skip + t->payload;
	struct ctf_stream *s = &tc->stream;
	uint8_t buf[TP_MAX_PAYLOAD];
	uint64_t need, total;

	if (t->state == TRACE_FAILED || size < sizeof(*r) || r->len != want ||
	    size < sizeof(*r) + want)
		return 0;
	if (open_stream(tc, (unsigned)(tc - t->cpus)) != 0) {
		fail(t, "cannot create a stream file");
		return -1;
	}
	need = ctf_event_bytes(t->payload) + (s->used + ctf_event_bytes(t->payload) > s->cap ?
						       TRACE_PREFIX : 0);
	total = trace_bytes(t) + baselines(t) + need;
	if (!t->out_of_budget)
		t->limit = total > t->limits.max_bytes ? "size: MaxBytes reached"
			   : t->budget != NULL ? budget_charge(t->budget, t->budget_slot, total)
			   : NULL;
	if (t->limit != NULL) {
		t->out_of_budget = true;
		t->dropped_at_end++;     /* beyond MaxBytes, -Q or -R: counted as lost */
		ctf_stream_lost(s, 1);
		return 0;
	}
	if (ctf_stream_event(s, 0, r->ts, (int32_t)r->pid, (int32_t)r->tid,
			     without_pointers(t, (const uint8_t *)(r + 1) + skip, buf),
			     t->payload) != 0) {
		fail(t, errno == ENOSPC ? "disk full" : "writing the trace failed");
		return -1;
	}
	t->records++;
	return 0;
}

/* Events the kernel skipped the session's program for: a classic
 * tracepoint's programs do not run on a CPU where a task was preempted in
 * a BPF system call. Counted by the kernel per program, not per CPU, so
 * they are in Lost but in no stream's discarded count. */
static uint64_t program_misses(const struct trace_session *t)
{
	struct bpf_program *progs[] = { t->skel->progs.trace_tp, t->skel->progs.trace_raw,
					t->skel->progs.trace_switch };

	for (size_t i = 0; i < sizeof(progs) / sizeof(progs[0]); i++) {
		struct bpf_prog_info info;
		__u32 len = sizeof(info);

		memset(&info, 0, sizeof(info));
		if (bpf_program__fd(progs[i]) >= 0 &&
		    bpf_obj_get_info_by_fd(bpf_program__fd(progs[i]), &info, &len) == 0)
			return info.recursion_misses;
	}
	return t->misses;
}

/* Per-CPU lost counters into the streams (readers show them discarded). */
static void apply_lost(struct trace_session *t)
{
	struct cm_trace_stats *v = calloc(t->ncpu, sizeof(*v));
	__u32 zero = 0;

	if (v == NULL || t->skel == NULL ||
	    bpf_map__lookup_elem(t->skel->maps.stats, &zero, sizeof(zero), v,
				 t->ncpu * sizeof(*v), 0) != 0) {
		free(v);
		return;
	}
	t->misses = program_misses(t);
	t->lost = t->dropped_at_end + t->misses;
	for (unsigned c = 0; c < t->ncpu; c++) {
		struct trace_cpu *tc = &t->cpus[c];

		t->lost += v[c].lost;
		if (v[c].lost > tc->lost_seen && open_stream(tc, c) == 0) {
			ctf_stream_lost(&tc->stream, v[c].lost - tc->lost_seen);
			tc->lost_seen = v[c].lost;
		}
	}
	free(v);
}

/* One ring buffer per possible CPU, made before loading: the first one is
 * also the template the verifier checks the array's values against. */
static int make_buffers(struct trace_session *t, char *why, size_t whylen)
{
	t->buffer_fds = malloc(t->ncpu * sizeof(int));
	if (t->buffer_fds == NULL)
		return -1;
	for (unsigned c = 0; c < t->ncpu; c++)
		t->buffer_fds[c] = -1;
	for (unsigned c = 0; c < t->ncpu; c++) {
		int fd = bpf_map_create(BPF_MAP_TYPE_RINGBUF, NULL, 0, 0, t->limits.buffer_bytes,
					NULL);

		t->buffer_fds[c] = fd;
		if (fd < 0 ||
		    (c == 0 ? (t->rb = ring_buffer__new(fd, on_record, &t->cpus[c], NULL)) == NULL
			    : ring_buffer__add(t->rb, fd, on_record, &t->cpus[c]) != 0)) {
			snprintf(why, whylen, "cannot make the ring buffer of CPU %u: %s", c,
				 strerror(errno));
			return -1;
		}
	}
	return 0;
}

/* Each CPU's buffer into its slot of the loaded program's array. */
static int place_buffers(struct trace_session *t, char *why, size_t whylen)
{
	int outer = bpf_map__fd(t->skel->maps.buffers);

	for (__u32 c = 0; c < t->ncpu; c++)
		if (bpf_map_update_elem(outer, &c, &t->buffer_fds[c], BPF_ANY) != 0) {
			snprintf(why, whylen, "cannot place the ring buffer of CPU %u: %s", c,
				 strerror(errno));
			return -1;
		}
	return 0;
}

static int load(struct trace_session *t, char *why, size_t whylen)
{
	bool raw = t->spec.kind == SPEC_RAW_TRACEPOINT;
	struct bpf_program *prog;
	int err;

	t->skel = trace_bpf__open();
	if (t->skel == NULL) {
		snprintf(why, whylen, "cannot open the BPF object: %s", strerror(errno));
		return -1;
	}
	t->skel->rodata->filter_tgid = t->filter.tgid;
	t->skel->rodata->filter_cpu = t->filter.cpu;
	t->skel->rodata->sample_every = t->filter.every;
	t->skel->rodata->raw_len = t->payload > 0 ? (__u32)(TP_COMMON_BYTES + t->payload) : 0;
	t->skel->rodata->wakeup_bytes = t->limits.buffer_bytes / 4;
	bpf_map__set_max_entries(t->skel->maps.buffers, t->ncpu);
	if (make_buffers(t, why, whylen) != 0)
		return -1;
	bpf_map__set_inner_map_fd(t->skel->maps.buffers, t->buffer_fds[0]);
	prog = raw ? t->skel->progs.trace_raw : t->builtin_switch ? t->skel->progs.trace_switch
								   : t->skel->progs.trace_tp;
	bpf_program__set_autoload(t->skel->progs.trace_tp, prog == t->skel->progs.trace_tp);
	bpf_program__set_autoload(t->skel->progs.trace_raw, prog == t->skel->progs.trace_raw);
	bpf_program__set_autoload(t->skel->progs.trace_switch,
				  prog == t->skel->progs.trace_switch);
	err = trace_bpf__load(t->skel);
	if (err != 0) {
		snprintf(why, whylen, "the kernel refused the BPF program: %s", strerror(-err));
		return -1;
	}
	if (place_buffers(t, why, whylen) != 0)
		return -1;
	t->start_ns = cm_clock_ns();
	t->skel->data->end_ns = t->start_ns + (uint64_t)t->limits.duration_ms * 1000000u;
	if (raw)
		t->link = bpf_program__attach_raw_tracepoint(prog, t->spec.name);
	else if (t->builtin_switch)
		t->link = bpf_program__attach(prog);
	else
		t->link = bpf_program__attach_tracepoint(prog, t->spec.category, t->spec.name);
	if (t->link == NULL) {
		snprintf(why, whylen, "attaching to %s failed: %s", t->cls.name, strerror(errno));
		return -1;
	}
	return 0;
}

static void release(struct trace_session *t)
{
	if (t->dirfd >= 0)
		close(t->dirfd);  /* no file is made in it after this */
	t->dirfd = -1;
	bpf_link__destroy(t->link);
	t->link = NULL;
	ring_buffer__free(t->rb);
	t->rb = NULL;
	for (unsigned c = 0; t->buffer_fds != NULL && c < t->ncpu; c++)
		if (t->buffer_fds[c] >= 0)
			close(t->buffer_fds[c]);
	free(t->buffer_fds);
	t->buffer_fds = NULL;
	trace_bpf__destroy(t->skel);
	t->skel = NULL;
}

/* Opens the base and asks the budget: the base's fd, -1 (why said), or -2
 * (no room now). */
static int admit(struct trace_session *t, const char *base, gid_t gid, char *why,
		 size_t whylen)
{
	uint64_t start = t->limits.max_bytes < BUDGET_START_BYTES ? t->limits.max_bytes
								    : BUDGET_START_BYTES;
	int basefd = trace_open_base(base, gid, why, whylen);

	if (basefd < 0 || t->budget == NULL ||
	    budget_admit(t->budget, basefd, t->ncpu, t->limits.buffer_bytes, start, why,
			 whylen) == 0)
		return basefd;
	close(basefd);
	return -2;
}

/* Booked once it runs: its ring buffers and its metadata. */
static void book(struct trace_session *t)
{
	const char *name = strrchr(t->dir, '/');

	if (t->budget == NULL)
		return;
	t->budget_slot = budget_take(t->budget, name + 1,
				     (uint64_t)t->ncpu * t->limits.buffer_bytes);
	budget_charge(t->budget, t->budget_slot, t->meta_bytes);
}

int trace_start(struct trace_session *t, const char *base, gid_t gid, char *why,
		size_t whylen)
{
	int basefd;

	t->dirfd = -1;
	t->budget_slot = -1;
	t->ncpu = possible_cpus();
	t->cpus = calloc(t->ncpu, sizeof(*t->cpus));
	if (t->cpus == NULL) {
		snprintf(why, whylen, "out of memory");
		return -1;
	}
	for (unsigned c = 0; c < t->ncpu; c++) {
		t->cpus[c].t = t;
		t->cpus[c].stream.fd = -1;
	}
	basefd = admit(t, base, gid, why, whylen);
	if (basefd < 0 || event_class(t, why, whylen) != 0 ||
	    make_dir(t, base, basefd, why, whylen) != 0 || write_metadata(t, why, whylen) != 0 ||
	    load(t, why, whylen) != 0) {
		if (basefd >= 0)
			close(basefd);
		release(t);
		free(t->cpus);
		t->cpus = NULL;
		return basefd == -2 ? -2 : -1;
	}
	close(basefd);
	book(t);
	t->state = TRACE_RUNNING;
	return 0;
}

int trace_fd(const struct trace_session *t)
{
	return t->state == TRACE_RUNNING && t->rb != NULL ? ring_buffer__epoll_fd(t->rb) : -1;
}

int trace_ms_left(const struct trace_session *t, uint64_t now_ns)
{
	uint64_t end = t->start_ns + (uint64_t)t->limits.duration_ms * 1000000u;

	if (t->state != TRACE_RUNNING || now_ns >= end)
		return 0;
	return (int)((end - now_ns + 999999) / 1000000);
}

int trace_next_drain_ms(const struct trace_session *t, uint64_t now_ns)
{
	int left = trace_ms_left(t, now_ns);

	return left < TRACE_DRAIN_MS ? left : TRACE_DRAIN_MS;
}

void trace_drain(struct trace_session *t, uint64_t now_ns)
{
	if (t->state != TRACE_RUNNING)
		return;
	if (t->budget != NULL)
		budget_look(t->budget, t->dirfd);
	apply_lost(t);
	ring_buffer__consume(t->rb);
	if (t->state == TRACE_FAILED)
		trace_end(t, TRACE_FAILED, t->reason);
	else if (t->out_of_budget)
		trace_end(t, TRACE_FINISHED, t->limit);
	else if (trace_ms_left(t, now_ns) == 0)
		trace_end(t, TRACE_FINISHED, "duration: DurationMs reached");
}

void trace_end(struct trace_session *t, enum trace_state st, const char *reason)
{
	char keep[sizeof(t->reason)];

	if (t->skel == NULL)
		return;
	snprintf(keep, sizeof(keep), "%s", reason);
	bpf_link__destroy(t->link);  /* no new events; what is buffered is written */
	t->link = NULL;
	if (t->state == TRACE_RUNNING)
		ring_buffer__consume(t->rb);
	apply_lost(t);
	for (unsigned c = 0; c < t->ncpu; c++)
		if (t->cpus[c].stream.fd >= 0 && ctf_stream_close(&t->cpus[c].stream) != 0 &&
		    t->state != TRACE_FAILED)
			fail(t, errno == ENOSPC ? "disk full" : "writing the trace failed");
	if (t->state != TRACE_FAILED) {
		t->state = st;
		snprintf(t->reason, sizeof(t->reason), "%s", keep);
	}
	t->end_ns = cm_clock_ns();
	if (t->budget != NULL)
		budget_release(t->budget, t->budget_slot, trace_bytes(t));
	t->budget_slot = -1;
	release(t);
}

void trace_free(struct trace_session *t)
{
	if (t->skel != NULL)
		trace_end(t, TRACE_FINISHED, "stopped");
	for (unsigned c = 0; t->cpus != NULL && c < t->ncpu; c++)
		free(t->cpus[c].stream.pkt);
	free(t->cpus);
	t->cpus = NULL;
}

_Static_assert(TRACE_RUNNING == (int)WIRE_TRACE_RUNNING && TRACE_FAILED == (int)WIRE_TRACE_FAILED,
	       "a session's state is written as the protocol's");

int trace_report(const struct trace_session *t, uint64_t now_ns, FILE *out)
{
	uint64_t end = t->state == TRACE_RUNNING ? now_ns : t->end_ns;
	struct wire_reply r = { .kind = WIRE_R_TRACE };

	r.u.trace.id = t->id;
	r.u.trace.state = (enum wire_trace_state)t->state;
	r.u.trace.records = t->records;
	r.u.trace.lost = t->lost;
	r.u.trace.bytes = trace_bytes(t);
	r.u.trace.elapsed_ms = (end - t->start_ns) / 1000000u;
	if (strlen(t->dir) > WIRE_MAX_DIR)
		return 0;
	memcpy(r.u.trace.dir, t->dir, strlen(t->dir) + 1);
	snprintf(r.u.trace.reason, sizeof(r.u.trace.reason), "%s", t->reason);
	return wire_write_reply(out, &r) == 0;
}
