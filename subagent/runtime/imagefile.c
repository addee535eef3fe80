/* SPDX-License-Identifier: BSD-2-Clause */
/* imagefile.c - create, grow and retire the published image file. */
#include "imagefile.h"
#include "common/clock.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#define PAGE 4096u

struct image_file {
	char path[PATH_MAX];
	char tmp[PATH_MAX + 16];
	int fd;
	bool committed;
	dev_t dev;
	ino_t ino;
	size_t size;
	struct cm_image_header h;   /* what the file's header holds */
	uint32_t *seqs[CM_IMAGE_MAX_SECTIONS]; /* what each section's chunk numbers are */
};

static size_t round_page(size_t n)
{
	return (n + PAGE - 1) / PAGE * PAGE;
}

/* Lays the sections out after the header, each with a data area of
 * cap[i] (whole pages) and its chunk numbers. */
static size_t lay_out(struct cm_image_header *h, const size_t *cap)
{
	size_t at = round_page(sizeof(*h));

	for (uint32_t i = 0; i < h->nsections; i++) {
		struct cm_image_section *s = &h->sec[i];

		s->cap = cap[i];
		s->seq = 0;
		s->len = 0;
		s->off = at;
		at += cap[i];
		s->seqs_off = at;
		at += round_page(4 * cm_image_chunks(cap[i]));
	}
	return at;
}

static void free_seqs(struct image_file *f)
{
	for (unsigned i = 0; i < CM_IMAGE_MAX_SECTIONS; i++)
		free(f->seqs[i]);
}

