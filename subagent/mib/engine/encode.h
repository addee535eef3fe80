/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * encode.h - a published group's read-only instances into its section of
 * the image, through the same get callbacks that answer AgentX: what
 * changed since the view the section holds is all that is encoded
 * (publish.c decides which groups and when).
 */
#ifndef CLUSTERMON_MIB_ENGINE_ENCODE_H
#define CLUSTERMON_MIB_ENGINE_ENCODE_H

#include <stddef.h>
#include <stdint.h>

#include "image/image.h"
#include "image/imagesec.h"

struct mib_group;

/* Encodes g into b, one unit at a time through enc (scratch); since[i]
 * (i < nsince) is the view generation object i's table had when last
 * encoded, and is updated. Returns the section's length, 0 when it was
 * made again from nothing (nothing of since is then true). */
size_t group_encode(const struct mib_group *g, struct cm_isec *b, struct cm_image_enc *enc,
		    uint64_t *since, size_t nsince);

#endif
