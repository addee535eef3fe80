#!/bin/bash
# recipe-bpf.sh - docs/architecture.md's recipe "Adding a BPF-fed source",
# done: in a copy of the tree, each step below writes what the recipe's
# step of that number says (bpf_4c: step 4's third part), for a throwaway
# "xsw": a BPF program counting sched_switch events into a one-entry array
# map, the helper loading it and handing the map's fd out read-only on a
# wire verb "xsw", a collect/ reader reading the map through bpf(2), a
# source owning the connection, and a scalar clusterMonXswSwitches in a
# throwaway group. The copy is built and the throwaway's tests must pass:
# the verb's round trip through the codec, the reader's parse of the reply
# and of a map's value, the registry naming the source, the agent
# registering its scalar, and, as root (as CI runs it), a private helper
# loading the program and the source's count growing. Then steps are left
# out one at a time, each must make the build or a test fail (as
# recipe.sh's); the two only a running helper shows (bpf_3b, bpf_4d) are
# left in when not root. When the tree changes so that a step no longer
# applies, it fails by name; fix the recipe and this script together.
# About a minute here, two while the suite runs. RECIPE_KEEP=1 keeps the copy (and its build log).
. "$(dirname "$0")/recipelib.sh"

# Where the steps write and what they include, relative to the top (the
# files a move of the tree would change are named here alone; the group's
# are recipelib.sh's; the C files' includes are relative to subagent/ and
# the top, as the tree's).
WIRE=common                         # the protocol: wire.h, wire.c, wirereply.c
KPROBE_H=common/clustermon_kprobe.h # the maps' layout
HELPER=kprobe-helper                # the helper: commands.c, its main file
HELPER_MAIN=$HELPER/clustermon-kprobe.c
COLLECT=subagent/collect            # helper.h, helper.c, the reader
SOURCES=subagent/sources            # source_ops.h, registry.c, the source and its header

tmp=$(mktemp -d) || exit 1
helper_pid=
cleanup() {
	if [ -n "$helper_pid" ]; then
		kill "$helper_pid" 2>/dev/null
		wait "$helper_pid" 2>/dev/null
	fi
	[ -n "${RECIPE_KEEP:-}" ] || rm -rf "$tmp"
}
trap cleanup EXIT
src=$tmp/src
bld=$tmp/build
log=$tmp/log

# ---- 1. the map's layout

bpf_1() {
	before_endif "$KPROBE_H" '/* A throwaway count (tests/source/recipe-bpf.sh): sched_switch events,
 * in a one-entry array; read by clustermond (BPF_F_RDONLY fd, "xsw"). */
struct cm_xsw {
	__u64 switches;
};
'
}

# ---- 2. the program, and its object and skeleton rules

bpf_2a() {
	cat >"$src/$HELPER/xsw.bpf.c" <<'EOF'
// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* xsw.bpf.c - a throwaway (tests/source/recipe-bpf.sh): every sched_switch
 * counted in a one-entry array (a raw tracepoint: the cheapest on a hot
 * event). */
#include "kernel.bpf.h"
#include <bpf/bpf_helpers.h>
#include "common/clustermon_kprobe.h"

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct cm_xsw);
} xsw_counts SEC(".maps");

SEC("raw_tp/sched_switch")
int xsw_switch(void *ctx)
{
	__u32 zero = 0;
	struct cm_xsw *c = bpf_map_lookup_elem(&xsw_counts, &zero);

	if (c)
		__sync_fetch_and_add(&c->switches, 1);
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
EOF
}

