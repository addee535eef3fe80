/* SPDX-License-Identifier: BSD-2-Clause */
/* ctf.c - CTF 1.8 metadata and per-CPU stream files (see ctf.h). */
#include "ctf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>


size_t ctf_payload_bytes(const struct ctf_event_class *c)
{
	size_t n = 0;

	for (uint32_t i = 0; i < c->nfields && i < CTF_MAX_FIELDS; i++)
		n += c->field[i].bytes;
	return n;
}

/* TSDL identifiers: what a C compiler accepts (tracepoint field names are
 * C identifiers, but the formats are read from the kernel: checked). */
static bool identifier(const char *s)
{
	if (*s == '\0' || (*s >= '0' && *s <= '9'))
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '_'))
			return false;
	return true;
}

static bool field_ok(const struct ctf_field *f)
{
	switch (f->kind) {
	case CTF_UNSIGNED:
	case CTF_SIGNED:
		return f->bytes == 1 || f->bytes == 2 || f->bytes == 4 || f->bytes == 8;
	case CTF_TEXT:
	case CTF_BYTES:
		return f->bytes >= 1 && f->bytes <= 4096;
	}
	return false;
}

int ctf_class_check(const struct ctf_event_class *c, char *why, size_t whylen)
{
	if (c->name[0] == '\0') {
		snprintf(why, whylen, "empty event name");
		return -1;
	}
	for (const char *p = c->name; *p; p++)
		if (*p == '"' || *p == '\\' || (unsigned char)*p < 0x20 || (unsigned char)*p > 0x7e) {
			snprintf(why, whylen, "event name has a character TSDL cannot quote");
			return -1;
		}
	if (c->nfields > CTF_MAX_FIELDS) {
		snprintf(why, whylen, "more than %d fields", CTF_MAX_FIELDS);
		return -1;
	}
	for (uint32_t i = 0; i < c->nfields; i++) {
		if (!identifier(c->field[i].name)) {
			snprintf(why, whylen, "field %u: '%.63s' is not an identifier", i,
				 c->field[i].name);
			return -1;
		}
		if (!field_ok(&c->field[i])) {
			snprintf(why, whylen, "field %s: unsupported size %u", c->field[i].name,
				 c->field[i].bytes);
			return -1;
		}
	}
	return 0;
}

/* Appends to buf like snprintf; *off runs past len when it does not fit. */
static __attribute__((format(printf, 4, 5))) void put(char *buf, size_t len, size_t *off,
						      const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(*off < len ? buf + *off : NULL, *off < len ? len - *off : 0, fmt, ap);
	va_end(ap);
	if (n > 0)
		*off += (size_t)n;
}

static void put_uuid(char *buf, size_t len, size_t *off, const uint8_t u[16])
{
	for (int i = 0; i < 16; i++)
		put(buf, len, off, "%s%02x", (i == 4 || i == 6 || i == 8 || i == 10) ? "-" : "",
		    u[i]);
}

/* A TSDL string literal's text: quotes, backslashes and control bytes
 * (hostnames and specs come from outside) become '?'. */
static void put_quoted(char *buf, size_t len, size_t *off, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		put(buf, len, off, "%c", (c < 0x20 || c > 0x7e || c == '"' || c == '\\') ? '?' : c);
	}
}

/* The preamble: integer aliases, the trace with its packet header, env. */
static void put_trace(const struct ctf_trace *t, char *buf, size_t len, size_t *off)
{
	put(buf, len, off,
	    "/* CTF 1.8 */\n\n"
	    "typealias integer { size = 8; align = 8; signed = false; } := uint8_t;\n"
	    "typealias integer { size = 16; align = 8; signed = false; } := uint16_t;\n"
	    "typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n"
	    "typealias integer { size = 64; align = 8; signed = false; } := uint64_t;\n"
	    "typealias integer { size = 32; align = 8; signed = true; } := int32_t;\n\n"
	    "trace {\n\tmajor = 1;\n\tminor = 8;\n\tuuid = \"");
	put_uuid(buf, len, off, t->uuid);
	put(buf, len, off,
	    "\";\n\tbyte_order = le;\n"
	    "\tpacket.header := struct {\n\t\tuint32_t magic;\n\t\tuint8_t uuid[16];\n"
	    "\t\tuint32_t stream_id;\n\t};\n};\n\n"
	    "env {\n\tdomain = \"kernel\";\n\ttracer_name = \"clustermon-kprobe\";\n"
	    "\thostname = \"");
	put_quoted(buf, len, off, t->hostname);
	put(buf, len, off, "\";\n\tdescription = \"");
	put_quoted(buf, len, off, t->description);
	put(buf, len, off, "\";\n};\n\n");
}

/* bpf_ktime_get_ns() is CLOCK_MONOTONIC; the offset places its origin on
 * the calendar so readers print wall-clock times. */
