/*
 * meminfo.c - /proc/meminfo: "Key:   value kB" lines. Keys we do not serve
 * are skipped without parsing, so new kernel fields never break us.
 */
#include "collect.h"
#include "parse.h"

#include <errno.h>
#include <string.h>

struct meminfo_key {
	const char *name;
	size_t offset;
};

#define KEY(name, field) { name, offsetof(struct meminfo, field) }
static const struct meminfo_key keys[] = {
	KEY("MemTotal", total_kb),     KEY("MemFree", free_kb),
	KEY("MemAvailable", available_kb), KEY("Buffers", buffers_kb),
	KEY("Cached", cached_kb),      KEY("Dirty", dirty_kb),
	KEY("SwapTotal", swap_total_kb), KEY("SwapFree", swap_free_kb),
};

static const struct meminfo_key *key_of(const char *line)
{
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		size_t n;

		if (line[0] != keys[i].name[0])
			continue;
		n = strlen(keys[i].name);
		if (strncmp(line, keys[i].name, n) == 0 && line[n] == ':')
			return &keys[i];
	}
	return NULL;
}

int meminfo_parse(const char *buf, struct meminfo *out)
{
	unsigned seen = 0;

	memset(out, 0, sizeof(*out));
	for (const char *p = buf; p != NULL && *p != '\0'; p = next_line(p)) {
		const struct meminfo_key *k = key_of(p);
		const char *v;

		if (k == NULL || strchr(p, '\n') == NULL)
			continue;
		v = strchr(p, ':') + 1;
		if (!scan_u64(&v, (uint64_t *)((char *)out + k->offset))) {
			errno = EINVAL;
			return -1;
		}
		seen |= 1u << (k - keys);
	}
	out->have_available = (seen & (1u << 2)) != 0;
	if ((seen & 3u) != 3u) { /* MemTotal and MemFree are required */
		errno = EINVAL;
		return -1;
	}
	return 0;
}
