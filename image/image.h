/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * image.h - the published image of what clustermond serves: the one ABI
 * between clustermond (the writer) and clustermon.so inside snmpd (the
 * reader). Pure C: no OS, no SNMP.
 *
 * The file is a header followed by sections, one per MIB group. Each
 * section has one data area, cut into chunks of CM_IMAGE_CHUNK bytes, and
 * a sequence number per chunk. The writer changes only the chunks whose
 * bytes changed (rows that changed, the offsets around an added or removed
 * row): it makes the section's sequence number odd, marks each chunk it
 * rewrites odd, writes it, gives it the section's next (even) number, and
 * makes the section's number even again. A reader copies only the chunks
 * whose numbers moved since its copy, and keeps what it copied only when
 * the section's number was the same even number before and after: its copy
 * is then the section as one publication left it, so no row in it is torn
 * or mixes two samples. Both sides run on the same host: native byte order
 * and alignment.
 *
 * Neither side maps the file: anyone who can write it could truncate it
 * under a mapping, and a load from a page that is gone is SIGBUS. The
 * writer stores with pwrite into blocks it allocated up front; the reader
 * copies the header and each changed chunk into its own memory with pread,
 * then checks the section's sequence number again. A short read (the file
 * was cut) makes the whole image invalid.
 *
 * A section's data holds its instances, each as the part of its OID after
 * the section's base, and their offsets in OID order, so a GETNEXT is a
 * binary search:
 *   u32 count, u32 offsets_at; u32 offsets[count] at offsets_at; entries
 *   entry: u8 type, u8 sub_len, u16 val_len, u32 sub[sub_len], val, padding to 4
 * The entries lie anywhere after the header (the writer keeps a row's
 * entries together and a row where it was while it lives).
 * Numbers are 8 bytes (any ASN.1 number type), OBJECT IDENTIFIERs u32s.
 *
 * The reader treats all of it as untrusted: every count, offset and length
 * is checked against the bytes it was given.
 */
#ifndef CLUSTERMON_IMAGE_H
#define CLUSTERMON_IMAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CM_IMAGE_MAGIC "CMIMAGE\0"
/* 4: a section says whether its rows are held fresh (flags CM_SEC_ASLEEP,
 * held_ns, fresh_ns), a registration whether reading it is demand, and
 * the demand record carries wakes: a reader of 3 would serve a sleeping
 * section's old rows without waking it. */
#define CM_IMAGE_VERSION 4u
/* Bytes of a section's data one sequence number covers. */
#define CM_IMAGE_CHUNK 4096u
#define CM_IMAGE_MAX_SECTIONS 16u
#define CM_IMAGE_MAX_REGS 128u
#define CM_IMAGE_MAX_OID 32u    /* sub-identifiers of a base or a registration */
#define CM_IMAGE_MAX_SUB 64u    /* sub-identifiers of an entry after its base */
#define CM_IMAGE_MAX_VAL 1024u  /* bytes of a value */
/* An encoded section: its entry count and the offset of its entries'
 * offsets (SECTION_HEAD bytes), then entries, each a type, a length of
 * sub-identifiers and of value (ENTRY_HEAD bytes), then those. */
#define CM_IMAGE_SECTION_HEAD 8u
#define CM_IMAGE_ENTRY_HEAD 4u
/* Bytes of a section a reader copies at most: a bound on what it allocates
 * whatever the file claims. */
#define CM_IMAGE_MAX_SECTION_BYTES (256u * 1024u * 1024u)
/* Bytes a reader holds at most for one image, whatever the file claims:
 * the copies of every section, their chunk numbers and the scratch (issue
 * 40: 16 sections of 256 MiB in a sparse file would otherwise make snmpd
 * allocate 4 GiB and more). A header whose sections could need more is
 * refused (r->too_big), and so is a copy that would take the reader over
 * it. 256 MiB: the image of 20,000 sockets is 88 MB, both buffers of every
 * group with room to grow (docs/operations.md), and a reader copies one
 * buffer and stages its changes; 64 MiB would refuse that node. */
#define CM_IMAGE_MAX_READER_BYTES (256u * 1024u * 1024u)

enum cm_image_state { CM_IMAGE_LIVE = 1, CM_IMAGE_STOPPED = 2, CM_IMAGE_SUPERSEDED = 3 };

