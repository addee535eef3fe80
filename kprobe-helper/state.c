/* SPDX-License-Identifier: BSD-2-Clause */
/* state.c - clustermon-kprobe's state and log (state.h). */
#include "state.h"

#include <stdarg.h>
#include <stdio.h>
#include <syslog.h>

/* Under a root-owned parent (the unit's StateDirectory): never in
 * /var/lib/clustermon, which the unprivileged clustermond owns. */
#define DEFAULT_TRACE_DIR "/var/lib/clustermon-kprobe/traces"
#define DEFAULT_SOCKET "/run/clustermon/kprobe.sock"

struct helper_state helper = { .socket_path = DEFAULT_SOCKET, .trace_dir = DEFAULT_TRACE_DIR,
			       .gid = (gid_t)-1, .trace_gid = (gid_t)-1, .peer_uid = (uid_t)-1,
			       .sensors_on = SENSOR_ALL };

void say(int level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (helper.foreground) {
		fputs("clustermon-kprobe: ", stderr);
		vfprintf(stderr, fmt, ap);
		fputc('\n', stderr);
	} else {
		vsyslog(level, fmt, ap);
	}
	va_end(ap);
}