bpf_2b() { # its .bpf.o and .skel.h rules, a place in BPF_SKELETONS
	in_after Makefile.am '^BPF_SKELETONS = ' "	$HELPER/xsw.skel.h \\" &&
		sed "s|@HELPER@|$HELPER|g" >>"$src/Makefile.am" <<'EOF'
@HELPER@/xsw.bpf.o: $(top_srcdir)/@HELPER@/xsw.bpf.c $(BPF_INCLUDE_FILES)
	@$(MKDIR_P) @HELPER@
	$(AM_V_CC)$(CLANG) $(BPF_CFLAGS) -c $(top_srcdir)/@HELPER@/xsw.bpf.c -o $@
@HELPER@/xsw.skel.h: @HELPER@/xsw.bpf.o
	$(AM_V_GEN)$(BPFTOOL) gen skeleton @HELPER@/xsw.bpf.o > $@.tmp && mv $@.tmp $@
EOF
}

# ---- 3. the loader, and its start and stop in the helper's main

bpf_3a() {
	cat >"$src/$HELPER/xsw.h" <<'EOF'
/* SPDX-License-Identifier: BSD-2-Clause */
/* xsw.h - a throwaway program's loader (tests/source/recipe-bpf.sh). */
#ifndef CLUSTERMON_KPROBE_XSW_H
#define CLUSTERMON_KPROBE_XSW_H

#include <stddef.h>

/* Opens, loads and attaches xsw.bpf.c: 0, or -1 with why. */
int xsw_start(char *why, size_t whylen);
/* A new BPF_F_RDONLY fd of its map, or -1 (not loaded). */
int xsw_share_fd(void);
void xsw_stop(void);

#endif
EOF
	cat >"$src/$HELPER/xsw.c" <<'EOF'
/* SPDX-License-Identifier: BSD-2-Clause */
/* xsw.c - a throwaway program's loader (tests/source/recipe-bpf.sh). */
#include "xsw.h"

#include <stdio.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "xsw.skel.h"

static struct xsw_bpf *skel;

int xsw_start(char *why, size_t whylen)
{
	skel = xsw_bpf__open_and_load();
	if (skel != NULL && xsw_bpf__attach(skel) == 0)
		return 0;
	snprintf(why, whylen, "the xsw program does not load");
	xsw_stop();
	return -1;
}

int xsw_share_fd(void)
{
	LIBBPF_OPTS(bpf_get_fd_by_id_opts, ro, .open_flags = BPF_F_RDONLY);
	struct bpf_map_info info = { 0 };
	__u32 len = sizeof(info);

	if (skel == NULL || bpf_obj_get_info_by_fd(bpf_map__fd(skel->maps.xsw_counts), &info, &len) != 0)
		return -1;
	return bpf_map_get_fd_by_id_opts(info.id, &ro);
}

void xsw_stop(void)
{
	xsw_bpf__destroy(skel);
	skel = NULL;
}
EOF
	in_after Makefile.am '^kprobe_helper_clustermon_kprobe_SOURCES = ' \
		"	$HELPER/xsw.c $HELPER/xsw.h \\"
}

bpf_3b() { # only a running helper shows it missing
	in_after "$HELPER_MAIN" '^#include "commands.h"' '#include "xsw.h"' &&
		in_after "$HELPER_MAIN" 'sensors_stop\(&helper.sensors\);' '	xsw_stop();' &&
		in_before "$HELPER_MAIN" '^int main\(' 'sigaction\(SIGTERM' \
			'	if (xsw_start(why, sizeof(why)) != 0)
		say(LOG_WARNING, "%s", why);'
}

# ---- 4. the wire verb: common/'s codec, the helper's answer, a test

bpf_4a() { # wire.h: the verb, the reply kind, its field, the fds it carries
	enum_append "$WIRE/wire.h" wire_verb WIRE_XSW &&
		in_before "$WIRE/wire.h" '^enum wire_reply_kind' '^};' '	WIRE_R_XSW,        /* ok xsw 1, with the fd */' &&
		in_after "$WIRE/wire.h" '^	union {' '		uint64_t xsw;      /* entries: 1 */' &&
		before_endif "$WIRE/wire.h" '#define WIRE_XSW_FDS 1'
}

