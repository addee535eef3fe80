/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tpformat.h - a tracepoint's record layout from its tracefs "format" file,
 * as a CTF event class. A trace session copies the record the kernel
 * passes to the BPF program, after its 8 common bytes (type, flags,
 * preempt count, pid: the event context has pid and tid already), so the
 * class declares every byte from offset 8 to the last field's end: fields
 * in offset order, holes as padding arrays. Strings behind __data_loc are
 * not copied (the 32-bit locator is). Pure C; the text is untrusted.
 */
#ifndef CLUSTERMON_TPFORMAT_H
#define CLUSTERMON_TPFORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ctf.h"

#define TP_COMMON_BYTES 8
#define TP_MAX_PAYLOAD 512   /* bytes a session copies per record at most */
#define TP_MAX_FORMAT 16384  /* a format file's text, print fmt included */

/*
 * Fills c (its name already set) from the format text; *payload gets the
 * bytes to copy after the common header. 0, or -1 with why.
 */
int tpformat_parse(const char *text, struct ctf_event_class *c, size_t *payload, char *why,
		   size_t whylen);

/* Reads the format file of tracepoint CATEGORY:NAME from tracefs (either
 * mount point) into text (len bytes, NUL-terminated): 0, or -1 with why,
 * also when the file does not fit (its print fmt decides pointers). */
int tpformat_read(const char *category, const char *name, char *text, size_t len, char *why,
		  size_t whylen);

/* A numeric field by name (a distribution's value or key): its offset in
 * the record, its size (1, 2, 4 or 8) and sign. 0, or -1 with why (no
 * such field, or not a number). */
struct tp_numeric {
	unsigned offset, size;
	int is_signed;
	int is_pointer;      /* tpformat_is_pointer: never a value to serve */
};
int tpformat_field(const char *text, const char *field, struct tp_numeric *out, char *why,
		   size_t whylen);

/*
 * Whether the field declared decl (named name) in the format text holds a
 * kernel address, by the text alone: its declared type has a '*' ("const
 * void * ptr", "char * filename", "void * caller[4]"), or the format's
 * print fmt casts it to a pointer ("(void *)REC->call_site": kmem's
 * unsigned long call_site, printed %pS, like every caller_ip and ip so
 * declared). __data_loc locators are offsets, not pointers.
 */
bool tpformat_is_pointer(const char *text, const char *decl, const char *name);

/* A span of a record's payload (offsets after the common header). */
struct tp_span {
	uint16_t offset, bytes;
};
/* The pointer fields of the format text into spans[max]: their count, or
 * -1 when there are more than max. */
int tpformat_pointers(const char *text, struct tp_span *spans, size_t max);

#endif
