/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * procsrc.h - the proc source's own parts, shared by its four files and by
 * nothing else: proc.c (set-up, a sample, publishing), procpids.c (what it
 * keeps of each process), procscanner.c (without the helper) and procfed.c
 * (fed by clustermon-kprobe).
 */
#ifndef CLUSTERMON_PROCSRC_H
#define CLUSTERMON_PROCSRC_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "../collect/cgid.h"
#include "../collect/cgroup.h"
#include "../collect/collect.h"
#include "../collect/helper.h"
#include "../collect/helperexits.h"
#include "../collect/helpermaps.h"
#include "../collect/proc.h"
#include "probes.h"
#include "proctab.h"
#include "proc.h"
#include "sources.h"

#define SEC_NS 1000000000ull
/* The scanner reads every process's status about this often, spread over
 * its samples. */
#define RESCAN_NS SEC_NS
/* Slow fields of a process that ran, at most this often. */
#define SLOW_NS SEC_NS
/* The helper-fed table is checked against a listing of /proc this often. */
#define SWEEP_NS (30 * SEC_NS)
/* A helper that does not answer in this long is taken as gone; one that is
 * not there is asked again after a rescan interval. */
#define HELPER_TIMEOUT_MS 200
#define HELPER_GRACE_NS (300 * 1000000ull)
#define HELPER_MISSES 3
/* The scanner looks for new processes at most this often during a pass,
 * tries at most this many new pids one by one, and lists /proc this often. */
#define NEW_LOOK_NS (100 * 1000000ull)
#define NEW_PROBE_MAX 4096u
#define LIST_NS (30 * SEC_NS)
/* Processes whose stat and schedstat stay open (two fds each): the ones
 * that ran most recently, within a sixteenth of the fd limit and never more
 * than HOT_MAX, so the rest of clustermond keeps its descriptors. */
#define HOT_MAX 512

/* What the source keeps of one process between samples. */
struct pstate {
	int32_t pid;                /* 0: a free slot */
	uint64_t start_ticks;
	bool have_ticks;            /* utime and stime hold the last stat read's */
	uint64_t utime, stime;
	uint64_t slow_ns;           /* the last read of its slow fields */
	uint64_t read_ns;           /* scanner: its last read (idle ones rest) */
	uint64_t ran;               /* the sample it last ran in (helper-fed) */
	uint32_t mark;              /* the scan or sweep that last saw it */
	bool queued;                /* on the slow list */
	bool busy;                  /* its row's util is not 0 */
	struct proc_acct acct;
};

/* A list of pids (kept small: what ran lately). */
struct pidlist {
	int32_t *v;
	size_t n, cap;
};

struct proc_source {
	struct proc_scanner *scanner;
	struct proc_reader *reader;
	struct proctab tab;
	struct pstate *st;          /* open addressing on pid, linear probing */
	size_t st_cap, st_n;
	struct pidlist slow, busy, zombies;
	struct proc_sample *cur;    /* the scanner's output */
	size_t cur_cap;
	uint64_t prev_ns, last_rescan_ns, last_sweep_ns, last_self_ns, nsample;
	uint64_t now_ns;            /* the scanner sample's start */
	uint32_t mark;
	uint64_t sweep_fixes;
	struct self_cost agent;     /* clustermond's own cost, once a second */
	char image_path[PATH_MAX];  /* the image's, whose size is part of it */
	unsigned hz;
	long page_kb;
	uint64_t boot_time;
	struct proc_filter filter;  /* this thread's own: set by configure and commands */
	struct cg_pid_cache *cgroups; /* each process's cgroup, re-read every 10 s */
	char root[256];
	/* helper-fed mode */
	bool child_pidns;           /* the helper's pids are not ours: scanner only */
	char helper_socket[PROBE_SOCKET_MAX]; /* helperSocket, by configure */
	bool fed;                   /* the last sample was */
	bool synced;                /* helper-fed: every process joined */
	uint64_t last_try_ns;       /* of the helper, when it was not there */
	uint64_t last_fed_ns;       /* its last answer */
	unsigned helper_misses;     /* answers missed since */
	char instance[64];          /* the helper's: a new one counts from zero */
	struct helper_maps *maps;   /* its maps, read here (NULL: ask it) */
	uint64_t last_maps_try_ns;
	/* scanner: new processes looked for during a pass (look_for_new) */
	struct procfile loadavg;    /* kept open; fd -1 where it cannot be */
	uint32_t last_pid;          /* its last pid at the last look */
	uint64_t last_look_ns, last_list_ns;
	pid_t *listed;
	size_t listed_cap;
	/* the exit log (procexits.c) */
	struct exit_conf exit_conf;
	struct exitlog exit_log;
	uint64_t exit_gen;            /* exit snapshots published (0: none yet) */
	uint64_t exit_pub_lost;       /* the last one's lost and exact */
	bool exit_pub_exact;
	struct helper_exits *exits;   /* the helper's exit ring (NULL: approximate) */
	uint64_t last_exits_try_ns;
	uint64_t exit_seq;            /* the next record's expected seq */
	bool exit_seq_known;
	uint64_t exits_lost;
	uint64_t exits_from_ns;       /* records of exits before this are not logged */
	bool approx_logged;           /* approximate entries since the ring went */
	struct cgid_map *cgids;
	struct exit_name *names;      /* cgroups named lately (procexits.c) */
};

/* procpids.c: the table of processes followed. */
struct pstate *ps_find(struct proc_source *src, int32_t pid);
struct pstate *ps_get(struct proc_source *src, int32_t pid);
void ps_del(struct proc_source *src, struct pstate *s);
void pl_add(struct pidlist *l, int32_t pid);
void ps_forget(struct proc_source *src, int32_t pid);

/* procpids.c: readings into rows. */
void ps_fill_fields(const struct proc_source *src, const struct proc_sample *p,
		    struct proc_row *r);
uint32_t ps_share_of(uint64_t used_ns, uint64_t elapsed_ns);
uint32_t ps_first_share(const struct proc_source *src, const struct proc_sample *p,
			const struct proc_row *r);
uint32_t ps_system_share(const struct proc_sample *p, const struct pstate *s);
void ps_keep_ticks(struct pstate *s, const struct proc_sample *p);
void ps_put_row(struct proc_source *src, struct pstate *s, const struct proc_row *r);
void ps_not_back(struct proc_row *r, const struct proc_row *old);

/* procscanner.c: a sample without the helper; new processes looked for
 * (during a pass too: proc.c's tick callback publishes them), how many. */
int procscan_sample(struct proc_source *src, uint64_t now, uint64_t elapsed);
size_t procscan_look_for_new(struct proc_source *src);

/* procfed.c: the helper's news (0, or -1 when it did not answer), and a
 * sample fed by them. */
int procfed_poll(struct proc_source *src, uint64_t now, struct helper_procs *hp);
int procfed_sample(struct proc_source *src, const struct helper_procs *hp, uint64_t now,
		   uint64_t elapsed);

/* procexits.c: the exit log. procexits_poll drains the helper's ring
 * (attaching it when due) and ages the log; procexits_gone logs a process
 * the table is about to forget, from its last row, when no ring feeds the
 * log; procexits_publish puts the log in exit_slot when it changed. */
void procexits_poll(struct proc_source *src, uint64_t now);
void procexits_gone(struct proc_source *src, const struct proc_row *r);
void procexits_publish(struct proc_source *src);
void procexits_fini(struct proc_source *src);

#endif
