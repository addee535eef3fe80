/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tpptr.c - which tracepoint fields hold kernel addresses (tpformat.h):
 * they are zeroed in traces and refused as distribution values, so no
 * reader of a trace or of the MIB learns where the kernel's text and heap
 * are (KASLR).
 */
#include "tpformat.h"

#include <ctype.h>
#include <string.h>

static bool ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* Whether the print fmt casts REC->name to a pointer: "*)" (blanks
 * allowed) right before it. */
static bool cast_to_pointer(const char *text, const char *name)
{
	const char *fmt = strstr(text, "print fmt:");
	size_t n = strlen(name);

	for (const char *at = fmt; at != NULL && (at = strstr(at, "REC->")) != NULL; at += 5) {
		const char *back = at;

		if (strncmp(at + 5, name, n) != 0 || ident_char(at[5 + n]))
			continue;
		while (back > fmt && back[-1] == ' ')
			back--;
		if (back <= fmt || back[-1] != ')')
			continue;
		back--;
		while (back > fmt && back[-1] == ' ')
			back--;
		if (back > fmt && back[-1] == '*')
			return true;
	}
	return false;
}

bool tpformat_is_pointer(const char *text, const char *decl, const char *name)
{
	return strchr(decl, '*') != NULL || cast_to_pointer(text, name);
}