bpf_4b() { # wire.c: the request's parser and writer
	in_before "$WIRE/wire.c" '^int wire_parse_request' 'strcmp\(verb, "hello"\) == 0' \
		'	} else if (strcmp(verb, "xsw") == 0) {
		req->verb = WIRE_XSW;' &&
		in_before "$WIRE/wire.c" '^int wire_format_request' '^	default:' \
			'	case WIRE_XSW:
		n = snprintf(buf, len, "xsw\n");
		break;'
}

bpf_4c() { # wirereply.c: the reply's writer and parser
	in_before "$WIRE/wirereply.c" '^int wire_write_reply' '^	default: write_read_line' \
		'	case WIRE_R_XSW: fprintf(out, "ok xsw %llu", (unsigned long long)r->u.xsw); break;' &&
		in_before "$WIRE/wirereply.c" 'words\[\] = ' '^	};' '		{ " xsw", WIRE_R_XSW },' &&
		in_before "$WIRE/wirereply.c" '^static bool parse_ok' '^		default:' \
			'		case WIRE_R_XSW: return take_u64(&s, 1, &r->u.xsw) && r->u.xsw == 1 && *s == '"'\\0'"';'
}

bpf_4d() { # commands.c: the helper's answer (only a running helper shows it missing)
	in_after "$HELPER/commands.c" '^#include "state.h"' '#include "xsw.h"' &&
		in_before "$HELPER/commands.c" '^static void reply_hello' '^static void reply_hello' \
			'/* The throwaway'"'"'s count, read-only: any peer may ask (peers.c). */
static void reply_xsw(FILE *out)
{
	struct wire_reply r = { .kind = WIRE_R_XSW, .u.xsw = 1 };

	if (helper.nreply_fds != 0) {
		wire_write_err(out, WIRE_ERR_INVALID, "one maps request per reply");
		return;
	}
	if ((helper.reply_fds[0] = xsw_share_fd()) < 0) {
		wire_write_err(out, WIRE_ERR_UNSUPPORTED, "the xsw program is not loaded");
		return;
	}
	helper.nreply_fds = WIRE_XSW_FDS;
	wire_write_reply(out, &r);
}
' &&
		in_before "$HELPER/commands.c" '^void serve_request' '^	default:' \
			'	case WIRE_XSW: reply_xsw(out); break;'
}

bpf_4e() { # the verb's round trip through the codec
	cat >"$src/tests/unit/test_xsw_wire.c" <<'EOF'
/* SPDX-License-Identifier: BSD-2-Clause */
/* test_xsw_wire.c - the throwaway verb through common/wire.h, both ways. */
#include <stdlib.h>
#include <string.h>

#include "common/wire.h"
#include "tap.h"

int main(void)
{
	struct wire_request req = { .verb = WIRE_XSW }, back;
	struct wire_reply r = { .kind = WIRE_R_XSW, .u.xsw = 1 }, got;
	char line[64], why[128], *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	ok(wire_format_request(&req, line, sizeof(line)) > 0 && strcmp(line, "xsw\n") == 0,
	   "the request is written 'xsw'");
	line[strcspn(line, "\n")] = '\0';
	ok(wire_parse_request(line, &back, why, sizeof(why)) == 0 && back.verb == WIRE_XSW,
	   "and read back");
	ok(out != NULL && wire_write_reply(out, &r) == 0 && fclose(out) == 0 &&
		   strcmp(text, "ok xsw 1\n") == 0, "the reply is written 'ok xsw 1'");
	ok(wire_parse_reply(WIRE_XSW, "ok xsw 1", &got, why, sizeof(why)) == 0 &&
		   got.kind == WIRE_R_XSW && got.u.xsw == 1, "and read back");
	ok(wire_parse_reply(WIRE_XSW, "ok xsw 2", &got, why, sizeof(why)) == -1,
	   "an entry count the map does not have is refused");
	free(text);
	return done_testing();
}
EOF
	in_after Makefile.am '^UNIT_TESTS = ' '	tests/unit/test_xsw_wire \' &&
		printf 'tests_unit_test_xsw_wire_LDADD = $(UNIT_LDADD)\n' >>"$src/Makefile.am"
}

