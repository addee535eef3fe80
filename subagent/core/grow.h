/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * grow.h - room for one more element in a malloc'd array that doubles as
 * it fills: the one copy of the pattern the reply parsers and the sources'
 * state tables all need.
 */
#ifndef CLUSTERMON_CORE_GROW_H
#define CLUSTERMON_CORE_GROW_H

#include <stdbool.h>
#include <stddef.h>

/* *v (an array of *cap elements of elem bytes, n of them used) has room for
 * one more, doubling from first when it is full: false, with *v and *cap
 * untouched, when the memory is not there. */
bool cm_grow(void *v, size_t *cap, size_t n, size_t elem, size_t first);

#endif