static int pwrite_all(int fd, const void *buf, size_t len, uint64_t off)
{
	const unsigned char *p = buf;

	while (len > 0) {
		ssize_t n = pwrite(fd, p, len, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = EIO;
			return -1;
		}
		p += n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return 0;
}

static int file_write(void *ctx, const void *buf, size_t len, uint64_t off)
{
	const struct image_file *f = ctx;

	return pwrite_all(f->fd, buf, len, off);
}

static void init_header(struct cm_image_header *h, const struct cm_image_header *layout)
{
	memset(h, 0, sizeof(*h));
	memcpy(h->magic, CM_IMAGE_MAGIC, sizeof(h->magic));
	h->version = CM_IMAGE_VERSION;
	h->header_size = sizeof(*h);
	h->state = CM_IMAGE_LIVE;
	h->writer_pid = (uint32_t)getpid();
	h->nsections = layout->nsections;
	h->nregs = layout->nregs;
	memcpy(h->sec, layout->sec, sizeof(h->sec));
	memcpy(h->reg, layout->reg, sizeof(h->reg));
	h->heartbeat_ns = cm_clock_ns();
	h->stale_after_ms = layout->stale_after_ms;
}

/* Opens f->tmp and backs all of its f->size bytes with storage. */
static int reserve_file(struct image_file *f)
{
	struct stat st;
	int rc;

	unlink(f->tmp);
	f->fd = open(f->tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0640);
	/* Only the owner writes; the group (snmpd's) reads; nobody else. */
	if (f->fd < 0 || fchmod(f->fd, 0640) != 0)
		return -1;
	rc = posix_fallocate(f->fd, 0, (off_t)f->size);
	if (rc != 0) {
		errno = rc;
		return -1;
	}
	if (fstat(f->fd, &st) != 0)
		return -1;
	f->dev = st.st_dev;
	f->ino = st.st_ino;
	return pwrite_all(f->fd, &f->h, sizeof(f->h), 0);
}

struct image_file *image_file_create(const char *path, const struct cm_image_header *layout,
				     const size_t *cap, size_t *bytes)
{
	struct image_file *f = calloc(1, sizeof(*f));
	size_t rounded[CM_IMAGE_MAX_SECTIONS];
	int saved;

	*bytes = 0;
	if (f == NULL)
		return NULL;
	f->fd = -1;
	for (unsigned i = 0; i < CM_IMAGE_MAX_SECTIONS; i++)
		rounded[i] = round_page(cap[i]);
	init_header(&f->h, layout);
	f->size = *bytes = lay_out(&f->h, rounded);
	for (unsigned i = 0; i < f->h.nsections; i++)
		if ((f->seqs[i] = calloc(cm_image_chunks(rounded[i]) + 1, 4)) == NULL)
			goto fail;
	f->h.file_size = f->size;
	if (snprintf(f->path, sizeof(f->path), "%s", path) >= (int)sizeof(f->path) ||
	    snprintf(f->tmp, sizeof(f->tmp), "%s.%ld", path, (long)getpid()) >= (int)sizeof(f->tmp)) {
		errno = ENAMETOOLONG;
		goto fail;
	}
	if (reserve_file(f) != 0)
		goto fail;
	return f;
fail:
	saved = errno;
	if (f->fd >= 0) {
		close(f->fd);
		unlink(f->tmp);
	}
	free_seqs(f);
	free(f);
	errno = saved;
	return NULL;
}

int image_file_commit(struct image_file *f)
{
	if (f->committed)
		return 0;
	if (rename(f->tmp, f->path) != 0)
		return -1;
	f->committed = true;
	return 0;
}

int image_file_write(struct image_file *f, unsigned sec, const void *data, size_t len,
		     const unsigned char *dirty)
{
	if (sec >= f->h.nsections) {
		errno = EINVAL;
		return -1;
	}
	if (len > f->h.sec[sec].cap) {
		errno = ENOBUFS;
		return -1;
	}
	return cm_image_put_section(&f->h, sec, data, len, dirty, f->seqs[sec], file_write, f);
}

/* Section i's data from old into new (the section sec is not: its
 * writer writes it whole next); data another process cut short is left
 * out (its next publication fills it). */
static int copy_section(struct image_file *old, struct image_file *f, unsigned i)
{
	const struct cm_image_section *s = &old->h.sec[i];
	unsigned char *p;
	int rc = 0;

	if (s->len == 0 || s->seq & 1u)
		return 0;
	p = malloc(s->len);
	if (p == NULL)
		return -1;
	if (pread(old->fd, p, s->len, (off_t)s->off) == (ssize_t)s->len)
		rc = image_file_write(f, i, p, s->len, NULL);
	free(p);
	return rc;
}

int image_file_grow(struct image_file **fp, unsigned sec, size_t len, size_t *bytes)
{
	struct image_file *old = *fp, *f;
	size_t cap[CM_IMAGE_MAX_SECTIONS] = { 0 };
	uint32_t superseded = CM_IMAGE_SUPERSEDED;

	for (unsigned i = 0; i < old->h.nsections; i++)
		cap[i] = (size_t)old->h.sec[i].cap;
	/* An eighth to spare: the image stays within 1.3 times its data. */
	cap[sec] = round_page(len + len / 8);
	f = image_file_create(old->path, &old->h, cap, bytes);
	if (f == NULL)
		return -1;
	for (unsigned i = 0; i < old->h.nsections; i++)
		if (copy_section(old, f, i) != 0)
			goto fail;
	/* A file still being filled is committed with the rest of the tick. */
	if (old->committed && image_file_commit(f) != 0)
		goto fail;
	/* Readers of the old file follow the path at once. */
	pwrite_all(old->fd, &superseded, sizeof(superseded), offsetof(struct cm_image_header, state));
	image_file_abandon(old);
	*fp = f;
	return 0;
fail:
	image_file_close(f);
	return -1;
}

size_t image_file_cap(const struct image_file *f, unsigned sec)
{
	return sec < f->h.nsections ? (size_t)f->h.sec[sec].cap : 0;
}

int image_file_beat(struct image_file *f, uint64_t ns, uint32_t stale_after_ms)
{
	f->h.stale_after_ms = stale_after_ms;
	f->h.heartbeat_ns = ns;
	/* stale_after_ms, heartbeat_ns and writer_pid lie together: one store */
	return pwrite_all(f->fd, &f->h.stale_after_ms,
			  offsetof(struct cm_image_header, writer_pid) -
			  offsetof(struct cm_image_header, stale_after_ms),
			  offsetof(struct cm_image_header, stale_after_ms));
}

bool image_file_intact(const struct image_file *f)
{
	static struct cm_image_header seen;
	struct stat st;

	if (fstat(f->fd, &st) != 0 || st.st_nlink == 0 || (size_t)st.st_size != f->size)
		return false;
	if (f->committed &&
	    (stat(f->path, &st) != 0 || st.st_dev != f->dev || st.st_ino != f->ino))
		return false;
	return pread(f->fd, &seen, sizeof(seen), 0) == (ssize_t)sizeof(seen) &&
	       memcmp(&seen, &f->h, sizeof(seen)) == 0;
}

/* The path still names this file. */
static bool ours(const struct image_file *f)
{
	struct stat st;

	return stat(f->committed ? f->path : f->tmp, &st) == 0 && st.st_dev == f->dev &&
	       st.st_ino == f->ino;
}

void image_file_close(struct image_file *f)
{
	uint32_t stopped = CM_IMAGE_STOPPED;

	if (f == NULL)
		return;
	pwrite_all(f->fd, &stopped, sizeof(stopped), offsetof(struct cm_image_header, state));
	if (ours(f))
		unlink(f->committed ? f->path : f->tmp);
	image_file_abandon(f);
}

void image_file_abandon(struct image_file *f)
{
	if (f == NULL)
		return;
	close(f->fd);
	free_seqs(f);
	free(f);
}

const char *image_file_path(const struct image_file *f)
{
	return f->path;
}

int image_file_state(struct image_file *f, unsigned sec, uint32_t flags, uint64_t held_ns,
		     uint64_t fresh_ns)
{
	uint64_t at = offsetof(struct cm_image_header, sec) +
		      (uint64_t)sec * sizeof(struct cm_image_section);
	bool asleep = flags & CM_SEC_ASLEEP;
	struct cm_image_section *s;

	if (sec >= f->h.nsections)
		return 0;
	s = &f->h.sec[sec];
	/* Readers take a section held only when it is not asleep as well:
	 * asleep is stored before the times change and cleared after. */
	if (asleep && s->flags != flags) {
		s->flags = flags;
		if (pwrite_all(f->fd, &s->flags, sizeof(flags),
			       at + offsetof(struct cm_image_section, flags)) != 0)
			return -1;
	}
	if (s->held_ns != held_ns || s->fresh_ns != fresh_ns) {
		s->held_ns = held_ns;
		s->fresh_ns = fresh_ns;
		/* held_ns and fresh_ns lie together: one store */
		if (pwrite_all(f->fd, &s->held_ns, 2 * sizeof(held_ns),
			       at + offsetof(struct cm_image_section, held_ns)) != 0)
			return -1;
	}
	if (s->flags == flags)
		return 0;
	s->flags = flags;
	return pwrite_all(f->fd, &s->flags, sizeof(flags), at + offsetof(struct cm_image_section, flags));
}

/*
 * The demand file beside the image: made by us, mode 0620 so the reader's
 * group (the directory's, setgid in the packages) may write it and nobody
 * else. Opened for reading only, never following a link, and only when it
 * is a regular file of ours: the reader writes it, not we.
 */
int image_demand_open(const char *image_path)
{
	char path[PATH_MAX];
	struct stat st;
	int fd;

	if (snprintf(path, sizeof(path), "%s%s", image_path, CM_IMAGE_DEMAND_SUFFIX) >=
	    (int)sizeof(path))
		return -1;
	fd = open(path, O_RDONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0620);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    ((st.st_mode & 07777) != 0620 && fchmod(fd, 0620) != 0)) {
		close(fd);
		return -1;
	}
	return fd;
}

