/* SPDX-License-Identifier: BSD-2-Clause */
/* ctfstream.c - one CPU's CTF stream file: packets assembled in memory and
 * written whole, so a reader never sees half a packet (see ctf.h). */
#include "ctf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CTF_MAGIC 0xC1FC1FC1u
#define CTF_PREFIX (CTF_HEADER_BYTES + CTF_CONTEXT_BYTES)

/* Little-endian stores, whatever the host (the metadata says le). */
static void le(uint8_t *p, uint64_t v, int bytes)
{
	for (int i = 0; i < bytes; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

int ctf_stream_open(struct ctf_stream *s, int dirfd, uint32_t cpu, const uint8_t uuid[16],
		    size_t packet_bytes)
{
	char name[32];

	memset(s, 0, sizeof(*s));
	s->fd = -1;
	if (packet_bytes < CTF_MIN_PACKET || packet_bytes > CTF_MAX_PACKET) {
		errno = EINVAL;
		return -1;
	}
	snprintf(name, sizeof(name), "cpu%u", cpu);
	s->pkt = malloc(packet_bytes);
	if (s->pkt == NULL)
		return -1;
	s->fd = ctf_create_file(dirfd, name, 0644);
	if (s->fd < 0) {
		free(s->pkt);
		s->pkt = NULL;
		return -1;
	}
	s->cpu = cpu;
	memcpy(s->uuid, uuid, 16);
	s->cap = packet_bytes;
	s->used = CTF_PREFIX;
	return 0;
}

size_t ctf_event_bytes(size_t payload_len)
{
	return CTF_EVENT_HEADER_BYTES + payload_len;
}

void ctf_stream_lost(struct ctf_stream *s, uint64_t n)
{
	s->discarded += n;
}

/* Header and context go in front of the events once the packet is done:
 * its size and last timestamp are known only then. */
static void seal(struct ctf_stream *s, uint64_t discarded)
{
	uint8_t *p = s->pkt;

	le(p, CTF_MAGIC, 4);
	memcpy(p + 4, s->uuid, 16);
	le(p + 20, 0, 4);                  /* stream_id */
	p += CTF_HEADER_BYTES;
	le(p, s->first_ts, 8);
	le(p + 8, s->last_ts, 8);
	le(p + 16, (uint64_t)s->used * 8, 8);  /* content_size, bits */
	le(p + 24, (uint64_t)s->used * 8, 8);  /* packet_size: no padding */
	le(p + 32, discarded, 8);
	le(p + 40, s->cpu, 4);
	le(p + 44, s->seq, 8);
}

/* Readers count the losses a packet reports against the packet before:
 * when the first one would report some, an empty packet with none goes
 * ahead of it (so losses before the first event are not taken as the
 * stream's starting point). */
static int write_baseline(struct ctf_stream *s)
{
	size_t used = s->used;
	uint64_t last = s->last_ts;

	s->used = CTF_PREFIX;
	s->last_ts = s->first_ts;  /* an instant, where the stream's events begin */
	seal(s, 0);
	s->used = used;
	s->last_ts = last;
	if (ctf_write_all(s->fd, s->pkt, CTF_PREFIX) != 0)
		return -1;
	s->bytes += CTF_PREFIX;
	s->seq++;
	return 0;
}

int ctf_stream_flush(struct ctf_stream *s)
{
	bool events = s->used > CTF_PREFIX;

	if (s->fd < 0) {
		errno = EBADF;
		return -1;
	}
	if (!events && s->discarded == s->discarded_written)
		return 0;
	if (!events)
		s->first_ts = s->last_ts;  /* a packet that only reports losses */
	if (s->seq == 0 && s->discarded > 0 && write_baseline(s) != 0)
		return -1;
	seal(s, s->discarded);
	if (ctf_write_all(s->fd, s->pkt, s->used) != 0)
		return -1;
	s->bytes += s->used;
	s->discarded_written = s->discarded;
	s->seq++;
	s->used = CTF_PREFIX;
	return 0;
}

int ctf_stream_event(struct ctf_stream *s, uint32_t id, uint64_t ts, int32_t pid, int32_t tid,
		     const void *payload, size_t len)
{
	size_t need = ctf_event_bytes(len);
	uint8_t *p;

	if (CTF_PREFIX + need > s->cap) {
		errno = EFBIG;
		return -1;
	}
	if (s->used + need > s->cap && ctf_stream_flush(s) != 0)
		return -1;
	if (ts < s->last_ts) {
		ts = s->last_ts;
		s->reordered++;
	}
	if (s->used == CTF_PREFIX)
		s->first_ts = ts;
	p = s->pkt + s->used;
	le(p, id, 4);
	le(p + 4, ts, 8);
	le(p + 12, s->cpu, 4);
	le(p + 16, (uint32_t)pid, 4);
	le(p + 20, (uint32_t)tid, 4);
	if (len > 0)
		memcpy(p + CTF_EVENT_HEADER_BYTES, payload, len);
	s->used += need;
	s->last_ts = ts;
	s->events++;
	return 0;
}

int ctf_stream_close(struct ctf_stream *s)
{
	int rc = 0, saved = 0;

	if (s->fd >= 0) {
		rc = ctf_stream_flush(s);
		saved = errno;
		if (close(s->fd) != 0 && rc == 0) {
			rc = -1;
			saved = errno;
		}
		s->fd = -1;
	}
	free(s->pkt);
	s->pkt = NULL;
	errno = saved;
	return rc;
}
