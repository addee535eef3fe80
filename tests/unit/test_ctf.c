/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_ctf.c - the CTF writer against an independent reader: a trace of
 * two event classes on two CPUs, several packets each and lost records, is
 * read back by babeltrace2, which must print every event with its
 * timestamp, CPU, pid, tid and fields, and report the losses. Also the
 * refusals (names TSDL cannot hold, events bigger than a packet) and the
 * metadata's size check.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ctf.h"
#include "tap.h"
#include "tpformat.h"

#define PER_CPU 500

static const struct ctf_event_class classes[] = {
	{ "sched_switch", 5, {
		{ "prev_comm", CTF_TEXT, 16 },
		{ "prev_pid", CTF_SIGNED, 4 },
		{ "prev_state", CTF_UNSIGNED, 8 },
		{ "next_pid", CTF_SIGNED, 4 },
		{ "flags", CTF_UNSIGNED, 2 },
	} },
	{ "syscalls:sys_enter_getppid", 0, { { "", 0, 0 } } },
};

struct sw_payload {
	char comm[16];
	int32_t prev_pid;
	uint64_t prev_state;
	int32_t next_pid;
	uint16_t flags;
} __attribute__((packed));

static char dir[] = "/tmp/test_ctf.XXXXXX";
static int dirfd = -1;

/* Event i of cpu: ts 1000*i + cpu, alternating classes; records of
 * i % 100 == 99 are "lost" before event i on CPU 1, and 4 on CPU 0 before
 * its first event. */
static int write_trace(void)
{
	struct ctf_trace t = { .nclasses = 2, .classes = classes, .clock_offset_ns = -1 };
	struct ctf_stream s[2];
	uint64_t meta = 0;

	memcpy(t.uuid, "0123456789abcdef", 16);
	strcpy(t.hostname, "node\"7");
	strcpy(t.description, "test trace");
	if (ctf_write_metadata(&t, dirfd, &meta) != 0 || meta == 0)
		return -1;
	for (uint32_t cpu = 0; cpu < 2; cpu++) {
		if (ctf_stream_open(&s[cpu], dirfd, cpu, t.uuid, CTF_MIN_PACKET) != 0)
			return -1;
		if (cpu == 0)
			ctf_stream_lost(&s[cpu], 4);  /* before the first event */
		for (int i = 0; i < PER_CPU; i++) {
			struct sw_payload p = { "", 100 + i, (uint64_t)1 << 40, -(i + 1), 0xbeef };
			int rc;

			snprintf(p.comm, sizeof(p.comm), "task%d", i);
			if (cpu == 1 && i % 100 == 99)
				ctf_stream_lost(&s[cpu], 3);
			if (i % 2 == 0)
				rc = ctf_stream_event(&s[cpu], 0, 1000u * (uint64_t)i + cpu, 4000 + i,
						      5000 + i, &p, sizeof(p));
			else
				rc = ctf_stream_event(&s[cpu], 1, 1000u * (uint64_t)i + cpu, 7, 8,
						      NULL, 0);
			if (rc != 0)
				return -1;
		}
	}
	ctf_stream_lost(&s[1], 2);  /* after the last event: an empty packet says so */
	return ctf_stream_close(&s[0]) | ctf_stream_close(&s[1]);
}

struct seen {
	int events[2], switches, getppid, good_fields, bad_ts, discarded;
	uint64_t last_ts[2];
};

static void parse_line(const char *line, struct seen *v)
{
	unsigned long long ts;
	unsigned cpu, ecpu;
	int pid, tid, ppid, npid, n = -1;
	char comm[32];
	unsigned long long state;
	unsigned flags;
	const char *ctx;

	if (strstr(line, "discarded") != NULL) {
		const char *p = strstr(line, "discarded ");
		v->discarded += p ? atoi(p + 10) : 0;
		return;
	}
	ctx = strstr(line, ": { cpu_id = ");
	if (ctx == NULL || sscanf(line, "[%llu] node?7 ", &ts) != 1 ||
	    sscanf(ctx, ": { cpu_id = %u }, { cpu = %u, pid = %d, tid = %d }%n", &cpu, &ecpu,
		   &pid, &tid, &n) < 4 || n < 0 || cpu > 1 || ecpu != cpu)
		return;
	v->events[cpu]++;
	if (ts < v->last_ts[cpu] || ts % 1000 != cpu)
		v->bad_ts++;
	v->last_ts[cpu] = ts;
	if (strstr(line, " sched_switch:") != NULL) {
		int i = (int)(ts / 1000);

		v->switches++;
		if (sscanf(ctx + n, ", { prev_comm = \"%31[^\"]\", prev_pid = %d, prev_state = %llu, "
			   "next_pid = %d, flags = %u }", comm, &ppid, &state, &npid, &flags) == 5 &&
		    ppid == 100 + i && npid == -(i + 1) && state == (1ull << 40) &&
		    flags == 0xbeef && pid == 4000 + i && tid == 5000 + i &&
		    strncmp(comm, "task", 4) == 0 && atoi(comm + 4) == i)
			v->good_fields++;
	} else if (strstr(line, " syscalls:sys_enter_getppid:") != NULL && pid == 7 && tid == 8) {
		v->getppid++;
	}
}