int image_demand_watch(const char *image_path)
{
	char path[PATH_MAX];
	int fd;

	if (snprintf(path, sizeof(path), "%s%s", image_path, CM_IMAGE_DEMAND_SUFFIX) >=
	    (int)sizeof(path))
		return -1;
	fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (fd >= 0 && inotify_add_watch(fd, path, IN_MODIFY | IN_DONT_FOLLOW) < 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}

bool image_demand_drain(int watch)
{
	/* Events are at least an inotify_event each; what they say is not
	 * needed: any of them means the record may have moved. */
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	bool any = false;

	while (read(watch, buf, sizeof(buf)) > 0)
		any = true;
	return any;
}

bool image_demand_same(int fd, const char *image_path)
{
	char path[PATH_MAX];
	struct stat a, b;

	return snprintf(path, sizeof(path), "%s%s", image_path, CM_IMAGE_DEMAND_SUFFIX) <
		       (int)sizeof(path) &&
	       fstat(fd, &a) == 0 && lstat(path, &b) == 0 && a.st_dev == b.st_dev &&
	       a.st_ino == b.st_ino;
}

int image_demand_read(int fd, struct cm_image_demand *out)
{
	unsigned char buf[sizeof(*out) + 1];
	ssize_t n = pread(fd, buf, sizeof(buf), 0);

	return n < 0 ? -1 : cm_image_demand_check(buf, (size_t)n, out);
}
