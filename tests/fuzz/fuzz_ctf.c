/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fuzz_ctf.c - the helper's CTF writer (kprobe-helper/ctf.c, ctfstream.c)
 * driven as a trace session drives it, with everything it is handed chosen
 * by the input: a tracefs format file (or, when that does not parse, an
 * event class made of raw field kinds, sizes and names), the host name and
 * description of the metadata, the packet size and CPU of a stream, then a
 * run of event records (id, timestamp, pid, tid, payload of any length),
 * losses and flushes. The writer must refuse what it cannot write (a class
 * ctf_class_check rejects, an event bigger than a packet) and otherwise
 * write a stream file that is exactly whole packets: each opens with the
 * magic, the trace's UUID and the stream's CPU, its content and packet
 * sizes agree with where the next one starts, the packets are numbered in
 * order and their timestamps and discarded counts never go back; the file
 * holds s.bytes and every accepted event. The metadata is TSDL text of the
 * length ctf_metadata said. Files go in a private directory, on /dev/shm
 * when there is one, removed after each input (the directory at exit).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ctf.h"
#include "tpformat.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct input {
	const uint8_t *p;
	size_t n, at;
};

static uint8_t take(struct input *in)
{
	return in->at < in->n ? in->p[in->at++] : 0;
}

static uint64_t take_le(struct input *in, int bytes)
{
	uint64_t v = 0;

	for (int i = 0; i < bytes; i++)
		v |= (uint64_t)take(in) << (8 * i);
	return v;
}

/* A NUL-terminated string of the input into buf (len bytes), cut to fit. */
static void take_text(struct input *in, char *buf, size_t len)
{
	size_t n = 0;
	uint8_t b;

	while ((b = take(in)) != 0 && in->at <= in->n)
		if (n + 1 < len)
			buf[n++] = (char)b;
	buf[n] = '\0';
}

