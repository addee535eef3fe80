/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * imagefile.h - the file clustermond publishes its image in (format in
 * image/image.h). It is never mapped: anyone who can write the file could
 * cut it under a mapping and make a store fault. Every byte is reserved
 * when the file is made (posix_fallocate), so a full filesystem fails the
 * creation, never a later store; stores are pwrites from the writer's own
 * copy of the header. A new file is built under a temporary name and
 * renamed into place when committed. When a section outgrows its room a
 * bigger file replaces it the same way and the old one is marked
 * superseded, so readers reopen the path.
 */
#ifndef CLUSTERMON_IMAGEFILE_H
#define CLUSTERMON_IMAGEFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "image/image.h"

struct image_file;

/* Makes a file for path (mode 0640) under a temporary name, with the
 * sections and registrations of layout (only those header fields are
 * used) and cap[i] bytes in each buffer of section i, every byte backed by
 * storage. *bytes is the file's size, also on failure. NULL with errno
 * set on failure (ENOSPC when the filesystem cannot hold it). */
struct image_file *image_file_create(const char *path, const struct cm_image_header *layout,
				     const size_t *cap, size_t *bytes);
/* Renames a new file into place; nothing when it is there already. */
int image_file_commit(struct image_file *f);
/* Publishes the chunks of a section's data marked in dirty (NULL: all).
 * -1 with errno set on failure: ENOBUFS when it does not fit its data
 * area (image_file_grow first). */
int image_file_write(struct image_file *f, unsigned sec, const void *data, size_t len,
		     const unsigned char *dirty);
/* Replaces *f with a file whose section sec has room for len bytes and an
 * eighth, and holds every section's current data, committed if *f was; the old one
 * is marked superseded. *bytes is the new file's size. -1 with errno set when the
 * new file could not be made; *f is then unchanged. */
int image_file_grow(struct image_file **f, unsigned sec, size_t len, size_t *bytes);
/* Bytes of section sec's data area. */
size_t image_file_cap(const struct image_file *f, unsigned sec);
/* The writer is alive: readers serve the image until stale_after_ms pass
 * without another beat. */
int image_file_beat(struct image_file *f, uint64_t now_ns, uint32_t stale_after_ms);
/* The file at the path is still this one, of its size, with the header
 * as written: false when another process cut, grew, replaced, removed or
 * overwrote it. */
bool image_file_intact(const struct image_file *f);
/* Marks the image stopped and removes it (if the path is still this
 * file), and frees f. */
void image_file_close(struct image_file *f);
/* Frees f and leaves the file alone (it is not ours any more). */
void image_file_abandon(struct image_file *f);
const char *image_file_path(const struct image_file *f);
/* Section sec's CM_SEC_* flags, held_ns and fresh_ns (image/image.h),
 * each written when it changes, in the order readers rely on. */
int image_file_state(struct image_file *f, unsigned sec, uint32_t flags, uint64_t held_ns,
		     uint64_t fresh_ns);
/* The demand file of the image at image_path (image/image.h), made when
 * there is none: a descriptor to read it with, or -1. */
int image_demand_open(const char *image_path);
/* An inotify descriptor (non-blocking) that becomes readable when the
 * demand file at the path now is written, or -1 (then poll it). */
int image_demand_watch(const char *image_path);
/* Reads the watch's events: true when there were any. */
bool image_demand_drain(int watch);
/* fd is still the demand file at the image's path. */
bool image_demand_same(int fd, const char *image_path);
/* The reader's last record: 0, or -1 when there is none or it is garbage. */
int image_demand_read(int fd, struct cm_image_demand *out);

#endif
