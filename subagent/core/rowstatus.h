/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * rowstatus.h - RFC 2579 RowStatus and StorageType rules for read-create
 * tables. Pure C: the MIB glue maps the results to SNMP error statuses.
 */
#ifndef CLUSTERMON_ROWSTATUS_H
#define CLUSTERMON_ROWSTATUS_H

#include <stdbool.h>

enum row_status {
	ROW_NONE = 0,            /* no such row, or no RowStatus in the request */
	ROW_ACTIVE = 1,
	ROW_NOT_IN_SERVICE = 2,
	ROW_NOT_READY = 3,
	ROW_CREATE_AND_GO = 4,
	ROW_CREATE_AND_WAIT = 5,
	ROW_DESTROY = 6,
};

enum storage_type {
	STORAGE_OTHER = 1, STORAGE_VOLATILE = 2, STORAGE_NONVOLATILE = 3, STORAGE_PERMANENT = 4, STORAGE_READONLY = 5,
};

enum rs_verdict {
	RSV_OK = 0,
	RSV_WRONG_VALUE,         /* notReady(3) or a value outside 1..6 */
	RSV_INCONSISTENT,        /* a transition RFC 2579 forbids from this state */
	RSV_NO_CREATION,         /* columns set on a row that does not exist */
};

/*
 * The status a row has after one SET request. current: the row's status
 * now (ROW_NONE if it does not exist); request: the RowStatus value in the
 * request (ROW_NONE if none); ready: whether every column the row needs has
 * a value once the request's other varbinds are applied. On RSV_OK, *next is
 * the new status, ROW_NONE when the row is gone (or was never made).
 */
enum rs_verdict rowstatus_next(enum row_status current, int request, bool ready,
			       enum row_status *next);

/* Whether a row of this storage type may be changed or deleted by a SET. */
bool storage_writable(int storage);
bool storage_deletable(int storage);

#endif