static uint64_t rd(const uint8_t *p, int bytes)
{
	uint64_t v = 0;

	for (int i = 0; i < bytes; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

static char dir_path[64];

/* The directory goes at exit, with what an input cut short left in it. */
static void remove_dir(void)
{
	char path[96];

	for (unsigned cpu = 0; cpu < 8; cpu++) {
		snprintf(path, sizeof(path), "%s/cpu%u", dir_path, cpu);
		unlink(path);
	}
	snprintf(path, sizeof(path), "%s/metadata", dir_path);
	unlink(path);
	rmdir(dir_path);
}

static int dirfd_once(void)
{
	static int fd = -1;

	if (fd >= 0)
		return fd;
	snprintf(dir_path, sizeof(dir_path), "/dev/shm/clustermon-fuzz-ctf.XXXXXX");
	if (mkdtemp(dir_path) == NULL) {
		snprintf(dir_path, sizeof(dir_path), "/tmp/clustermon-fuzz-ctf.XXXXXX");
		if (mkdtemp(dir_path) == NULL)
			abort();
	}
	fd = open(dir_path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		abort();
	atexit(remove_dir);
	return fd;
}

/* The class from raw bytes: a count, then kind, size and name a field. */
static void raw_class(struct input *in, struct ctf_event_class *c)
{
	c->nfields = take(in) % (CTF_MAX_FIELDS + 2);
	for (uint32_t i = 0; i < c->nfields && i < CTF_MAX_FIELDS; i++) {
		struct ctf_field *f = &c->field[i];

		f->kind = (enum ctf_field_kind)(take(in) % 5);
		f->bytes = (uint32_t)take_le(in, 2);
		take_text(in, f->name, sizeof(f->name));
	}
}

/* The stream file, read back packet by packet. */
static void check_stream(int dirfd, const struct ctf_stream *s, const uint8_t uuid[16],
			 uint32_t cpu, uint64_t events)
{
	static uint8_t file[1u << 22];
	uint64_t seq = 0, last_ts = 0, discarded = 0, seen = 0;
	char name[32];
	size_t at = 0, n = 0;
	ssize_t r;
	int fd;

	snprintf(name, sizeof(name), "cpu%u", cpu);
	fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		abort();
	while (n < sizeof(file) && (r = read(fd, file + n, sizeof(file) - n)) > 0)
		n += (size_t)r;
	close(fd);
	if (n != s->bytes || s->events != events)
		abort();
	while (at < n) {
		const uint8_t *p = file + at, *ctx = p + CTF_HEADER_BYTES;
		uint64_t content, packet, ts0, ts1, lost;

		if (n - at < CTF_HEADER_BYTES + CTF_CONTEXT_BYTES || rd(p, 4) != 0xC1FC1FC1u ||
		    memcmp(p + 4, uuid, 16) != 0 || rd(p + 20, 4) != 0)
			abort();
		ts0 = rd(ctx, 8);
		ts1 = rd(ctx + 8, 8);
		content = rd(ctx + 16, 8);
		packet = rd(ctx + 24, 8);
		lost = rd(ctx + 32, 8);
		if (content != packet || packet % 8 != 0 || packet / 8 > n - at ||
		    packet / 8 < CTF_HEADER_BYTES + CTF_CONTEXT_BYTES || rd(ctx + 40, 4) != cpu ||
		    rd(ctx + 44, 8) != seq || ts1 < ts0 || ts0 < last_ts || lost < discarded)
			abort();
		/* The events of the packet: headers in bounds, timestamps in it. */
		for (size_t e = CTF_HEADER_BYTES + CTF_CONTEXT_BYTES; e < packet / 8;) {
			uint64_t ts;

			if (packet / 8 - e < CTF_EVENT_HEADER_BYTES)
				abort();
			ts = rd(p + e + 4, 8);
			if (ts < ts0 || ts > ts1 || rd(p + e + 12, 4) != cpu)
				abort();
			seen++;
			/* Payload lengths are not in the file (the class has them):
			 * a packet of one event is all this can walk. */
			break;
		}
		last_ts = ts1;
		discarded = lost;
		seq++;
		at += packet / 8;
	}
	if (seq != s->seq || (events > 0 && seen == 0))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char text[8192], meta[1 << 16], why[256];
	static uint8_t payload[CTF_MAX_PACKET];
	struct input in = { data, size, 0 };
	struct ctf_event_class classes[2];
	struct ctf_trace t;
	struct ctf_stream s;
	uint8_t flags = take(&in);
	uint32_t cpu = flags & 7;
	size_t packet = CTF_MIN_PACKET << (flags >> 3 & 7), copy = 0;
	uint64_t events = 0, metabytes = 0;
	int dirfd = dirfd_once(), len;
	char name[32];

	memset(classes, 0, sizeof(classes));
	memset(&t, 0, sizeof(t));
	snprintf(classes[0].name, sizeof(classes[0].name), "fuzz:event");
	take_text(&in, text, sizeof(text));
	if (tpformat_parse(text, &classes[0], &copy, why, sizeof(why)) != 0) {
		memset(classes[0].field, 0, sizeof(classes[0].field));
		raw_class(&in, &classes[0]);
		if (ctf_class_check(&classes[0], why, sizeof(why)) != 0)
			return 0;
	} else if (copy != ctf_payload_bytes(&classes[0]) ||
		   ctf_class_check(&classes[0], why, sizeof(why)) != 0) {
		abort(); /* an accepted format declares what it copies, and TSDL holds it */
	}
	take_text(&in, classes[1].name, sizeof(classes[1].name));
	if (classes[1].name[0] == '\0' || ctf_class_check(&classes[1], why, sizeof(why)) != 0)
		snprintf(classes[1].name, sizeof(classes[1].name), "fuzz:other");
	for (int i = 0; i < 16; i++)
		t.uuid[i] = take(&in);
	take_text(&in, t.hostname, sizeof(t.hostname));
	take_text(&in, t.description, sizeof(t.description));
	t.clock_offset_ns = (int64_t)take_le(&in, 8);
	t.nclasses = 2;
	t.classes = classes;
	len = ctf_metadata(&t, meta, sizeof(meta));
	if (len >= 0 && ((size_t)len >= sizeof(meta) || strlen(meta) != (size_t)len ||
			 strncmp(meta, "/* CTF 1.8 */", 13) != 0))
		abort();
	if (len >= 0 && (ctf_write_metadata(&t, dirfd, &metabytes) != 0 ||
			 metabytes != (uint64_t)len))
		abort();
	unlinkat(dirfd, "metadata", 0);

	if (ctf_stream_open(&s, dirfd, cpu, t.uuid, packet) != 0)
		abort();
	while (in.at < in.n) {
		uint8_t op = take(&in);

		if (op < 200) {
			uint32_t id = op % 3;
			uint64_t ts = take_le(&in, 8);
			int32_t pid = (int32_t)take_le(&in, 4), tid = (int32_t)take_le(&in, 4);
			size_t n = take_le(&in, 2) % (ctf_payload_bytes(&classes[0]) + 64);

			if (op & 0x80)
				n = packet; /* too big for a packet with its header */
			for (size_t i = 0; i < n && i < sizeof(payload); i++)
				payload[i] = take(&in);
			if (ctf_stream_event(&s, id, ts, pid, tid, payload, n) == 0)
				events++;
			else if (errno != EFBIG || n + CTF_EVENT_HEADER_BYTES + CTF_HEADER_BYTES +
						   CTF_CONTEXT_BYTES <= packet)
				abort();
		} else if (op < 240) {
			ctf_stream_lost(&s, take_le(&in, op & 7));
		} else if (ctf_stream_flush(&s) != 0) {
			abort();
		}
		if (s.bytes > (1u << 21))
			break; /* enough of one file */
	}
	if (ctf_stream_flush(&s) != 0)
		abort();
	check_stream(dirfd, &s, t.uuid, cpu, events);
	if (ctf_stream_close(&s) != 0)
		abort();
	snprintf(name, sizeof(name), "cpu%u", cpu);
	unlinkat(dirfd, name, 0);
	return 0;
}

#ifdef FUZZ_SMOKE_MAIN
static const char *const fuzz_splices[] = {
	"\tfield:", ";\toffset:", ";\tsize:", ";\tsigned:", "unsigned long ", "char comm[16]",
	"[16]", "__data_loc char[] ", "\n", "\0", "\xff\xff", "\xf0", "\xc8", "\x7f", "\x80",
	"sched_switch", "4096", "65536", "0",
};
static const size_t fuzz_nsplices = sizeof(fuzz_splices) / sizeof(fuzz_splices[0]);
static const char *const fuzz_seeds[] = { "ctf/sched_switch.bin", "ctf/raw.bin" };
static const size_t fuzz_nseeds = sizeof(fuzz_seeds) / sizeof(fuzz_seeds[0]);
#define MUTATIONS 5000
#include "smoke.h"
#endif
