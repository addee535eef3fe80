/* SPDX-License-Identifier: BSD-2-Clause */
/* rowstatus.c - the RowStatus state machine of RFC 2579. */
#include "rowstatus.h"

static enum rs_verdict create(int request, bool ready, enum row_status *next)
{
	switch (request) {
	case ROW_CREATE_AND_GO:
		/* createAndGo needs a complete row: nothing else to wait for. */
		if (!ready)
			return RSV_INCONSISTENT;
		*next = ROW_ACTIVE;
		return RSV_OK;
	case ROW_CREATE_AND_WAIT:
		*next = ready ? ROW_NOT_IN_SERVICE : ROW_NOT_READY;
		return RSV_OK;
	case ROW_DESTROY:
		*next = ROW_NONE; /* destroying what does not exist is no error */
		return RSV_OK;
	case ROW_NONE:
		return RSV_NO_CREATION;
	default: /* active, notInService */
		return RSV_INCONSISTENT;
	}
}

static enum rs_verdict change(enum row_status current, int request, bool ready,
			      enum row_status *next)
{
	switch (request) {
	case ROW_NONE:
		/* A notReady row that got its last column becomes notInService. */
		*next = current == ROW_NOT_READY && ready ? ROW_NOT_IN_SERVICE : current;
		return RSV_OK;
	case ROW_ACTIVE:
		if (!ready)
			return RSV_INCONSISTENT;
		*next = ROW_ACTIVE;
		return RSV_OK;
	case ROW_NOT_IN_SERVICE:
		if (!ready)
			return RSV_INCONSISTENT;
		*next = ROW_NOT_IN_SERVICE;
		return RSV_OK;
	case ROW_DESTROY:
		*next = ROW_NONE;
		return RSV_OK;
	default: /* createAndGo, createAndWait on an existing row */
		return RSV_INCONSISTENT;
	}
}

enum rs_verdict rowstatus_next(enum row_status current, int request, bool ready,
			       enum row_status *next)
{
	if (request == ROW_NOT_READY || request < ROW_NONE || request > ROW_DESTROY)
		return RSV_WRONG_VALUE;
	if (current == ROW_NONE)
		return create(request, ready, next);
	return change(current, request, ready, next);
}

bool storage_writable(int storage)
{
	return storage != STORAGE_READONLY;
}

bool storage_deletable(int storage)
{
	return storage != STORAGE_READONLY && storage != STORAGE_PERMANENT;
}