# ---- 5. the reader in collect/: the exchange, the reader, its test

bpf_5a() { # helper.h and helper.c: the exchange and its reply's parser
	enum_append "$COLLECT/helper.h" helper_ask HELPER_ASK_XSW &&
		before_endif "$COLLECT/helper.h" '/* "ok xsw 1" after the hello line: 0, or -1. */
int helper_parse_xsw(const char *reply, uint64_t *entries);
' &&
		in_before "$COLLECT/helper.c" '^int helper_ask_text' '^	};' \
			'		[HELPER_ASK_XSW] = { 2, { WIRE_HELLO, WIRE_XSW } },' &&
		cat >>"$src/$COLLECT/helper.c" <<'EOF'

int helper_parse_xsw(const char *reply, uint64_t *entries)
{
	struct wire_reply r;

	if (!one_after_hello(reply, WIRE_XSW, WIRE_R_XSW, &r))
		return -1;
	*entries = r.u.xsw;
	return 0;
}
EOF
}

bpf_5b() { # the reader, listed in libs.am
	cat >"$src/$COLLECT/xsw.h" <<'EOF'
/* SPDX-License-Identifier: BSD-2-Clause */
/* xsw.h - a throwaway reader of the helper's xsw map (recipe-bpf.sh). */
#ifndef CLUSTERMON_COLLECT_XSW_H
#define CLUSTERMON_COLLECT_XSW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct xsw_reader;

/* hello and xsw to the helper at path, the fd received and checked: a
 * reader holding the connection, or NULL with why. */
struct xsw_reader *xsw_attach(const char *path, int timeout_ms, char *why, size_t whylen);
void xsw_detach(struct xsw_reader *x);
/* False once the helper closed the connection. */
bool xsw_alive(const struct xsw_reader *x);
/* The count: 0, or -1. */
int xsw_read(const struct xsw_reader *x, uint64_t *switches);
/* The count in a map of struct cm_xsw's layout: 0, or -1. */
int xsw_read_fd(int fd, uint64_t *switches);

#endif
EOF
	cat >"$src/$COLLECT/xsw.c" <<'EOF'
/* SPDX-License-Identifier: BSD-2-Clause */
/* xsw.c - a throwaway reader (tests/source/recipe-bpf.sh). */
#include "xsw.h"
#include "helper.h"
#include "helpermaps.h"

#include <linux/bpf.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/clustermon_kprobe.h"

struct xsw_reader {
	int sock, fd;
};

static int ask(struct xsw_reader *x, int timeout_ms)
{
	int64_t deadline = (int64_t)cm_clock_ms() + timeout_ms;
	char reply[256], text[32];
	uint64_t entries;
	size_t nfds = 0;
	int n = helper_ask_text(HELPER_ASK_XSW, text, sizeof(text));

	if (n < 0 || send(x->sock, text, (size_t)n, MSG_NOSIGNAL) != n ||
	    helpermap_recv(x->sock, 2, deadline, reply, sizeof(reply), &x->fd, WIRE_XSW_FDS, &nfds) != 0 ||
	    helper_parse_xsw(reply, &entries) != 0 || nfds != WIRE_XSW_FDS)
		return -1;
	return helpermap_check(x->fd, BPF_MAP_TYPE_ARRAY, sizeof(uint32_t), sizeof(struct cm_xsw),
			       entries, false);
}

struct xsw_reader *xsw_attach(const char *path, int timeout_ms, char *why, size_t whylen)
{
	struct xsw_reader *x = calloc(1, sizeof(*x));

	if (x == NULL)
		return NULL;
	x->fd = -1;
	if ((x->sock = helper_connect(path, why, whylen)) >= 0 && ask(x, timeout_ms) == 0)
		return x;
	if (x->sock >= 0)
		snprintf(why, whylen, "no xsw map from clustermon-kprobe");
	xsw_detach(x);
	return NULL;
}

void xsw_detach(struct xsw_reader *x)
{
	if (x != NULL && x->fd >= 0)
		close(x->fd);
	if (x != NULL && x->sock >= 0)
		close(x->sock);
	free(x);
}

bool xsw_alive(const struct xsw_reader *x)
{
	return helper_conn_alive(x->sock);
}

int xsw_read_fd(int fd, uint64_t *switches)
{
	uint32_t key = 0;
	struct cm_xsw v;

	if (helpermap_lookup(fd, &key, &v) != 0)
		return -1;
	*switches = v.switches;
	return 0;
}

int xsw_read(const struct xsw_reader *x, uint64_t *switches)
{
	return xsw_read_fd(x->fd, switches);
}
EOF
	in_after libs.am '^COLLECT_SOURCES = ' "	$COLLECT/xsw.c \\"
}

