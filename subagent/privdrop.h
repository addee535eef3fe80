/* SPDX-License-Identifier: BSD-2-Clause */
/* privdrop.h - become an unprivileged user, keeping only named capabilities. */
#ifndef CLUSTERMON_PRIVDROP_H
#define CLUSTERMON_PRIVDROP_H

#include <stddef.h>
#include <sys/capability.h>

/* Switches to user (name or numeric uid) and its primary group, keeps only
 * the capabilities in keep[] (permitted and effective), and sets
 * no_new_privs. Returns -1 with a message in err on failure. */
int privdrop(const char *user, const cap_value_t *keep, size_t nkeep, char *err, size_t errlen);

#endif
