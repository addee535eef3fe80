/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_helperlist.c - collect/helper.c's helper_parse_list, the one reader
 * of the helper's counted list replies (traces, dists): a table of replies
 * and what each must give, the element count, the ids in order, and that a
 * refused reply hands back nothing; then the element size and the maximum
 * are the caller's, and every element starts zeroed.
 */
#include <stdlib.h>
#include <string.h>

#include "collect/helper.h"
#include "tap.h"

/* A small element, so a line fills only its id and the padding shows. */
struct item {
	uint32_t id;
	uint32_t untouched;
	uint64_t records;
};

static void fill_item(void *elem, const struct wire_reply *w)
{
	struct item *it = elem;

	it->id = w->u.trace.id;
	it->records = w->u.trace.records;
}

static const struct helper_list items = { WIRE_R_TRACE, 3, sizeof(struct item), fill_item };

#define T(id) "trace " #id " running 1 0 0 0 /d -\n"

static const struct {
	const char *reply;
	int n;                  /* -1: refused */
	uint32_t ids[3];
	const char *what;
} cases[] = {
	{ "ok 0\n", 0, { 0 }, "no lines: an empty array, not a failure" },
	{ "ok 1\n" T(7), 1, { 7 }, "one line" },
	{ "ok 3\n" T(4) T(2) T(9), 3, { 4, 2, 9 }, "three lines, kept in the reply's order" },
	{ "ok 4\n" T(1) T(2) T(3) T(4), -1, { 0 }, "more lines than the caller's maximum" },
	{ "ok 2\n" T(1), -1, { 0 }, "a reply cut short" },
	{ "ok 1\n" T(1) T(2), 1, { 1 }, "a line past the count is not this reply's: left" },
	{ "ok 1\nproc 42 1000 20 1\n", -1, { 0 }, "a line of another kind" },
	{ "ok 1\ntrace 1 running x 0 0 0 /d -\n", -1, { 0 }, "a malformed line" },
	{ "err busy the helper is busy\n", -1, { 0 }, "an error" },
	{ "", -1, { 0 }, "nothing at all" },
};

static bool same(const struct item *v, size_t n, const uint32_t *ids)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].id != ids[i] || v[i].untouched != 0 || v[i].records != 1)
			return false;
	return true;
}

int main(void)
{
	size_t ncases = sizeof(cases) / sizeof(cases[0]);

	plan((int)ncases);
	for (size_t i = 0; i < ncases; i++) {
		char why[256] = "";
		size_t n = 99;
		struct item *v = helper_parse_list(cases[i].reply, WIRE_TRACES, &items, &n, why,
						   sizeof(why));

		if (cases[i].n < 0)
			ok(v == NULL && n == 0 && why[0] != '\0', "%s: refused (%s)", cases[i].what,
			   why);
		else
			ok(v != NULL && n == (size_t)cases[i].n && same(v, n, cases[i].ids),
			   "%s: %zu elements, ids and zeroed padding as sent", cases[i].what, n);
		free(v);
	}
	return done_testing();
}
