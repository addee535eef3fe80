/* SPDX-License-Identifier: BSD-2-Clause */
/* tracelist.c - the helper's list of trace sessions (tracelist.h), read
 * line by line by common/wire.h through helper_parse_list. */
#include "tracelist.h"

#include <stdio.h>

#include "helper.h"

static void fill_trace(void *elem, const struct wire_reply *w)
{
	struct tracelist_entry *t = elem;

	t->id = w->u.trace.id;
	t->state = (enum tracelist_state)w->u.trace.state;
	t->records = w->u.trace.records;
	t->lost = w->u.trace.lost;
	t->bytes = w->u.trace.bytes;
	t->elapsed_ms = w->u.trace.elapsed_ms;
	snprintf(t->dir, sizeof(t->dir), "%s", w->u.trace.dir);
	snprintf(t->reason, sizeof(t->reason), "%s", w->u.trace.reason);
}

static const struct helper_list traces = {
	WIRE_R_TRACE, TRACELIST_MAX, sizeof(struct tracelist_entry), fill_trace
};

int tracelist_parse(const char *reply, struct tracelist_entry **out, size_t *n, char *why,
		    size_t whylen)
{
	*out = helper_parse_list(reply, WIRE_TRACES, &traces, n, why, whylen);
	return *out != NULL ? 0 : -1;
}
