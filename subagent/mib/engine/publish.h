/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * publish.h - the fast read path's writer: clustermond publishes every
 * read-only instance it serves into the image file (image/image.h) that
 * clustermon.so, loaded into snmpd, answers from (directive snapshotFile).
 */
#ifndef CLUSTERMON_MIB_PUBLISH_H
#define CLUSTERMON_MIB_PUBLISH_H

/* Starts publishing on a thread of its own (cm-publish): call on the SNMP
 * thread after the groups are registered and privileges dropped, so the
 * file belongs to the user clustermond runs as. Every group it publishes
 * must read only snapshots, copies taken under a lock, or atomics. */
void publish_start(void);
/* The image's path from the configuration in force: snapshotFile's path,
 * "none", or "" (the default); on the SNMP thread, at each (re)load. */
void publish_configure(const char *image_path);
/* Stops the thread, marks the image stopped and removes it (at exit). */
void publish_stop(void);

#endif
