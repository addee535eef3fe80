/* SPDX-License-Identifier: BSD-2-Clause */
/* tpformat.c - tracefs format files into CTF event classes (tpformat.h). */
#include "tpformat.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct tp_field {
	char decl[160];    /* "unsigned int fd", "char prev_comm[16]" */
	unsigned long offset, size;
	bool is_signed;
};

/* One "\tfield:DECL;\toffset:N;\tsize:N;\tsigned:N;" line; false otherwise. */
static bool parse_line(const char *line, struct tp_field *f)
{
	const char *d = strstr(line, "field:"), *semi;
	int is_signed = 0;
	size_t n;

	if (d == NULL)
		return false;
	d += 6;
	semi = strchr(d, ';');
	if (semi == NULL || (n = (size_t)(semi - d)) == 0 || n >= sizeof(f->decl))
		return false;
	memcpy(f->decl, d, n);
	f->decl[n] = '\0';
	if (sscanf(semi, "; offset:%lu; size:%lu; signed:%d;", &f->offset, &f->size,
		   &is_signed) != 3)
		return false;
	f->is_signed = is_signed != 0;
	return true;
}

/* The identifier of a declaration: the last word, without [N]. */
static bool decl_name(const char *decl, char *name, size_t len, bool *array)
{
	const char *end = decl + strlen(decl), *start;

	*array = false;
	if (end > decl && end[-1] == ']') {
		*array = true;
		while (end > decl && *end != '[')
			end--;
	}
	start = end;
	while (start > decl && start[-1] != ' ' && start[-1] != '*')
		start--;
	if (start == end || (size_t)(end - start) >= len)
		return false;
	memcpy(name, start, (size_t)(end - start));
	name[end - start] = '\0';
	return true;
}

static int add_field(struct ctf_event_class *c, const char *name, enum ctf_field_kind kind,
		     unsigned long bytes, char *why, size_t whylen)
{
	struct ctf_field *f;

	if (c->nfields == CTF_MAX_FIELDS) {
		snprintf(why, whylen, "more than %d fields", CTF_MAX_FIELDS);
		return -1;
	}
	f = &c->field[c->nfields++];
	snprintf(f->name, sizeof(f->name), "%s", name);
	f->kind = kind;
	f->bytes = (uint32_t)bytes;
	return 0;
}

static int add_tp_field(struct ctf_event_class *c, const struct tp_field *tf, char *why,
			size_t whylen)
{
	char name[CTF_MAX_NAME + 1];
	bool array, ints = tf->size == 1 || tf->size == 2 || tf->size == 4 || tf->size == 8;
	enum ctf_field_kind kind;

	if (!decl_name(tf->decl, name, sizeof(name), &array)) {
		snprintf(why, whylen, "cannot name the field '%.60s'", tf->decl);
		return -1;
	}
	if (array)
		kind = strstr(tf->decl, "char") != NULL ? CTF_TEXT : CTF_BYTES;
	else if (ints)
		kind = tf->is_signed ? CTF_SIGNED : CTF_UNSIGNED;
	else
		kind = CTF_BYTES;
	return add_field(c, name, kind, tf->size, why, whylen);
}

int tpformat_parse(const char *text, struct ctf_event_class *c, size_t *payload, char *why,
		   size_t whylen)
{
	unsigned long at = TP_COMMON_BYTES;
	const char *line = text;
	struct tp_field f;

	c->nfields = 0;
	for (; line != NULL && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		char one[256];
		size_t n = strcspn(line, "\n");

		if (n >= sizeof(one))
			continue;
		memcpy(one, line, n);
		one[n] = '\0';
		if (!parse_line(one, &f) || f.offset < TP_COMMON_BYTES)
			continue;
		if (f.offset < at || f.size == 0 || f.size > TP_MAX_PAYLOAD ||
		    f.offset > TP_COMMON_BYTES + TP_MAX_PAYLOAD || f.offset + f.size > TP_COMMON_BYTES + TP_MAX_PAYLOAD) {
			snprintf(why, whylen, "field '%.60s' at %lu+%lu overlaps or is beyond %d bytes",
				 f.decl, f.offset, f.size, TP_MAX_PAYLOAD);
			return -1;
		}
		if (f.offset > at) {
			char pad[32];

			snprintf(pad, sizeof(pad), "pad%lu", at);
			if (add_field(c, pad, CTF_BYTES, f.offset - at, why, whylen) != 0)
				return -1;
		}
		if (add_tp_field(c, &f, why, whylen) != 0)
			return -1;
		at = f.offset + f.size;
	}
	*payload = at - TP_COMMON_BYTES;
	return ctf_class_check(c, why, whylen);
}

