/* SPDX-License-Identifier: BSD-2-Clause */
/* tracelist.c - the helper's list of trace sessions (tracelist.h), read
 * line by line by common/wire.h. */
#include "tracelist.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helper.h"
#include "../core/grow.h"

struct entries {
	struct tracelist_entry *v;
	size_t n, cap;
};

static bool take_trace(void *ctx, struct wire_reply *w)
{
	struct entries *e = ctx;
	struct tracelist_entry *t;

	if (w->kind != WIRE_R_TRACE || e->n >= TRACELIST_MAX)
		return false;
	if (!cm_grow(&e->v, &e->cap, e->n, sizeof(*e->v), 8))
		return false;
	t = &e->v[e->n++];
	t->id = w->u.trace.id;
	t->state = (enum tracelist_state)w->u.trace.state;
	t->records = w->u.trace.records;
	t->lost = w->u.trace.lost;
	t->bytes = w->u.trace.bytes;
	t->elapsed_ms = w->u.trace.elapsed_ms;
	snprintf(t->dir, sizeof(t->dir), "%s", w->u.trace.dir);
	snprintf(t->reason, sizeof(t->reason), "%s", w->u.trace.reason);
	return true;
}

int tracelist_parse(const char *reply, struct tracelist_entry **out, size_t *n, char *why,
		    size_t whylen)
{
	struct entries e = { 0 };

	*out = NULL;
	*n = 0;
	if (helper_parse_counted(reply, WIRE_TRACES, &e, take_trace, why, whylen) != 0) {
		free(e.v);
		return -1;
	}
	*out = e.v ? e.v : calloc(1, sizeof(**out));
	*n = e.n;
	if (*out == NULL) {
		snprintf(why, whylen, "out of memory");
		return -1;
	}
	return 0;
}