static void test_babeltrace(void)
{
	char cmd[320], line[1024];
	struct seen v = { { 0, 0 }, 0, 0, 0, 0, 0, { 0, 0 } };
	unsigned char magic[4];
	FILE *p, *f;

	ok(write_trace() == 0, "a two-CPU trace is written to %s", dir);
	snprintf(cmd, sizeof(cmd), "%s/metadata", dir);
	f = fopen(cmd, "r");
	ok(f != NULL && fgets(line, sizeof(line), f) != NULL && strcmp(line, "/* CTF 1.8 */\n") == 0,
	   "metadata is plain-text TSDL with its version comment");
	if (f != NULL)
		fclose(f);
	snprintf(cmd, sizeof(cmd), "%s/cpu1", dir);
	f = fopen(cmd, "rb");
	ok(f != NULL && fread(magic, 1, 4, f) == 4 && memcmp(magic, "\xc1\x1f\xfc\xc1", 4) == 0,
	   "cpu1 starts with the packet magic, little-endian");
	if (f != NULL)
		fclose(f);
	if (system("babeltrace2 --version >/dev/null 2>&1") != 0) {
		if (getenv("CI") != NULL && strcmp(getenv("CI"), "true") == 0) {
			ok(0, "babeltrace2 is installed (tests/setup-deps.sh)");
			return;
		}
		printf("ok %d # SKIP babeltrace2 not installed (tests/setup-deps.sh)\n", ++tap_count);
		return;
	}
	/* Its warnings (discarded records) go to stderr: a file of their own,
	 * or they land in the middle of event lines. */
	snprintf(cmd, sizeof(cmd), "babeltrace2 --clock-cycles --no-delta %s 2>%s.err; cat %s.err",
		 dir, dir, dir);
	p = popen(cmd, "r");
	while (p != NULL && fgets(line, sizeof(line), p) != NULL) {
		if (v.events[0] + v.events[1] < 3)
			diag("%.200s", line);
		parse_line(line, &v);
	}
	ok(p != NULL && pclose(p) == 0, "babeltrace2 reads it without an error");
	ok(v.events[0] == PER_CPU && v.events[1] == PER_CPU,
	   "every event on both CPUs (%d, %d of %d)", v.events[0], v.events[1], PER_CPU);
	ok(v.switches == PER_CPU && v.getppid == PER_CPU,
	   "each of the two classes by name (%d, %d)", v.switches, v.getppid);
	ok(v.good_fields == PER_CPU, "every field value of every payload (%d right)", v.good_fields);
	ok(v.bad_ts == 0, "timestamps exact and monotonic per CPU (%d wrong)", v.bad_ts);
	ok(v.discarded == 4 + 5 * 3 + 2,
	   "discarded records reported, leading and trailing ones too (%d)",
	   v.discarded);
}

/* A symbolic link where a file is to be made: refused, its target
 * untouched, whatever it points at. */
