#!/bin/bash
# recipe.sh - docs/architecture.md's recipes "Adding a source from /proc or a
# file" and "Adding a MIB group", done: in a copy of the tree, each step
# below writes what the recipe's step of that number says (a throwaway
# source "xtest" reading proc/xtest of a fixture tree, and a group serving
# it), the copy is built, and the throwaway's own tests must pass: its
# parser, its sample path, the registry naming it, and the agent
# registering its scalar. Then steps are left out one at a time, each must
# make the build or a test fail: a recipe that names a file nobody needs is
# as wrong as one that misses a file. When the tree changes so that a step
# here no longer applies, it fails by name (src_N: the source recipe's step N,
# mib_N: the group's); fix the recipe and this
# script together. A build of the agent at -O0 and ten small rebuilds: about
# a minute. RECIPE_KEEP=1 keeps the copy (and its build log) to look at.
. "$(dirname "$0")/recipelib.sh"

tmp=$(mktemp -d) || exit 1
[ -n "${RECIPE_KEEP:-}" ] || trap 'rm -rf "$tmp"' EXIT
src=$tmp/src
bld=$tmp/build
log=$tmp/log

# ---- "Adding a source from /proc or a file"

src_1() { # the parser, in collect/, declared in collect.h, listed in libs.am
	cat >"$src/subagent/collect/xtest.c" <<'EOF'
/* SPDX-License-Identifier: BSD-2-Clause */
/* xtest.c - a throwaway reader (tests/source/recipe.sh). */
#include "collect.h"

#include <string.h>

#include "common/number.h"

int xtest_parse(const char *buf, struct xtest *out)
{
	const char *p = strstr(buf, "xtest_value ");

	if (p == NULL || num_scan_u64(p + 12, NULL, &out->value) != NUM_OK)
		return -1;
	return 0;
}
EOF
	before_endif subagent/collect/collect.h 'struct xtest {
	uint64_t value;
};
int xtest_parse(const char *buf, struct xtest *out);
' &&
		in_after libs.am '^COLLECT_SOURCES = ' '	subagent/collect/xtest.c \'
}

src_2() { # its fixture and unit test
	printf 'xtest_value 42\n' >"$src/tests/fixtures/proc-basic/proc/xtest"
	cat >"$src/tests/unit/test_xtest.c" <<'EOF'
/* SPDX-License-Identifier: BSD-2-Clause */
/* test_xtest.c - the throwaway reader on its fixture and on garbage. */
#include "fixture.h"
#include "tap.h"

int main(void)
{
	struct xtest x = { 0 };
	const char *text = fixture_text("proc-basic", "proc/xtest");

	ok(text != NULL && xtest_parse(text, &x) == 0 && x.value == 42, "the fixture reads 42");
	ok(xtest_parse("nothing here\n", &x) == -1, "garbage is refused");
	return done_testing();
}
EOF
	in_after Makefile.am '^UNIT_TESTS = ' '	tests/unit/test_xtest \' &&
		printf 'tests_unit_test_xtest_LDADD = $(UNIT_LDADD)\n' >>"$src/Makefile.am"
}

src_3() { # the index, before SOURCE_END
	sed -i 's/^\(\t*\)SOURCE_END\b/\1SOURCE_XTEST,\n&/' "$src/subagent/sources/source_ops.h" &&
		grep -q '^.SOURCE_XTEST,$' "$src/subagent/sources/source_ops.h"
}

src_4() { # the source's own header: its snapshot type and ops, listed in libs.am
	cat >"$src/subagent/sources/xtest.h" <<'EOF'
/* SPDX-License-Identifier: BSD-2-Clause */
/* xtest.h - a throwaway source's snapshot (tests/source/recipe.sh). */
#ifndef CLUSTERMON_SOURCES_XTEST_H
#define CLUSTERMON_SOURCES_XTEST_H

#include <stdint.h>

#include "source_ops.h"
#include "../runtime/snapshot.h"

struct xtest_snapshot {
	struct snapshot hdr;
	uint64_t value;
};

extern const struct source_ops xtest_source_ops;

#endif
EOF
	in_after libs.am '^AGENT_SOURCES = ' '	subagent/sources/xtest.h \'
}

src_5() { # the source, listed in libs.am
	cat >"$src/subagent/sources/xtest.c" <<'EOF'
/* SPDX-License-Identifier: BSD-2-Clause */
/* xtest.c - a throwaway source (tests/source/recipe.sh). */
#include <stdlib.h>

#include "../collect/collect.h"
#include "xtest.h"

static struct snapshot_slot xtest_slot = SNAPSHOT_SLOT_INIT;

struct xtest_source {
	struct procfile pf;
	char buf[256];
};

static void xtest_fini(void *ctx)
{
	struct xtest_source *xs = ctx;

	if (xs != NULL)
		procfile_close(&xs->pf);
	free(xs);
}

static void *xtest_init(const char *root)
{
	struct xtest_source *xs = calloc(1, sizeof(*xs));

	if (xs != NULL && procfile_open(&xs->pf, root, "proc/xtest") != 0) {
		free(xs);
		xs = NULL;
	}
	return xs;
}

/* Its snapshot is one allocation: free() is its destroy. */
static void xtest_destroy(struct snapshot *s) { free(s); }

static int xtest_sample(void *ctx)
{
	struct xtest_source *xs = ctx;
	struct xtest_snapshot *snap;
	struct xtest x;

	if (procfile_read(&xs->pf, xs->buf, sizeof(xs->buf)) < 0 || xtest_parse(xs->buf, &x) != 0)
		return -1;
	if ((snap = calloc(1, sizeof(*snap))) == NULL)
		return -1;
	snap->hdr.refs = 1;
	snap->hdr.destroy = xtest_destroy;
	snap->value = x.value;
	snapshot_publish(&xtest_slot, &snap->hdr);
	return 0;
}

/* (Every field of the ops named in the recipe's step 5; set out one a
 * line as in sources/mem.c, it would be a copy of their shape.) */
const struct source_ops xtest_source_ops = {
	.index = SOURCE_XTEST, .name = "xtest", .slot = &xtest_slot, .default_interval_ms = 1000,
	.init = xtest_init, .sample = xtest_sample, .fini = xtest_fini,
};
EOF
	in_after libs.am '^AGENT_SOURCES = ' '	subagent/sources/xtest.c \'
}

