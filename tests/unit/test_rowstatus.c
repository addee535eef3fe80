/* SPDX-License-Identifier: BSD-2-Clause */
/* test_rowstatus.c - every RowStatus transition of RFC 2579, allowed or not. */
#include "core/rowstatus.h"
#include "tap.h"

static const char *names[] = {
	"none", "active", "notInService", "notReady", "createAndGo", "createAndWait", "destroy",
};

/* One transition: current state, requested value, ready -> verdict, next. */
struct case_ {
	enum row_status current;
	int request;
	bool ready;
	enum rs_verdict verdict;
	enum row_status next;
};

static const struct case_ cases[] = {
	/* the row does not exist */
	{ ROW_NONE, ROW_CREATE_AND_GO, true, RSV_OK, ROW_ACTIVE },
	{ ROW_NONE, ROW_CREATE_AND_GO, false, RSV_INCONSISTENT, 0 },
	{ ROW_NONE, ROW_CREATE_AND_WAIT, true, RSV_OK, ROW_NOT_IN_SERVICE },
	{ ROW_NONE, ROW_CREATE_AND_WAIT, false, RSV_OK, ROW_NOT_READY },
	{ ROW_NONE, ROW_DESTROY, false, RSV_OK, ROW_NONE },
	{ ROW_NONE, ROW_ACTIVE, true, RSV_INCONSISTENT, 0 },
	{ ROW_NONE, ROW_NOT_IN_SERVICE, true, RSV_INCONSISTENT, 0 },
	{ ROW_NONE, ROW_NONE, true, RSV_NO_CREATION, 0 },
	{ ROW_NONE, ROW_NOT_READY, true, RSV_WRONG_VALUE, 0 },
	/* notReady */
	{ ROW_NOT_READY, ROW_NONE, false, RSV_OK, ROW_NOT_READY },
	{ ROW_NOT_READY, ROW_NONE, true, RSV_OK, ROW_NOT_IN_SERVICE },
	{ ROW_NOT_READY, ROW_ACTIVE, false, RSV_INCONSISTENT, 0 },
	{ ROW_NOT_READY, ROW_ACTIVE, true, RSV_OK, ROW_ACTIVE },
	{ ROW_NOT_READY, ROW_NOT_IN_SERVICE, false, RSV_INCONSISTENT, 0 },
	{ ROW_NOT_READY, ROW_DESTROY, false, RSV_OK, ROW_NONE },
	{ ROW_NOT_READY, ROW_CREATE_AND_GO, true, RSV_INCONSISTENT, 0 },
	/* notInService */
	{ ROW_NOT_IN_SERVICE, ROW_ACTIVE, true, RSV_OK, ROW_ACTIVE },
	{ ROW_NOT_IN_SERVICE, ROW_NOT_IN_SERVICE, true, RSV_OK, ROW_NOT_IN_SERVICE },
	{ ROW_NOT_IN_SERVICE, ROW_NONE, true, RSV_OK, ROW_NOT_IN_SERVICE },
	{ ROW_NOT_IN_SERVICE, ROW_DESTROY, true, RSV_OK, ROW_NONE },
	{ ROW_NOT_IN_SERVICE, ROW_CREATE_AND_WAIT, true, RSV_INCONSISTENT, 0 },
	{ ROW_NOT_IN_SERVICE, ROW_NOT_READY, true, RSV_WRONG_VALUE, 0 },
	/* active */
	{ ROW_ACTIVE, ROW_NOT_IN_SERVICE, true, RSV_OK, ROW_NOT_IN_SERVICE },
	{ ROW_ACTIVE, ROW_ACTIVE, true, RSV_OK, ROW_ACTIVE },
	{ ROW_ACTIVE, ROW_NONE, true, RSV_OK, ROW_ACTIVE },
	{ ROW_ACTIVE, ROW_DESTROY, true, RSV_OK, ROW_NONE },
	{ ROW_ACTIVE, ROW_CREATE_AND_GO, true, RSV_INCONSISTENT, 0 },
	{ ROW_ACTIVE, ROW_CREATE_AND_WAIT, true, RSV_INCONSISTENT, 0 },
	{ ROW_ACTIVE, 7, true, RSV_WRONG_VALUE, 0 },
	{ ROW_ACTIVE, -1, true, RSV_WRONG_VALUE, 0 },
};

int main(void)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct case_ *c = &cases[i];
		enum row_status next = (enum row_status)99;
		enum rs_verdict v = rowstatus_next(c->current, c->request, c->ready, &next);
		const char *req = c->request >= 0 && c->request <= 6 ? names[c->request] : "out of range";

		ok(v == c->verdict && (v != RSV_OK || next == c->next),
		   "%s + %s (%s): verdict %d next %d", names[c->current], req,
		   c->ready ? "ready" : "incomplete", (int)v, v == RSV_OK ? (int)next : -1);
	}
	ok(!storage_writable(STORAGE_READONLY) && storage_writable(STORAGE_PERMANENT) &&
	   storage_writable(STORAGE_NONVOLATILE), "readOnly rows cannot be changed, others can");
	ok(!storage_deletable(STORAGE_PERMANENT) && !storage_deletable(STORAGE_READONLY) &&
	   storage_deletable(STORAGE_VOLATILE), "permanent and readOnly rows cannot be deleted");
	return done_testing();
}
