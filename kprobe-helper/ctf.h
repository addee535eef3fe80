/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ctf.h - a Common Trace Format 1.8 writer for clustermon's trace sessions.
 *
 * A trace is a directory: a plain-text "metadata" file (TSDL) and one
 * binary stream file per CPU, "cpu0", "cpu1", ... All streams are of one
 * stream class; every packet has
 *
 *   header:  magic 0xC1FC1FC1, the trace's UUID, stream_id 0
 *   context: timestamp_begin, timestamp_end (clock "monotonic"),
 *            content_size, packet_size (bits), events_discarded (running
 *            total of the stream's lost records), cpu_id, packet_seq_num
 *
 * and every event
 *
 *   header:  id (uint32), timestamp (uint64 ns of the monotonic clock)
 *   context: cpu (uint32), pid, tid (int32)
 *   payload: the event class's fields, packed in declaration order
 *
 * Every type is byte aligned and little-endian, so a payload is exactly
 * the bytes a BPF program filled in. Field names are written with a leading
 * underscore (CTF's escape for names that may be TSDL keywords), which
 * readers strip. Pure C: no BPF.
 */
#ifndef CLUSTERMON_CTF_H
#define CLUSTERMON_CTF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CTF_MAX_FIELDS 32
#define CTF_MAX_NAME 63
#define CTF_MAX_EVENT_NAME 127
#define CTF_HEADER_BYTES 24   /* magic, uuid, stream_id */
#define CTF_CONTEXT_BYTES 52  /* the packet context above */
#define CTF_EVENT_HEADER_BYTES 24 /* id, timestamp, cpu, pid, tid */

enum ctf_field_kind {
	CTF_UNSIGNED,  /* an integer of 8, 16, 32 or 64 bits */
	CTF_SIGNED,
	CTF_TEXT,      /* a fixed char array shown as a string (comm) */
	CTF_BYTES,     /* a fixed byte array */
};

struct ctf_field {
	char name[CTF_MAX_NAME + 1];
	enum ctf_field_kind kind;
	uint32_t bytes;   /* size: 1, 2, 4 or 8 for integers, 1..4096 arrays */
};

struct ctf_event_class {
	char name[CTF_MAX_EVENT_NAME + 1];
	uint32_t nfields;
	struct ctf_field field[CTF_MAX_FIELDS];
};

struct ctf_trace {
	uint8_t uuid[16];
	char hostname[65];
	char description[272];    /* env.description: the session's spec */
	int64_t clock_offset_ns;  /* CLOCK_REALTIME - CLOCK_MONOTONIC */
	uint32_t nclasses;
	const struct ctf_event_class *classes;  /* event id = index */
};

/* Bytes of a payload of class c (the sum of its fields). */
size_t ctf_payload_bytes(const struct ctf_event_class *c);
/* 0, or -1 with why when a field or name cannot be written. */
int ctf_class_check(const struct ctf_event_class *c, char *why, size_t whylen);

/* The TSDL text into buf: its length, or -1 when it does not fit. */
int ctf_metadata(const struct ctf_trace *t, char *buf, size_t len);
/*
 * Creates the file name in the directory dirfd, mode as given (whatever
 * the umask): never one that exists, never through a symbolic link
 * (O_CREAT|O_EXCL|O_NOFOLLOW, so EEXIST). The fd, or -1 with errno.
 */
int ctf_create_file(int dirfd, const char *name, unsigned mode);
/* Creates and writes "metadata" in the directory dirfd (ctf_create_file),
 * its size into *bytes (may be NULL): 0 or -1 with errno. */
int ctf_write_metadata(const struct ctf_trace *t, int dirfd, uint64_t *bytes);

/* One CPU's stream file, packets assembled in memory. */
struct ctf_stream {
	int fd;
	uint32_t cpu;
	uint8_t uuid[16];
	uint8_t *pkt;
	size_t cap, used;          /* packet buffer; used includes the header */
	uint64_t first_ts, last_ts;
	uint64_t seq;
	uint64_t discarded;        /* running total, written in each packet */
	uint64_t discarded_written; /* the total the last packet carried */
	uint64_t events;           /* events written (flushed or buffered) */
	uint64_t bytes;            /* bytes written to the file */
	uint64_t reordered;        /* timestamps raised to the previous one */
};

#define CTF_MIN_PACKET 4096
#define CTF_MAX_PACKET (1u << 20)

/* Creates "cpuN" in the directory dirfd (ctf_create_file: EEXIST when
 * it exists), packets of at most packet_bytes: 0 or -1 errno. */
int ctf_stream_open(struct ctf_stream *s, int dirfd, uint32_t cpu, const uint8_t uuid[16],
		    size_t packet_bytes);
/*
 * Appends an event; a full packet is written out first. A timestamp below
 * the stream's previous one is raised to it (readers need them monotonic
 * per stream). 0, or -1 with errno (ENOSPC, EFBIG for a payload bigger
 * than a packet).
 */
int ctf_stream_event(struct ctf_stream *s, uint32_t id, uint64_t ts, int32_t pid, int32_t tid,
		     const void *payload, size_t len);
/* Bytes the event would add to the file (for a session's byte budget). */
size_t ctf_event_bytes(size_t payload_len);
/* Records lost before the next event (shown as discarded by readers). */
void ctf_stream_lost(struct ctf_stream *s, uint64_t n);
/* Writes the packet being assembled, if it has events or new losses: 0 or
 * -1 errno. */
int ctf_stream_flush(struct ctf_stream *s);
/* write(2) until done (EINTR retried): 0 or -1 errno. */
int ctf_write_all(int fd, const void *buf, size_t n);
/* Flushes and closes: 0 or -1 errno (the file is closed either way). */
int ctf_stream_close(struct ctf_stream *s);

#endif
