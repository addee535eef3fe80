/* SPDX-License-Identifier: BSD-2-Clause */
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

#include <stddef.h>

#define KEY(name, field) { name, offsetof(struct meminfo, field) }
static const struct keyed_field keys[] = {
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

int meminfo_parse(const char *buf, struct meminfo *out)
{
	static const struct keyed_format format = {
		.colon = true, .unit = "kB", .required = 1u << KEY_TOTAL | 1u << KEY_FREE,
	};
	unsigned seen;

	if (parse_keyed(buf, keys, NKEYS, &format, out, sizeof(*out), &seen) != 0)
		return -1;
	out->have_available = (seen & 1u << KEY_AVAILABLE) != 0;
	return 0;
}