static void test_no_follow(const struct ctf_trace *t)
{
	char target[64], link[128], sub[64];
	struct ctf_stream s;
	struct stat st;
	int fd, subfd;

	snprintf(sub, sizeof(sub), "%s/links", dir);
	snprintf(target, sizeof(target), "%s/target", dir);
	fd = open(target, O_WRONLY | O_CREAT | O_EXCL, 0600);
	if (mkdir(sub, 0755) != 0 || fd < 0 || write(fd, "keep", 4) != 4 || close(fd) != 0) {
		ok(0, "cannot make %s: %s", sub, strerror(errno));
		return;
	}
	subfd = open(sub, O_RDONLY | O_DIRECTORY);
	snprintf(link, sizeof(link), "%s/metadata", sub);
	if (symlink(target, link) != 0)
		diag("symlink %s: %s", link, strerror(errno));
	snprintf(link, sizeof(link), "%s/cpu3", sub);
	if (symlink(target, link) != 0)
		diag("symlink %s: %s", link, strerror(errno));
	snprintf(link, sizeof(link), "%s/cpu4", sub);
	if (symlink("nowhere", link) != 0)   /* dangling: O_CREAT alone would create it */
		diag("symlink %s: %s", link, strerror(errno));
	ok(ctf_write_metadata(t, subfd, NULL) == -1 && errno == EEXIST,
	   "metadata planted as a symbolic link is refused (EEXIST)");
	ok(ctf_stream_open(&s, subfd, 3, t->uuid, CTF_MIN_PACKET) == -1 && errno == EEXIST,
	   "so is cpu3");
	ok(ctf_stream_open(&s, subfd, 4, t->uuid, CTF_MIN_PACKET) == -1 && errno == EEXIST,
	   "and cpu4 pointing nowhere");
	ok(stat(target, &st) == 0 && st.st_size == 4 && (st.st_mode & 07777) == 0600,
	   "the target keeps its bytes and mode");
	snprintf(link, sizeof(link), "%s/nowhere", sub);
	ok(access(link, F_OK) != 0, "nothing is made where the dangling link points");
	close(subfd);
}

static void test_refusals(void)
{
	struct ctf_event_class c = { "x", 1, { { "not an identifier", CTF_UNSIGNED, 4 } } };
	struct ctf_trace t = { .nclasses = 1, .classes = &c };
	struct ctf_stream s;
	static uint8_t big[CTF_MIN_PACKET];
	char why[128], small[64];

	ok(ctf_class_check(&c, why, sizeof(why)) == -1 && strstr(why, "identifier") != NULL,
	   "a field name with spaces is refused: %s", why);
	strcpy(c.field[0].name, "ok");
	c.field[0].bytes = 3;
	ok(ctf_class_check(&c, why, sizeof(why)) == -1 && strstr(why, "size 3") != NULL,
	   "a 24-bit integer is refused: %s", why);
	c.field[0].bytes = 8;
	ok(ctf_class_check(&c, why, sizeof(why)) == 0, "a 64-bit integer is fine");
	strcpy(c.name, "a\"b");
	ok(ctf_class_check(&c, why, sizeof(why)) == -1, "an event name with a quote is refused");
	ok(ctf_metadata(&t, small, sizeof(small)) == -1, "metadata too big for the buffer: -1");
	ok(ctf_payload_bytes(&classes[0]) == sizeof(struct sw_payload),
	   "payload size is the packed sum of the fields (%zu)", ctf_payload_bytes(&classes[0]));
	ok(ctf_stream_open(&s, dirfd, 9, t.uuid, 100) == -1 && errno == EINVAL,
	   "a packet smaller than %d bytes is refused", CTF_MIN_PACKET);
	ok(ctf_stream_open(&s, dirfd, 9, t.uuid, CTF_MIN_PACKET) == 0, "a stream opens");
	ok(ctf_stream_event(&s, 0, 1, 1, 1, big, sizeof(big)) == -1 && errno == EFBIG,
	   "an event bigger than a packet: EFBIG");
	ok(ctf_stream_event(&s, 0, 5, 1, 1, NULL, 0) == 0 &&
		   ctf_stream_event(&s, 0, 3, 1, 1, NULL, 0) == 0 && s.reordered == 1 &&
		   s.last_ts == 5, "an earlier timestamp is raised to the previous one");
	ok(ctf_stream_close(&s) == 0 && s.pkt == NULL, "close flushes and frees");
	ok(ctf_stream_open(&s, dirfd, 9, t.uuid, CTF_MIN_PACKET) == -1 && errno == EEXIST,
	   "a stream file that exists is refused, never truncated (EEXIST)");
	ok(ctf_write_metadata(&t, dirfd, NULL) == -1 && errno == EEXIST,
	   "so is a metadata file that exists");
	test_no_follow(&t);
}

/* sys_enter_write's format, a hole after __syscall_nr included. */
static const char write_format[] =
	"name: sys_enter_write\nID: 840\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
	"\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned int fd;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:const char * buf;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:char comm[16];\toffset:32;\tsize:16;\tsigned:0;\n"
	"\tfield:__data_loc char[] name;\toffset:48;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"fd: 0x%08lx\", ((unsigned long)(REC->fd))\n";

