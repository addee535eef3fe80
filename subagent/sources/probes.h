/*
 * probes.h - the "probes" source: keeps clustermon-kprobe's probes in step
 * with the clusterMonProbeTable rows and turns its readings into counters
 * that never go backwards, across helper restarts and re-attachments.
 *
 * The SNMP thread says what it wants (probes_want) and may attach one
 * probe synchronously while a SET waits (probes_attach_now); the source's
 * own thread does the rest: every interval one exchange with the helper
 * reads everything, installs what is missing and removes what is no longer
 * wanted. A spec that failed to attach is not retried until its row changes
 * or the helper restarts.
 */
#ifndef CLUSTERMON_SOURCES_PROBES_H
#define CLUSTERMON_SOURCES_PROBES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../sampler.h"

#define PROBES_DEFAULT_SOCKET "/run/clustermon/kprobe.sock"
#define PROBE_LINE_MAX 256
#define PROBE_ERROR_MAX 256

/* clusterMonHelperStatus */
enum helper_state { HELPER_RUNNING = 1, HELPER_ABSENT = 2, HELPER_FAILED = 3 };
/* clusterMonProbeOperStatus */
enum probe_oper { OPER_UP = 1, OPER_DOWN, OPER_FAILED, OPER_UNSUPPORTED };

/* A row of the probe table as the source needs it. */
struct probe_want {
	uint32_t id;
	char line[PROBE_LINE_MAX];  /* canonical "SPEC[ pid=N][ cpu=N][ every=N]" */
	bool active;
	bool latency;
};

/* What the MIB serves for one row. */
struct probe_reading {
	uint32_t id;
	int oper;
	char error[PROBE_ERROR_MAX];
	uint64_t hits, sampled, lost;
	unsigned ncpu;
	uint64_t *cpu_hits;         /* points into the view */
};

struct drop_reading {
	uint32_t reason;            /* the kernel's skb_drop_reason value */
	char name[48];
	uint64_t packets;
};

struct probes_view {
	int helper;                 /* enum helper_state */
	size_t n;
	struct probe_reading *rows; /* ascending id */
	unsigned ncpu;              /* busy_ns entries; 0 without the sensors */
	uint64_t *busy_ns;
	bool have_sensors;          /* the counters below are served */
	uint64_t tcp_retransmits, skb_drops;
	size_t ndrops;
	struct drop_reading *drops; /* ascending reason */
};

void probes_set_socket(const char *path);
/* The helper's socket path (the proc source asks it for per-process CPU). */
void probes_socket(char *buf, size_t len);
/* Every row of the table (at each change of rows, on the SNMP thread). */
void probes_want(const struct probe_want *rows, size_t n);
/* Attaches one probe now: 0, or -1 with the reason (and the row's
 * OperStatus failed or unsupported) recorded for its LastError. */
int probes_attach_now(const struct probe_want *w, char *why, size_t whylen);
/* A copy of everything served; free with probes_view_free. */
struct probes_view *probes_view_take(void);
void probes_view_free(struct probes_view *v);
int probes_helper_state(void);

extern const struct source_ops probes_source_ops;

#endif
