/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * registry.h - every source clustermond has, in one table: each source's
 * source_ops carries its index, name and snapshot slot, so nothing else
 * (main.c, conf.c, the MIB) keeps a list of sources or names one.
 */
#ifndef CLUSTERMON_REGISTRY_H
#define CLUSTERMON_REGISTRY_H

#include <stddef.h>

struct source_ops;
struct snapshot;

/* The sources in index order, ending with NULL. */
extern const struct source_ops *const source_registry[];

/* Known sources, added to the sampler or not; NULL or 0 when unknown. */
const struct source_ops *source_by_index(unsigned index);
unsigned source_index_by_name(const char *name);

/* clusterMonSourceMethod: what the source's current snapshot says it
 * sampled with ("periodic" when it has no method or no snapshot yet). */
const char *source_method(unsigned index);

#endif