static void test_tpformat(void)
{
	struct ctf_event_class c = { .name = "syscalls:sys_enter_write" };
	size_t payload = 0;
	char why[128], bad[sizeof(write_format) + 64];

	ok(tpformat_parse(write_format, &c, &payload, why, sizeof(why)) == 0,
	   "a tracefs format parses");
	ok(payload == 44 && ctf_payload_bytes(&c) == 44,
	   "the payload is offset 8 to the last field's end (%zu)", payload);
	ok(c.nfields == 6 && strcmp(c.field[0].name, "__syscall_nr") == 0 &&
		   c.field[0].kind == CTF_SIGNED && c.field[0].bytes == 4 &&
		   c.field[1].kind == CTF_BYTES && c.field[1].bytes == 4 &&
		   strcmp(c.field[2].name, "fd") == 0 && c.field[2].kind == CTF_UNSIGNED &&
		   strcmp(c.field[3].name, "buf") == 0 && c.field[3].bytes == 8 &&
		   strcmp(c.field[4].name, "comm") == 0 && c.field[4].kind == CTF_TEXT &&
		   strcmp(c.field[5].name, "name") == 0 && c.field[5].bytes == 4,
	   "fields in order: a hole becomes padding, char arrays text, pointers integers");
	snprintf(bad, sizeof(bad), "%s\tfield:int x;\toffset:20;\tsize:4;\tsigned:1;\n",
		 write_format);
	ok(tpformat_parse(bad, &c, &payload, why, sizeof(why)) == -1 && strstr(why, "overlaps"),
	   "an overlapping field is refused: %s", why);
	ok(tpformat_parse("\tfield:int x;\toffset:8;\tsize:4096;\tsigned:1;\n", &c, &payload,
			  why, sizeof(why)) == -1, "a record beyond %d bytes is refused",
	   TP_MAX_PAYLOAD);
	ok(tpformat_parse("\tfield:int x y;\toffset:8;\tsize:3;\tsigned:1;\n", &c, &payload,
			  why, sizeof(why)) == 0 && c.field[0].kind == CTF_BYTES,
	   "an odd-sized scalar becomes a byte array");
}

/* kmem:kmalloc as 6.x kernels write it (print fmt cut short). */
static const char kmalloc_format[] =
	"name: kmalloc\nID: 658\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
	"\tfield:unsigned long call_site;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:const void * ptr;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:size_t bytes_req;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long gfp_flags;\toffset:32;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long ip;\toffset:40;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long ipx;\toffset:48;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"call_site=%pS ptr=%p bytes_req=%zu ip=%lx\", (void *)REC->call_site, "
	"REC->ptr, REC->bytes_req, (unsigned long)REC->ipx, ( void * ) REC->ip\n";

static void test_pointers(void)
{
	struct tp_span s[8];
	struct tp_numeric f;
	char why[128];
	int n = tpformat_pointers(kmalloc_format, s, 8);

	ok(n == 3 && s[0].offset == 0 && s[0].bytes == 8 && s[1].offset == 8 &&
		   s[2].offset == 32, "call_site (cast to void *), ptr (void *) and ip are "
	   "pointers; bytes_req, gfp_flags and ipx (cast to a number) are not (%d)", n);
	ok(tpformat_pointers(kmalloc_format, s, 2) == -1, "more pointers than room: -1");
	ok(tpformat_field(kmalloc_format, "ptr", &f, why, sizeof(why)) == 0 && f.is_pointer &&
		   tpformat_field(kmalloc_format, "bytes_req", &f, why, sizeof(why)) == 0 &&
		   !f.is_pointer, "tpformat_field says which field is a pointer");
	ok(tpformat_pointers(write_format, s, 8) == 1 && s[0].offset == 16,
	   "const char * buf is one; a __data_loc locator is not");
}

static void cleanup(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s %s.err", dir, dir);
	if (system(cmd) != 0)
		diag("could not remove %s", dir);
}

int main(void)
{
	if (mkdtemp(dir) == NULL || (dirfd = open(dir, O_RDONLY | O_DIRECTORY)) < 0) {
		perror(dir);
		return 1;
	}
	test_babeltrace();
	test_refusals();
	test_tpformat();
	test_pointers();
	cleanup();
	return done_testing();
}