static void put_clock_and_stream(const struct ctf_trace *t, char *buf, size_t len, size_t *off)
{
	int64_t s = t->clock_offset_ns / 1000000000, ns = t->clock_offset_ns % 1000000000;

	if (ns < 0) {
		ns += 1000000000;
		s--;
	}
	put(buf, len, off, "clock {\n\tname = \"monotonic\";\n\tuuid = \"");
	put_uuid(buf, len, off, t->uuid);
	put(buf, len, off,
	    "\";\n\tdescription = \"CLOCK_MONOTONIC (bpf_ktime_get_ns)\";\n"
	    "\tfreq = 1000000000;\n\tprecision = 1;\n\toffset_s = %lld;\n\toffset = %lld;\n"
	    "\tabsolute = false;\n};\n\n"
	    "typealias integer { size = 64; align = 8; signed = false; "
	    "map = clock.monotonic.value; } := uint64_clock_monotonic_t;\n\n"
	    "stream {\n\tid = 0;\n"
	    "\tpacket.context := struct {\n"
	    "\t\tuint64_clock_monotonic_t timestamp_begin;\n"
	    "\t\tuint64_clock_monotonic_t timestamp_end;\n"
	    "\t\tuint64_t content_size;\n\t\tuint64_t packet_size;\n"
	    "\t\tuint64_t events_discarded;\n\t\tuint32_t cpu_id;\n"
	    "\t\tuint64_t packet_seq_num;\n\t};\n"
	    "\tevent.header := struct {\n\t\tuint32_t id;\n"
	    "\t\tuint64_clock_monotonic_t timestamp;\n\t};\n"
	    "\tevent.context := struct {\n\t\tuint32_t _cpu;\n\t\tint32_t _pid;\n"
	    "\t\tint32_t _tid;\n\t};\n};\n\n",
	    (long long)s, (long long)ns);
}

static void put_field(const struct ctf_field *f, char *buf, size_t len, size_t *off)
{
	switch (f->kind) {
	case CTF_UNSIGNED:
	case CTF_SIGNED:
		put(buf, len, off,
		    "\t\tinteger { size = %u; align = 8; signed = %s; } _%s;\n", f->bytes * 8,
		    f->kind == CTF_SIGNED ? "true" : "false", f->name);
		break;
	case CTF_TEXT:
		put(buf, len, off,
		    "\t\tinteger { size = 8; align = 8; signed = false; encoding = UTF8; } "
		    "_%s[%u];\n", f->name, f->bytes);
		break;
	case CTF_BYTES:
		put(buf, len, off, "\t\tuint8_t _%s[%u];\n", f->name, f->bytes);
		break;
	}
}

int ctf_metadata(const struct ctf_trace *t, char *buf, size_t len)
{
	size_t off = 0;

	put_trace(t, buf, len, &off);
	put_clock_and_stream(t, buf, len, &off);
	for (uint32_t id = 0; id < t->nclasses; id++) {
		const struct ctf_event_class *c = &t->classes[id];

		put(buf, len, &off, "event {\n\tname = \"%s\";\n\tid = %u;\n\tstream_id = 0;\n"
			"\tfields := struct {\n", c->name, id);
		for (uint32_t i = 0; i < c->nfields && i < CTF_MAX_FIELDS; i++)
			put_field(&c->field[i], buf, len, &off);
		put(buf, len, &off, "\t};\n};\n\n");
	}
	return off < len ? (int)off : -1;
}

/* The two file primitives ctfstream.c writes through live here, below it:
 * the streams call this file, never the other way round. */
int ctf_create_file(int dirfd, const char *name, unsigned mode)
{
	/* O_EXCL|O_NOFOLLOW: a name that exists, a symbolic link included, is
	 * refused (EEXIST), never followed or truncated. */
	int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);

	/* The mode went through the umask: set it on the file itself. */
	if (fd >= 0 && fchmod(fd, (mode_t)mode) != 0) {
		int saved = errno;

		close(fd);
		errno = saved;
		return -1;
	}
	return fd;
}

int ctf_write_all(int fd, const void *buf, size_t n)
{
	const uint8_t *b = buf;

	while (n > 0) {
		ssize_t w = write(fd, b, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -1;
		if (w == 0) {
			errno = ENOSPC;
			return -1;
		}
		b += w;
		n -= (size_t)w;
	}
	return 0;
}

int ctf_write_metadata(const struct ctf_trace *t, int dirfd, uint64_t *bytes)
{
	size_t cap = 8192 + (size_t)t->nclasses * (256 + CTF_MAX_FIELDS * 96);
	char *text = malloc(cap);
	int n, fd, rc = -1, saved;

	if (text == NULL)
		return -1;
	n = ctf_metadata(t, text, cap);
	if (n < 0) {
		free(text);
		errno = ENAMETOOLONG;
		return -1;
	}
	fd = ctf_create_file(dirfd, "metadata", 0644);
	if (fd >= 0) {
		rc = ctf_write_all(fd, text, (size_t)n);
		saved = errno;
		if (close(fd) != 0 && rc == 0)
			rc = -1;
		else
			errno = saved;
	}
	if (rc == 0 && bytes != NULL)
		*bytes = (uint64_t)n;
	free(text);
	return rc;
}
