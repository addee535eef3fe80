/* SPDX-License-Identifier: BSD-2-Clause */
/* imagefile.c - create, grow and retire the published image file. */
#include "imagefile.h"
#include "core/clock.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define PAGE 4096u

struct image_file {
	char path[PATH_MAX];
	struct cm_image_header *h;
	size_t size;
};

static size_t round_page(size_t n)
{
	return (n + PAGE - 1) / PAGE * PAGE;
}

/* Lays the sections out after the header, each with two buffers of cap[i]. */
static size_t lay_out(struct cm_image_header *h, const size_t *cap)
{
	size_t at = round_page(sizeof(*h));

	for (uint32_t i = 0; i < h->nsections; i++) {
		struct cm_image_section *s = &h->sec[i];

		s->cap = cap[i];
		s->active = 0;
		for (int b = 0; b < 2; b++) {
			s->buf[b].seq = 0;
			s->buf[b].len = 0;
			s->buf[b].off = at;
			at += cap[i];
		}
	}
	return at;
}

static struct image_file *map_new(const char *path, const struct cm_image_header *layout,
				  const size_t *cap)
{
	struct image_file *f = calloc(1, sizeof(*f));
	char tmp[PATH_MAX + 16];
	struct cm_image_header h;
	int fd = -1, saved;
	void *map;

	if (f == NULL)
		return NULL;
	if (snprintf(f->path, sizeof(f->path), "%s", path) >= (int)sizeof(f->path) ||
	    snprintf(tmp, sizeof(tmp), "%s.%ld", path, (long)getpid()) >= (int)sizeof(tmp)) {
		errno = ENAMETOOLONG;
		goto fail;
	}
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, CM_IMAGE_MAGIC, sizeof(h.magic));
	h.version = CM_IMAGE_VERSION;
	h.header_size = sizeof(h);
	h.state = CM_IMAGE_LIVE;
	h.writer_pid = (uint32_t)getpid();
	h.nsections = layout->nsections;
	h.nregs = layout->nregs;
	memcpy(h.sec, layout->sec, sizeof(h.sec));
	memcpy(h.reg, layout->reg, sizeof(h.reg));
	f->size = lay_out(&h, cap);
	h.file_size = f->size;
	h.heartbeat_ns = cm_clock_ns();
	h.stale_after_ms = layout->stale_after_ms;
	unlink(tmp);
	fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0640);
	/* Only the owner writes; the group (snmpd's) reads; nobody else. */
	if (fd < 0 || fchmod(fd, 0640) != 0 || ftruncate(fd, (off_t)f->size) != 0 ||
	    pwrite(fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h))
		goto fail;
	map = mmap(NULL, f->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		goto fail;
	if (rename(tmp, path) != 0) {
		saved = errno;
		munmap(map, f->size);
		errno = saved;
		goto fail;
	}
	close(fd);
	f->h = map;
	return f;
fail:
	saved = errno;
	if (fd >= 0) {
		close(fd);
		unlink(tmp);
	}
	free(f);
	errno = saved;
	return NULL;
}

struct image_file *image_file_create(const char *path, const struct cm_image_header *layout,
				     size_t min_cap)
{
	size_t cap[CM_IMAGE_MAX_SECTIONS];

	for (unsigned i = 0; i < CM_IMAGE_MAX_SECTIONS; i++)
		cap[i] = round_page(min_cap);
	return map_new(path, layout, cap);
}

/* A file with room for len bytes in section sec, holding every other
 * section's current buffer; the old file is marked superseded. */
static int grow(struct image_file **fp, unsigned sec, size_t len)
{
	struct image_file *old = *fp, *f;
	size_t cap[CM_IMAGE_MAX_SECTIONS];

	for (unsigned i = 0; i < old->h->nsections; i++)
		cap[i] = (size_t)old->h->sec[i].cap;
	cap[sec] = round_page(len * 2);
	f = map_new(old->path, old->h, cap);
	if (f == NULL)
		return -1;
	for (unsigned i = 0; i < old->h->nsections; i++) {
		const struct cm_image_section *s = &old->h->sec[i];
		const struct cm_image_buf *b = &s->buf[s->active & 1u];

		if (i != sec && b->len > 0)
			cm_image_write_section(f->h, i, (unsigned char *)old->h + b->off, b->len);
	}
	__atomic_store_n(&old->h->state, CM_IMAGE_SUPERSEDED, __ATOMIC_RELEASE);
	munmap(old->h, old->size);
	free(old);
	*fp = f;
	return 0;
}

int image_file_write(struct image_file **f, unsigned sec, const void *data, size_t len)
{
	if (sec >= (*f)->h->nsections) {
		errno = EINVAL;
		return -1;
	}
	if (len > (*f)->h->sec[sec].cap && grow(f, sec, len) != 0)
		return -1;
	cm_image_write_section((*f)->h, sec, data, len);
	return 0;
}

void image_file_beat(struct image_file *f, uint64_t ns, uint32_t stale_after_ms)
{
	__atomic_store_n(&f->h->stale_after_ms, stale_after_ms, __ATOMIC_RELAXED);
	__atomic_store_n(&f->h->heartbeat_ns, ns, __ATOMIC_RELEASE);
}

void image_file_close(struct image_file *f)
{
	if (f == NULL)
		return;
	__atomic_store_n(&f->h->state, CM_IMAGE_STOPPED, __ATOMIC_RELEASE);
	munmap(f->h, f->size);
	unlink(f->path);
	free(f);
}

const char *image_file_path(const struct image_file *f)
{
	return f->path;
}