bpf_5c() { # the reader's test: the exchange it writes, the reply and a map it reads
	cat >"$src/tests/unit/test_xsw_reader.c" <<'EOF'
/* SPDX-License-Identifier: BSD-2-Clause */
/* test_xsw_reader.c - the throwaway reader: its request, the reply it
 * parses, and the count it reads from a map made here (root only). */
#include <linux/bpf.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "collect/helper.h"
#include "collect/xsw.h"
#include "common/clustermon_kprobe.h"
#include "tap.h"

/* An array of the helper's layout holding n, or -1 (no BPF here). */
static int map_of(uint64_t n)
{
	union bpf_attr a = { .map_type = BPF_MAP_TYPE_ARRAY, .key_size = sizeof(uint32_t),
			     .value_size = sizeof(struct cm_xsw), .max_entries = 1 };
	struct cm_xsw v = { .switches = n };
	uint32_t key = 0;
	int fd = (int)syscall(__NR_bpf, BPF_MAP_CREATE, &a, sizeof(a));

	memset(&a, 0, sizeof(a));
	a.map_fd = (uint32_t)fd;
	a.key = (uintptr_t)&key;
	a.value = (uintptr_t)&v;
	if (fd >= 0 && syscall(__NR_bpf, BPF_MAP_UPDATE_ELEM, &a, sizeof(a)) != 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}

int main(void)
{
	char text[64];
	uint64_t n = 0;
	int fd = map_of(4242);

	ok(helper_ask_text(HELPER_ASK_XSW, text, sizeof(text)) > 0 &&
		   strcmp(text, "hello\nxsw\n") == 0, "it asks hello, then xsw");
	ok(helper_parse_xsw("ok clustermon-kprobe 1 9-1\nok xsw 1\n", &n) == 0 && n == 1,
	   "the reply reads: one entry");
	ok(helper_parse_xsw("ok clustermon-kprobe 1 9-1\nerr unsupported not loaded\n", &n) == -1,
	   "a refusal does not");
	if (fd < 0)
		skip("no BPF map can be made here (not root): the map's read is not checked");
	else
		ok(xsw_read_fd(fd, &n) == 0 && n == 4242, "the count read from a map of its layout");
	if (fd >= 0)
		close(fd);
	return done_testing();
}
EOF
	in_after Makefile.am '^UNIT_TESTS = ' '	tests/unit/test_xsw_reader \' &&
		printf 'tests_unit_test_xsw_reader_LDADD = $(UNIT_LDADD)\n' >>"$src/Makefile.am"
}

# ---- 6. the owning source: the other recipe's steps 3 to 7

bpf_6a() { # the index
	sed -i 's/^\(\t*\)SOURCE_END\b/\1SOURCE_XSW,\n&/' "$src/$SOURCES/source_ops.h" &&
		grep -q '^.SOURCE_XSW,$' "$src/$SOURCES/source_ops.h"
}

bpf_6b() { # the source's own header: its snapshot type and ops, listed in libs.am
	cat >"$src/$SOURCES/xsw.h" <<'EOF'
/* SPDX-License-Identifier: BSD-2-Clause */
/* xsw.h - a throwaway BPF-fed source's snapshot (tests/source/recipe-bpf.sh). */
#ifndef CLUSTERMON_SOURCES_XSW_H
#define CLUSTERMON_SOURCES_XSW_H

#include <stdint.h>

#include "source_ops.h"
#include "../runtime/snapshot.h"

struct xsw_snapshot {
	struct snapshot hdr;
	uint64_t switches;
};

extern const struct source_ops xsw_source_ops;

#endif
EOF
	in_after libs.am '^AGENT_SOURCES = ' "	$SOURCES/xsw.h \\"
}

bpf_6c() { # the source, holding the connection, listed in libs.am
	cat >"$src/$SOURCES/xsw.c" <<'EOF'
/* SPDX-License-Identifier: BSD-2-Clause */
/* xsw.c - a throwaway BPF-fed source (tests/source/recipe-bpf.sh). */
#include <stdio.h>
#include <stdlib.h>

#include "../collect/xsw.h"
#include "sources.h"
#include "xsw.h"

static struct snapshot_slot xsw_slot = SNAPSHOT_SLOT_INIT;

struct xsw_source {
	char socket[PROBE_SOCKET_MAX];
	struct xsw_reader *reader;     /* NULL until the helper answers */
};

static void *xsw_init(const char *root)
{
	(void)root;
	return calloc(1, sizeof(struct xsw_source));
}

static void xsw_fini(void *ctx)
{
	struct xsw_source *xs = ctx;

	if (xs != NULL)
		xsw_detach(xs->reader);
	free(xs);
}

static void xsw_configure(void *ctx, const struct sources_conf *c)
{
	struct xsw_source *xs = ctx;

	snprintf(xs->socket, sizeof(xs->socket), "%s",
		 c->helper_socket[0] ? c->helper_socket : PROBES_DEFAULT_SOCKET);
	xsw_detach(xs->reader);
	xs->reader = NULL;
}

static void xsw_destroy(struct snapshot *s) { free(s); }

/* Attached when the helper answers, dropped when it goes: the next sample
 * asks the one that replaced it. */
static int xsw_sample(void *ctx)
{
	struct xsw_source *xs = ctx;
	struct xsw_snapshot *snap;
	char why[160];
	uint64_t n;

	if (xs->reader != NULL && !xsw_alive(xs->reader)) {
		xsw_detach(xs->reader);
		xs->reader = NULL;
	}
	if (xs->reader == NULL && (xs->reader = xsw_attach(xs->socket, 1000, why, sizeof(why))) == NULL)
		return -1;
	if (xsw_read(xs->reader, &n) != 0 || (snap = calloc(1, sizeof(*snap))) == NULL)
		return -1;
	snap->hdr.refs = 1;
	snap->hdr.destroy = xsw_destroy;
	snap->switches = n;
	snapshot_publish(&xsw_slot, &snap->hdr);
	return 0;
}

const struct source_ops xsw_source_ops = {
	.index = SOURCE_XSW, .name = "xsw", .slot = &xsw_slot, .default_interval_ms = 1000,
	.own_thread = true, .init = xsw_init, .sample = xsw_sample, .fini = xsw_fini,
	.configure = xsw_configure,
};
EOF
	in_after libs.am '^AGENT_SOURCES = ' "	$SOURCES/xsw.c \\"
}

bpf_6d() { # the registry: the source's header and its ops in source_registry[]
	sed -i '/source_registry\[\] = {/,/};/ s/NULL,/\&xsw_source_ops, NULL,/' \
		"$src/$SOURCES/registry.c" &&
		grep -q '&xsw_source_ops' "$src/$SOURCES/registry.c" &&
		in_after "$SOURCES/registry.c" '^#include "registry.h"' '#include "xsw.h"'
}

bpf_6e() { # the source's test: registered; with $XSW_HELPER_SOCKET, a count that grows
	cat >"$src/tests/unit/test_xsw_source.c" <<'EOF'
/* SPDX-License-Identifier: BSD-2-Clause */
/* test_xsw_source.c - the throwaway source: in the registry; without a
 * helper no snapshot; with the one at $XSW_HELPER_SOCKET, a count that
 * grows between two samples. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "sources/registry.h"
#include "sources/sources.h"
#include "sources/xsw.h"
#include "tap.h"

static struct sources_conf conf;

/* A sample's count, or 0 (the helper serves already: one sample). */
static uint64_t count(void *ctx)
{
	struct xsw_snapshot *s;
	uint64_t n = 0;

	xsw_source_ops.sample(ctx);
	if ((s = (struct xsw_snapshot *)snapshot_acquire(xsw_source_ops.slot)) != NULL) {
		n = s->switches;
		snapshot_release(xsw_source_ops.slot, &s->hdr);
	}
	return n;
}

int main(void)
{
	const char *sock = getenv("XSW_HELPER_SOCKET");
	void *ctx = xsw_source_ops.init("/");
	uint64_t a, b;

	ok(source_by_index(SOURCE_XSW) == &xsw_source_ops && source_index_by_name("xsw") == SOURCE_XSW,
	   "in the registry");
	snprintf(conf.helper_socket, sizeof(conf.helper_socket), "%s", sock ? sock : "/nonexistent/x");
	xsw_source_ops.configure(ctx, &conf);
	if (sock == NULL) {
		ok(xsw_source_ops.sample(ctx) == -1 && snapshot_acquire(xsw_source_ops.slot) == NULL,
		   "no helper: the sample fails, nothing is published");
	} else {
		a = count(ctx);
		usleep(20000);
		b = count(ctx);
		ok(a > 0 && b > a, "the helper's count read twice grows: %llu, then %llu",
		   (unsigned long long)a, (unsigned long long)b);
	}
	xsw_source_ops.fini(ctx);
	return done_testing();
}
EOF
	in_after Makefile.am '^UNIT_TESTS = ' '	tests/unit/test_xsw_source \' &&
		printf 'tests_unit_test_xsw_source_LDADD = $(UNIT_LDADD) -lpthread\n' >>"$src/Makefile.am"
}

# ---- 7. the MIB group (the group recipe's steps 1 to 3)

bpf_7a() { group_objects 998 Xsw Switches Counter64; }
bpf_7b() { group_file xsw Xsw Switches switches ASN_COUNTER64 SOURCE_XSW; }
bpf_7c() { group_register xsw; }

STEPS="bpf_1 bpf_2a bpf_2b bpf_3a bpf_3b bpf_4a bpf_4b bpf_4c bpf_4d bpf_4e bpf_5a bpf_5b bpf_5c
	bpf_6a bpf_6b bpf_6c bpf_6d bpf_6e bpf_7a bpf_7b bpf_7c"
RUN_ONLY="bpf_3b bpf_4d"      # what only a running helper shows missing
# The steps that change a header most files include, one after another:
# a step left out and put back rebuilds what includes its files twice,
# and next to each other those rebuilds overlap.
OMIT_ORDER="bpf_1 bpf_4a bpf_5a bpf_6a bpf_6b bpf_7a bpf_2a bpf_2b bpf_3a bpf_3b bpf_4b bpf_4c
	bpf_4d bpf_4e bpf_5b bpf_5c bpf_6c bpf_6d bpf_6e bpf_7b bpf_7c"
TESTS="tests/unit/test_xsw_wire tests/unit/test_xsw_reader tests/unit/test_xsw_source"
STALE="$HELPER/xsw.bpf.o $HELPER/xsw.skel.h $HELPER/clustermon-kprobe
	tests/system/oidlayout $TESTS"

# root: whether this run starts a helper (BPF needs root here).
root=false
[ "$(id -u)" = 0 ] && root=true

# As root: a private helper (its own socket, no pins, its traces here),
# and the source's count through it must grow.
run_helper() {
	local sock=$tmp/helper.sock hlog=$tmp/helper.log rc=1 i
	rm -f "$sock" "$hlog"
	"$bld/$HELPER/clustermon-kprobe" -f -s "$sock" -t "$tmp/traces" -S none 2>"$hlog" &
	helper_pid=$!
	for i in $(seq 100); do # its programs loaded, it serves (about 0.1 s)
		grep -q 'listening on' "$hlog" && break
		kill -0 "$helper_pid" 2>/dev/null || break
		sleep 0.05
	done
	if grep -q 'listening on' "$hlog"; then
		XSW_HELPER_SOCKET=$sock "$bld/tests/unit/test_xsw_source" >>"$log" 2>&1
		rc=$?
	fi
	kill "$helper_pid" 2>/dev/null
	wait "$helper_pid" 2>/dev/null
	helper_pid=
	cat "$hlog" >>"$log"
	return $rc
}

# The copy's checks: 0 when the throwaway builds and its tests pass.
verify() {
	local t
	# nothing the last build made may stand in for what this one must make
	unbuild $STALE
	(cd "$bld" && nice -n 10 make -j2 all && nice -n 10 make -j2 $TESTS tests/system/oidlayout) \
		>>"$log" 2>&1 || { echo "the build"; return 1; }
	for t in $TESTS; do
		"$bld/$t" >>"$log" 2>&1 || { echo "${t##*/}"; return 1; }
	done
	scalar_registered clusterMonXswSwitches || { echo "oidlayout"; return 1; }
	! $root || run_helper || { echo "the helper's count (test_xsw_source with a helper)"; return 1; }
}

echo "1..4"
new_copy "the recipe's steps" || exit 0
if configure_copy && ! grep -q '^HELPER_TRUE = #' "$bld/Makefile"; then
	:
elif [ -e "$bld/Makefile" ] && [ "${CI:-}" != true ]; then
	echo "ok 2 # SKIP the helper is not built here (no clang, bpftool or libbpf)"
	echo "ok 3 # SKIP"
	echo "ok 4 # SKIP"
	exit 0
else
	echo "not ok 2 - the copy does not configure with the helper"
	tail -n 30 "$log" | sed 's/^/#   /'
	exit 0
fi
if why=$(root=false verify); then
	echo "ok 2 - built as the recipe says: the verb round-trips, the reader parses, the source is registered, the agent registers its scalar"
else
	echo "not ok 2 - done as the recipe says, the throwaway fails: $why"
	tail -n 30 "$log" | sed 's/^/#   /'
	exit 0
fi
if $root && run_helper; then
	echo "ok 3 - a private helper loads the program and the source's count grows"
elif $root && [ "${CI:-}" != true ] && grep -q 'the xsw program does not load' "$tmp/helper.log"; then
	echo "ok 3 # SKIP root, but this kernel does not load the program (no BPF here?)"
	root=false # so the steps only a running helper shows are left in
elif $root; then
	echo "not ok 3 - the source's count through a private helper"
	tail -n 30 "$log" | sed 's/^/#   /'
	exit 0
elif [ "${CI:-}" = true ]; then
	echo "not ok 3 - CI=true runs as root, this is uid $(id -u): the helper's count is not checked"
else
	echo "ok 3 # SKIP not root (uid $(id -u)): no helper loads the program, the count is not checked"
fi
# Each step left out in turn must fail somewhere: the build, or a test.
if $root; then
	leave_out_each
	left=
else
	leave_out_each $RUN_ONLY
	left=" ($RUN_ONLY left in: only a running helper shows them, and none ran)"
fi
if [ -z "$unneeded" ]; then
	echo "ok 4 - each step left out makes the build or a test fail$left"
else
	echo "not ok 4 - left out, these steps change nothing (the recipe names what is not needed, or this test checks too little):$unneeded"
fi