/*
 * Sources that sleep. A source nobody reads takes no samples, so a
 * section's rows may be older than one interval. The writer says per
 * section whether it vouches for them: held_ns (CLOCK_MONOTONIC, the same
 * clock on both sides of one host) is until when the section's sources'
 * samples stay fresh, i.e. the first deadline one of them will let pass
 * unsampled unless read again (UINT64_MAX: they never sleep; 0: not held), and
 * CM_SEC_ASLEEP in flags is set while one of them sleeps or has not
 * sampled since it woke. A reader serves a section at once while it is
 * held and not asleep (cm_image_reader_held). Otherwise it writes a wake
 * into the demand record below and waits, without blocking its own
 * process, until the writer answers that wake: fresh_ns, the writer's time
 * when it took the wake, is stored once every source behind the section
 * has sampled since (or was sampling then) and the section holds those
 * samples; so fresh_ns >= the reader's wake time answers it
 * (cm_image_reader_answered). A reader waits CM_IMAGE_WAIT_MAX_MS at most
 * and then serves what the image has.
 */
#define CM_SEC_ASLEEP 1u
#define CM_IMAGE_WAIT_MAX_MS 500u

/* cm_image_reg.flags. QUIET: the objects are served from what the writer
 * keeps up on its own (a source's always-on part): reading them wakes
 * nothing, waits for nothing and is not counted as a read. */
#define CM_REG_QUIET 1u

/*
 * Demand, the other way: the reader tells the writer what it read, in a
 * file beside the image (its path + CM_IMAGE_DEMAND_SUFFIX) that the writer
 * makes, owned by the writer, writable by the reader's group. The reader
 * rewrites it whole when a count moved (at most once a second) and at once
 * when it waits for a section; the writer reads it as untrusted input: the
 * most a liar can do is keep sources sampling, as they would on a timer,
 * or wake them.
 */
#define CM_IMAGE_DEMAND_SUFFIX ".demand"
#define CM_IMAGE_DEMAND_MAGIC "CMDEMND\0"
struct cm_image_demand {
	char magic[8];
	uint32_t version;      /* CM_IMAGE_VERSION */
	uint32_t pad;
	uint64_t reads[CM_IMAGE_MAX_SECTIONS]; /* requests answered from each */
	/* The reader's CLOCK_MONOTONIC when it last began to wait for each
	 * section's fresh sample (0: never): a change is a wake. */
	uint64_t wake_ns[CM_IMAGE_MAX_SECTIONS];
};
/* 0 when buf[0..len) is a demand record this version writes, else -1. */
int cm_image_demand_check(const void *buf, size_t len, struct cm_image_demand *out);

/* How a registration answers a GET for an instance the image lacks, as the
 * subagent's own handler would: noSuchInstance for the instances of known
 * objects, noSuchObject for columns a table does not have. */
enum cm_image_reg_kind { CM_REG_SCALAR = 1, CM_REG_TABLE = 2, CM_REG_COLUMN = 3 };

struct cm_image_section {
	uint32_t base_len;
	uint32_t base[CM_IMAGE_MAX_OID];
	uint32_t seq;       /* odd while the writer changes the section */
	uint32_t len;       /* bytes of data in use */
	uint32_t flags;     /* CM_SEC_* */
	uint64_t cap;       /* bytes of the data area: whole chunks */
	uint64_t off;       /* the data area, from the start of the file */
	uint64_t seqs_off;  /* u32 per chunk of the data area: the section's
			     * seq when it was last written, odd while it is */
	uint64_t held_ns;   /* see "Sources that sleep" above */
	uint64_t fresh_ns;
};

/* A subtree the reader may register: read-only objects only, so SETs and
 * read-create tables keep going to the subagent. */
