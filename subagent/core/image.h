/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * image.h - the published image of what clustermond serves: the one ABI
 * between clustermond (the writer) and clustermon.so inside snmpd (the
 * reader). Pure C: no OS, no SNMP.
 *
 * The file is a header followed by sections, one per MIB group. Each
 * section has two buffers; the writer fills the one readers are not told
 * to use, under that buffer's sequence number (odd while it writes), then
 * points the section at it. A reader copies what it needs and checks the
 * sequence number again, so it never keeps half-written values. Both sides
 * run on the same host: native byte order and alignment.
 *
 * A buffer holds the section's instances in OID order, each as the part of
 * its OID after the section's base, so a GETNEXT is a binary search:
 *   u32 count, u32 offsets_at; entries...; u32 offsets[count]
 *   entry: u8 type, u8 sub_len, u16 val_len, u32 sub[sub_len], val, padding to 4
 * Numbers are 8 bytes (any ASN.1 number type), OBJECT IDENTIFIERs u32s.
 *
 * The reader treats all of it as untrusted: every count, offset and length
 * is checked against the bytes it was given.
 */
#ifndef CLUSTERMON_CORE_IMAGE_H
#define CLUSTERMON_CORE_IMAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CM_IMAGE_MAGIC "CMIMAGE\0"
#define CM_IMAGE_VERSION 1u
#define CM_IMAGE_MAX_SECTIONS 16u
#define CM_IMAGE_MAX_REGS 128u
#define CM_IMAGE_MAX_OID 32u    /* sub-identifiers of a base or a registration */
#define CM_IMAGE_MAX_SUB 64u    /* sub-identifiers of an entry after its base */
#define CM_IMAGE_MAX_VAL 1024u  /* bytes of a value */

enum cm_image_state { CM_IMAGE_LIVE = 1, CM_IMAGE_STOPPED = 2, CM_IMAGE_SUPERSEDED = 3 };

/* How a registration answers a GET for an instance the image lacks, as the
 * subagent's own handler would: noSuchInstance for the instances of known
 * objects, noSuchObject for columns a table does not have. */
enum cm_image_reg_kind { CM_REG_SCALAR = 1, CM_REG_TABLE = 2, CM_REG_COLUMN = 3 };

struct cm_image_buf {
	uint32_t seq;       /* odd while the writer fills this buffer */
	uint32_t len;       /* bytes used */
	uint64_t off;       /* from the start of the file */
};

struct cm_image_section {
	uint32_t base_len;
	uint32_t base[CM_IMAGE_MAX_OID];
	uint32_t active;    /* the buffer readers use: 0 or 1 */
	uint64_t cap;       /* bytes of each buffer */
	struct cm_image_buf buf[2];
};

/* A subtree the reader may register: read-only objects only, so SETs and
 * read-create tables keep going to the subagent. */
struct cm_image_reg {
	uint32_t kind;      /* enum cm_image_reg_kind */
	uint32_t min_col, max_col; /* CM_REG_TABLE */
	uint32_t len;
	uint32_t oid[CM_IMAGE_MAX_OID];
};

struct cm_image_header {
	char magic[8];
	uint32_t version, header_size;
	uint64_t file_size;
	uint32_t state;           /* enum cm_image_state */
	uint32_t stale_after_ms;  /* no heartbeat for this long: not served */
	uint64_t heartbeat_ns;    /* CLOCK_MONOTONIC of the writer's last tick */
	uint32_t writer_pid;
	uint32_t nsections, nregs, pad;
	struct cm_image_section sec[CM_IMAGE_MAX_SECTIONS];
	struct cm_image_reg reg[CM_IMAGE_MAX_REGS];
};

/* ------------------------------------------------------------ writing */

/* A section being encoded into memory the caller owns. */
struct cm_image_enc {
	unsigned char *buf;
	size_t cap, len;
	uint32_t *offs;
	size_t noffs, offs_cap;
	bool failed;              /* out of memory: the encoding is incomplete */
};

/* Starts a section (keeps the enc's memory from earlier encodings). */
void cm_image_enc_begin(struct cm_image_enc *e);
/* Appends one instance; entries must come in ascending OID order. */
void cm_image_enc_add(struct cm_image_enc *e, const uint32_t *sub, size_t sub_len,
		      uint8_t type, const void *val, size_t val_len);
/* Appends the offsets; returns the section's bytes or 0 when it failed. */
size_t cm_image_enc_end(struct cm_image_enc *e);
void cm_image_enc_free(struct cm_image_enc *e);

/* Seqlock publication of one encoded section into the mapped file. */
void cm_image_write_section(struct cm_image_header *h, unsigned sec, const void *data,
			    size_t len);

/* ------------------------------------------------------------ reading */

struct cm_image_value {
	uint8_t type;
	uint32_t len;                   /* bytes of data */
	unsigned char data[CM_IMAGE_MAX_VAL];
	uint32_t name[CM_IMAGE_MAX_OID + CM_IMAGE_MAX_SUB];
	size_t name_len;
};

enum cm_image_find {
	CM_IMAGE_FOUND = 0,
	CM_IMAGE_NONE = 1,        /* no such instance (GET) / nothing after (GETNEXT) */
	CM_IMAGE_BUSY = 2,        /* rewritten under us every try, or malformed */
};

/* The header, if map[0..size) starts with one this reader understands and
 * every count in it is in range; NULL otherwise. */
const struct cm_image_header *cm_image_header(const void *map, size_t size);
/* Served now: live, and its heartbeat (CLOCK_MONOTONIC ns) recent. */
bool cm_image_fresh(const struct cm_image_header *h, uint64_t now_ns);
/* The instance name exactly (GET). */
enum cm_image_find cm_image_get(const void *map, size_t size, const uint32_t *name,
				size_t len, struct cm_image_value *out);
/* The first instance after name that lies under prefix (GETNEXT in a
 * registered subtree); out->name is its OID. */
enum cm_image_find cm_image_next(const void *map, size_t size, const uint32_t *name,
				 size_t len, const uint32_t *prefix, size_t plen,
				 struct cm_image_value *out);
/* -1, 0, 1 as OIDs compare (a prefix sorts first). */
int cm_oid_compare(const uint32_t *a, size_t alen, const uint32_t *b, size_t blen);

#endif
