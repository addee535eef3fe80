/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * imagefile.h - the file clustermond publishes its image in (format in
 * core/image.h): created whole under a temporary name and renamed into
 * place, rewritten in place after that, never shrunk while mapped. When a
 * section outgrows its room a bigger file replaces it the same way and the
 * old one is marked superseded, so readers reopen the path.
 */
#ifndef CLUSTERMON_IMAGEFILE_H
#define CLUSTERMON_IMAGEFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/image.h"

struct image_file;

/* Creates path (mode 0640) with the sections and registrations of layout
 * (only those header fields are used) and room for min_cap bytes in each
 * buffer. NULL with errno set on failure. */
struct image_file *image_file_create(const char *path, const struct cm_image_header *layout,
				     size_t min_cap);
/* Publishes one encoded section; a section that does not fit makes the
 * file grow (*f may change). -1 with errno set when that failed. */
int image_file_write(struct image_file **f, unsigned sec, const void *data, size_t len);
/* The writer is alive: readers serve the image until stale_after_ms pass
 * without another beat. */
void image_file_beat(struct image_file *f, uint64_t now_ns, uint32_t stale_after_ms);
/* Marks the image stopped, removes the file and frees f. */
void image_file_close(struct image_file *f);
const char *image_file_path(const struct image_file *f);

#endif
