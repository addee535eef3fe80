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

#include <stddef.h>

#include "ctf.h"

#define TP_COMMON_BYTES 8
#define TP_MAX_PAYLOAD 512   /* bytes a session copies per record at most */

/*
 * Fills c (its name already set) from the format text; *payload gets the
 * bytes to copy after the common header. 0, or -1 with why.
 */
int tpformat_parse(const char *text, struct ctf_event_class *c, size_t *payload, char *why,
		   size_t whylen);

/* Reads the format file of tracepoint CATEGORY:NAME from tracefs (either
 * mount point) into text (len bytes, NUL-terminated). 0, or -1 with why. */
int tpformat_read(const char *category, const char *name, char *text, size_t len, char *why,
		  size_t whylen);

/* A numeric field by name (a distribution's value or key): its offset in
 * the record, its size (1, 2, 4 or 8) and sign. 0, or -1 with why (no
 * such field, or not a number). */
struct tp_numeric {
	unsigned offset, size;
	int is_signed;
};
int tpformat_field(const char *text, const char *field, struct tp_numeric *out, char *why,
		   size_t whylen);

#endif
