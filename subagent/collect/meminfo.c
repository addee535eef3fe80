/*
 * meminfo.c - /proc/meminfo: "Key:   value kB" lines. Keys we do not serve
 * are skipped without parsing, so new kernel fields never break us.
 *
 * Like every parser here, a buffer whose last line has no newline was cut
 * off and is refused whole (EINVAL): a cut after MemFree would otherwise
 * serve Cached, Dirty and the swap figures as 0. A key of ours must appear
 * once, with a number that fits in 64 bits and nothing after it but "kB".
 */
#include "collect.h"
#include "parse.h"

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

struct meminfo_key {
	const char *name;
	size_t offset;
};

#define KEY(name, field) { name, offsetof(struct meminfo, field) }
static const struct meminfo_key keys[] = {
	KEY("MemTotal", total_kb),
	KEY("MemFree", free_kb),
	KEY("MemAvailable", available_kb),
	KEY("Buffers", buffers_kb),
	KEY("Cached", cached_kb),
	KEY("Dirty", dirty_kb),
	KEY("SwapTotal", swap_total_kb),
	KEY("SwapFree", swap_free_kb),
};
#undef KEY

enum { KEY_TOTAL, KEY_FREE, KEY_AVAILABLE, NKEYS = sizeof(keys) / sizeof(keys[0]) };

/* Index of the key that names this line, or -1. */
static int key_of(const char *line)
{
	for (unsigned i = 0; i < NKEYS; i++) {
		size_t n;

		/* Most lines differ in the first byte: skip strlen there. */
		if (line[0] != keys[i].name[0])
			continue;
		n = strlen(keys[i].name);
		if (strncmp(line, keys[i].name, n) == 0 && line[n] == ':')
			return (int)i;
	}
	return -1;
}

/* " 1234 kB" up to the newline. */
static bool scan_kb(const char *p, uint64_t *out)
{
	if (!scan_u64(&p, out))
		return false;
	p = skip_blanks(p);
	if (p[0] == 'k' && p[1] == 'B')
		p = skip_blanks(p + 2);
	return *p == '\n';
}

static uint64_t *field_of(struct meminfo *out, int key)
{
	return (uint64_t *)((char *)out + keys[key].offset);
}

/* Fails with EINVAL and leaves nothing a careless caller could serve. */
static int refuse(struct meminfo *out)
{
	memset(out, 0, sizeof(*out));
	errno = EINVAL;
	return -1;
}

int meminfo_parse(const char *buf, struct meminfo *out)
{
	const unsigned required = 1u << KEY_TOTAL | 1u << KEY_FREE;
	unsigned seen = 0;
	const char *p, *nl;

	memset(out, 0, sizeof(*out));
	for (p = buf; *p != '\0'; p = nl + 1) {
		int key;

		nl = strchr(p, '\n');
		if (nl == NULL)
			return refuse(out); /* cut off: see the top */
		key = key_of(p);
		if (key < 0)
			continue;
		if (seen & 1u << key)
			return refuse(out);
		if (!scan_kb(p + strlen(keys[key].name) + 1, field_of(out, key)))
			return refuse(out);
		seen |= 1u << key;
	}
	out->have_available = (seen & 1u << KEY_AVAILABLE) != 0;
	return (seen & required) == required ? 0 : refuse(out);
}