struct cm_image_reg {
	uint32_t kind;      /* enum cm_image_reg_kind */
	uint32_t min_col, max_col; /* CM_REG_TABLE */
	uint32_t flags;     /* CM_REG_QUIET */
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

/* Stores len bytes at off of the file; 0 when all were written. */
typedef int (*cm_image_write_fn)(void *ctx, const void *buf, size_t len, uint64_t off);

/* Chunks of len bytes. */
static inline size_t cm_image_chunks(size_t len)
{
	return (len + CM_IMAGE_CHUNK - 1) / CM_IMAGE_CHUNK;
}

/* Seqlock publication of a section's changed chunks: data[0..len) is the
 * section's whole data as it is now, dirty a byte per chunk (nonzero:
 * store it; NULL: every chunk), seqs the writer's copy of the section's
 * chunk numbers (cm_image_chunks(cap) of them). h is the writer's own copy
 * of the file's header, kept up to date; every field that changes is
 * stored through w in the order readers rely on; nothing is stored when no
 * chunk is dirty and the length is the same. -1 when a store failed
 * (the section is then left odd: readers keep their last copy). */
int cm_image_put_section(struct cm_image_header *h, unsigned sec, const void *data,
			 size_t len, const unsigned char *dirty, uint32_t *seqs,
			 cm_image_write_fn w, void *ctx);
/* The whole section into an image held in memory (h is its start). */
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

/* Reads up to len bytes at off of the file into buf; returns how many it
 * read (fewer at the file's end or on an error). */
typedef size_t (*cm_image_read_fn)(void *ctx, void *buf, size_t len, uint64_t off);

/* The bytes of the header a reader copies on every refresh: the sections'
 * table, not the registrations (read apart, rarely). */
#define CM_IMAGE_HEAD_BYTES offsetof(struct cm_image_header, reg)

/* A section as the reader last copied it, with each chunk's number. */
struct cm_image_copy {
	unsigned char *p;
	size_t room;
	uint32_t *seqs;
	size_t seqs_room;
	uint32_t n, seq;
	uint64_t off, cap, seqs_off;
	bool placed;   /* p holds chunks of that place, each as numbered in seqs */
	bool ok;       /* ... and all of them from one publication: served */
};

/* The reader's own copy of an image: nothing in it points into the file. */
struct cm_image_reader {
	cm_image_read_fn read;
	void *ctx;
	uint64_t file_size;        /* as the caller last saw it */
	bool valid;                /* the header copy passed the checks */
	struct cm_image_header h;  /* up to CM_IMAGE_HEAD_BYTES; reg by _regs */
	struct cm_image_copy copy[CM_IMAGE_MAX_SECTIONS];
	/* Scratch: the chunk numbers as the file has them, and the changed
	 * chunks of a copy being brought up to date (what is changing). */
	uint32_t *tab;
	size_t tab_room;
	unsigned char *stage;
	size_t stage_room;
	uint64_t chunks_read;      /* chunks copied since init (tests, benchmarks) */
	size_t held;               /* bytes allocated for the above, at most
				    * CM_IMAGE_MAX_READER_BYTES */
	bool too_big;              /* refused: more than CM_IMAGE_MAX_READER_BYTES */
};

void cm_image_reader_init(struct cm_image_reader *r, cm_image_read_fn read, void *ctx);
/* Frees the copies; the reader may be refreshed again after it. */
void cm_image_reader_free(struct cm_image_reader *r);
/* Copies the header again; file_size bounds every offset in it. Returns
 * r->valid: false for a short read, a foreign or damaged header, or one
 * whose sections would take more than CM_IMAGE_MAX_READER_BYTES to copy
 * (then r->too_big is set too). */
bool cm_image_reader_refresh(struct cm_image_reader *r, uint64_t file_size);
/* The registrations, copied and checked into out[]; their number, or -1
 * when the file does not hold them whole or one is malformed. */
int cm_image_reader_regs(struct cm_image_reader *r, struct cm_image_reg *out);
/* Served now: valid, live, and its heartbeat recent. */
bool cm_image_reader_fresh(const struct cm_image_reader *r, uint64_t now_ns);
/* The section whose base is a prefix of oid[0..len), or -1. */
int cm_image_reader_section_of(const struct cm_image_reader *r, const uint32_t *oid, size_t len);
/* Section sec's rows are no older than one interval until after now: the
 * writer holds its sources and none sleeps (false for a section the
 * header does not have). */
bool cm_image_reader_held(const struct cm_image_reader *r, int sec, uint64_t now_ns);
/* The writer answered a wake the reader wrote at wake_ns: the section
 * holds samples taken since, or is held. */
bool cm_image_reader_answered(const struct cm_image_reader *r, int sec, uint64_t wake_ns,
			      uint64_t now_ns);
/* The instance name exactly (GET), from the copy of its section, which is
 * first brought up to date if the file's moved on. */
enum cm_image_find cm_image_reader_get(struct cm_image_reader *r, const uint32_t *name,
				       size_t len, struct cm_image_value *out);
/* The first instance after name that lies under prefix (GETNEXT in a
 * registered subtree); out->name is its OID. */
enum cm_image_find cm_image_reader_next(struct cm_image_reader *r, const uint32_t *name,
					size_t len, const uint32_t *prefix, size_t plen,
					struct cm_image_value *out);

/* The header, if map[0..size) starts with one this reader understands and
 * every count in it is in range; NULL otherwise. */
const struct cm_image_header *cm_image_header(const void *map, size_t size);
/* Served now: live, and its heartbeat (CLOCK_MONOTONIC ns) recent. */
bool cm_image_fresh(const struct cm_image_header *h, uint64_t now_ns);
/* One-shot reads of an image held in memory (tests, fuzzing): a reader
 * over map[0..size) made, asked once and freed. */
enum cm_image_find cm_image_get(const void *map, size_t size, const uint32_t *name,
				size_t len, struct cm_image_value *out);
enum cm_image_find cm_image_next(const void *map, size_t size, const uint32_t *name,
				 size_t len, const uint32_t *prefix, size_t plen,
				 struct cm_image_value *out);
/* -1, 0, 1 as OIDs compare (a prefix sorts first). */
int cm_oid_compare(const uint32_t *a, size_t alen, const uint32_t *b, size_t blen);

#endif
