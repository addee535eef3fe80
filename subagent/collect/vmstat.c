/* vmstat.c - /proc/vmstat: "name value" lines; we take faults and swap. */
#include "collect.h"
#include "parse.h"

#include <errno.h>
#include <string.h>

int vmstat_parse(const char *buf, struct vmstat *out)
{
	struct { const char *name; uint64_t *dst; } keys[] = {
		{ "pgfault", &out->pgfault }, { "pgmajfault", &out->pgmajfault },
		{ "pswpin", &out->pswpin },   { "pswpout", &out->pswpout },
	};
	unsigned seen = 0;

	memset(out, 0, sizeof(*out));
	for (const char *p = buf; p != NULL && *p != '\0'; p = next_line(p)) {
		if (strchr(p, '\n') == NULL)
			break;
		for (unsigned i = 0; i < 4; i++) {
			const char *v = p + strlen(keys[i].name);

			if (!line_is(p, keys[i].name))
				continue;
			if (!scan_u64(&v, keys[i].dst)) {
				errno = EINVAL;
				return -1;
			}
			seen |= 1u << i;
		}
	}
	if ((seen & 3u) != 3u) { /* the fault counters are required */
		errno = EINVAL;
		return -1;
	}
	return 0;
}