int tpformat_read(const char *category, const char *name, char *text, size_t len, char *why,
		  size_t whylen)
{
	static const char *const roots[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	char path[512];
	FILE *f = NULL;
	size_t n;

	for (size_t i = 0; i < 2 && f == NULL; i++) {
		snprintf(path, sizeof(path), "%s/events/%s/%s/format", roots[i], category, name);
		f = fopen(path, "r");
	}
	if (f == NULL) {
		snprintf(why, whylen, "no tracepoint %s:%s in this kernel (see "
			 "/sys/kernel/tracing/events)", category, name);
		return -1;
	}
	n = fread(text, 1, len - 1, f);
	if (n == len - 1 && fgetc(f) != EOF) {
		fclose(f);
		snprintf(why, whylen, "the format of %s:%s is longer than %zu bytes", category,
			 name, len - 1);
		return -1;
	}
	fclose(f);
	text[n] = '\0';
	return 0;
}

/* The payload fields of a format text, one a call from *line on (advanced
 * past the field's line): true with f, its name and whether it is an array;
 * false at the end. Lines too long to be a field are passed over. */
static bool next_field(const char **line, struct tp_field *f, char *name, bool *array)
{
	char one[256];

	while (*line != NULL && **line) {
		const char *at = *line;
		size_t n = strcspn(at, "\n");

		*line = strchr(at, '\n');
		*line = *line ? *line + 1 : NULL;
		if (n >= sizeof(one))
			continue;
		memcpy(one, at, n);
		one[n] = '\0';
		if (parse_line(one, f) && f->offset >= TP_COMMON_BYTES &&
		    decl_name(f->decl, name, CTF_MAX_NAME + 1, array))
			return true;
	}
	return false;
}

int tpformat_field(const char *text, const char *field, struct tp_numeric *out, char *why,
		   size_t whylen)
{
	char name[CTF_MAX_NAME + 1];
	const char *line = text;
	struct tp_field f;
	bool array;

	while (next_field(&line, &f, name, &array)) {
		if (strcmp(name, field) != 0)
			continue;
		if (array || (f.size != 1 && f.size != 2 && f.size != 4 && f.size != 8) ||
		    f.offset > 4096) {
			snprintf(why, whylen, "field %s (%.60s) is not a number", field, f.decl);
			return -1;
		}
		out->offset = (unsigned)f.offset;
		out->size = (unsigned)f.size;
		out->is_signed = f.is_signed;
		out->is_pointer = tpformat_is_pointer(text, f.decl, name);
		return 0;
	}
	snprintf(why, whylen, "the event has no field %s", field);
	return -1;
}

int tpformat_pointers(const char *text, struct tp_span *spans, size_t max)
{
	char name[CTF_MAX_NAME + 1];
	const char *line = text;
	struct tp_field f;
	size_t count = 0;
	bool array;

	while (next_field(&line, &f, name, &array)) {
		if (f.offset + f.size > TP_COMMON_BYTES + TP_MAX_PAYLOAD ||
		    !tpformat_is_pointer(text, f.decl, name))
			continue;
		if (count == max)
			return -1;
		spans[count].offset = (uint16_t)(f.offset - TP_COMMON_BYTES);
		spans[count++].bytes = (uint16_t)f.size;
	}
	return (int)count;
}