src_6() { # the registry: the source's header and its ops in source_registry[]
	sed -i '/source_registry\[\] = {/,/};/ s/NULL,/\&xtest_source_ops, NULL,/' \
		"$src/subagent/sources/registry.c" &&
		grep -q '&xtest_source_ops' "$src/subagent/sources/registry.c" &&
		in_after subagent/sources/registry.c '^#include "registry.h"' '#include "xtest.h"'
}

src_7() { # the sample path's unit test
	cat >"$src/tests/unit/test_xtest_source.c" <<'EOF'
/* SPDX-License-Identifier: BSD-2-Clause */
/* test_xtest_source.c - the throwaway source's sample, and its registration. */
#include "sources/registry.h"
#include "sources/xtest.h"
#include "fixture.h"
#include "tap.h"

int main(void)
{
	char root[512];
	void *ctx = xtest_source_ops.init(fixture_root(root, sizeof(root), "proc-basic"));
	struct xtest_snapshot *s;

	ok(ctx != NULL && xtest_source_ops.sample(ctx) == 0, "init and a sample on the fixture");
	s = (struct xtest_snapshot *)snapshot_acquire(xtest_source_ops.slot);
	ok(s != NULL && s->value == 42, "its snapshot holds the fixture's 42");
	if (s != NULL)
		snapshot_release(xtest_source_ops.slot, &s->hdr);
	ok(source_by_index(SOURCE_XTEST) == &xtest_source_ops &&
	   source_index_by_name("xtest") == SOURCE_XTEST,
	   "in the registry: sampleInterval xtest and a clusterMonSourceTable row follow");
	if (ctx != NULL)
		xtest_source_ops.fini(ctx);
	return done_testing();
}
EOF
	in_after Makefile.am '^UNIT_TESTS = ' '	tests/unit/test_xtest_source \' &&
		printf 'tests_unit_test_xtest_source_LDADD = $(UNIT_LDADD) -lpthread\n' >>"$src/Makefile.am"
}

# ---- "Adding a MIB group"

mib_1() { # the objects in the MIB (the build makes cm-oids.h from it)
	group_objects 999 Xtest Value Unsigned32
}

mib_2() { # the group, listed in libs.am
	group_file xtest Xtest Value value ASN_UNSIGNED SOURCE_XTEST
}

mib_3() { # its registration: mib.h and mib_register_all()'s chain
	group_register xtest
}

STEPS="src_1 src_2 src_3 src_4 src_5 src_6 src_7 mib_1 mib_2 mib_3"
TARGETS="tests/unit/test_xtest tests/unit/test_xtest_source tests/system/oidlayout"

# The copy's checks: 0 when the throwaway builds, its tests pass and the
# agent registers its scalar.
verify() {
	# nothing the last build made may stand in for what this one must make
	unbuild tests/unit/test_xtest tests/unit/test_xtest_source tests/system/oidlayout
	# the MIB's numbers first: a built source (BUILT_SOURCES) `make all` makes
	(cd "$bld" && nice -n 10 make "$CM_OIDS" && nice -n 10 make -j2 $TARGETS) \
		>>"$log" 2>&1 || { echo "the build"; return 1; }
	srcdir=$src "$bld/tests/unit/test_xtest" >>"$log" 2>&1 || { echo "test_xtest"; return 1; }
	srcdir=$src "$bld/tests/unit/test_xtest_source" >>"$log" 2>&1 || { echo "test_xtest_source"; return 1; }
	scalar_registered clusterMonXtestValue || { echo "oidlayout"; return 1; }
}

echo "1..3"
new_copy "the recipes' steps ($STEPS)" || exit 0
if configure_copy && why=$(verify); then
	echo "ok 2 - built as the recipes say: the throwaway's tests pass and the agent registers its scalar"
else
	echo "not ok 2 - done as the recipes say, the throwaway fails: ${why:-set-up}"
	tail -n 30 "$log" | sed 's/^/#   /'
	exit 0
fi
# Each step left out in turn must fail somewhere: the build, or a test.
leave_out_each
if [ -z "$unneeded" ]; then
	echo "ok 3 - each step left out makes the build or a test fail"
else
	echo "not ok 3 - left out, these steps change nothing (the recipe names what is not needed, or this test checks too little):$unneeded"
fi
